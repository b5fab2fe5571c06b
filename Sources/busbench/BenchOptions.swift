/// What the command line asked for.
enum BenchOptions: Equatable {
    /// Measure; `quick` uses tiny iteration counts to check that every path runs.
    case run(quick: Bool)
    case help
    /// A usage error, with the message to print.
    case invalid(String)

    static let usage = """
        usage: busbench [--quick]

        Measures the EventBus against NotificationCenter, an article-style naive bus and a
        plain closure array, and prints ns per delivery, ratios and their targets.
        Build it in release mode for meaningful figures:  swift run -c release busbench

          --quick   tiny iteration counts: checks that every measurement runs and its sums
                    are right (seconds, even in a debug build); the figures mean nothing
          --help    print this text

        Exit status: 0 when every sanity check passed (a missed target is reported, not an
        error), 1 when a sanity check failed, 2 for a usage error.
        """

    static func parse(_ arguments: some Sequence<String>) -> BenchOptions {
        var quick = false
        for argument in arguments {
            switch argument {
            case "--quick": quick = true
            case "--help", "-h": return .help
            default: return .invalid("busbench: unknown argument '\(argument)'")
            }
        }
        return .run(quick: quick)
    }
}
