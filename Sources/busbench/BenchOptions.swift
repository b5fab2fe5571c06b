/// One part of the benchmark, selectable with `--only`.
enum BenchSection: String, CaseIterable, Sendable {
    case deliveries
    case mainactor
    case threads
    case monitor
    /// What the cascade limit and handler timing cost.
    case why
    case churn
    case snapshot
    case attach
    /// busmon's own CPU time, idle and at simapp's default rate.
    case busmon
    /// busmon's frames a second and memory while an app publishes 100,000 events a second.
    case flood
    /// The NATS bridge; measured only in a build with the NATS trait.
    case bridge
}

/// What the command line asked for.
enum BenchOptions: Equatable {
    /// Measure `sections`; `quick` uses tiny iteration counts to check that every path runs.
    case run(quick: Bool, sections: Set<BenchSection>)
    case help
    /// A usage error, with the message to print.
    case invalid(String)

    static let usage = """
        usage: busbench [--quick] [--only SECTION[,SECTION...]]

        Measures the EventBus against NotificationCenter, an article-style naive bus and a
        plain closure array, and prints ns per delivery, ratios and their targets.
        Build it in release mode for meaningful figures:  swift run -c release busbench

          --quick   tiny iteration counts: checks that every measurement runs and its sums
                    are right (seconds, even in a debug build); the figures mean nothing
          --only    measure only these sections: \(BenchSection.allCases.map(\.rawValue).joined(separator: ", "))
          --help    print this text

        Exit status: 0 when every sanity check passed (a missed target is reported, not an
        error), 1 when a sanity check failed, 2 for a usage error.
        """

    static func parse(_ arguments: some Sequence<String>) -> BenchOptions {
        var quick = false
        var sections = Set(BenchSection.allCases)
        var remaining = Array(arguments)[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--help", "-h": return .help
            case "--only":
                guard let list = remaining.popFirst(), !list.hasPrefix("-") else {
                    return .invalid("busbench: --only needs a list of sections")
                }
                var chosen = Set<BenchSection>()
                for name in list.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let section = BenchSection(rawValue: String(name)) else {
                        return .invalid("busbench: unknown section '\(name)' for --only")
                    }
                    chosen.insert(section)
                }
                sections = chosen
            default: return .invalid("busbench: unknown argument '\(argument)'")
            }
        }
        return .run(quick: quick, sections: sections)
    }
}
