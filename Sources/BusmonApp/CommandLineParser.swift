internal import BusMonitor
internal import EventBusNATS
internal import Simulator

/// What a busmon command line asks for.
package enum BusmonCommand: Sendable, Equatable {
    /// Print ``CommandLineParser/usage`` and exit 0.
    case help
    /// Run with these options.
    case run(BusmonOptions)
}

/// Reads busmon's command line.
///
/// Flags take their value as the next argument or after `=` (`--rate 50`, `--rate=50`). An
/// argument starting with `--` is never taken as a value, so `--duration --ascii` reports the
/// missing duration instead of a strange one. A flag given twice keeps its last value. `-h` or
/// `--help` anywhere wins over everything else, so help is always reachable.
///
/// ```swift
/// let command = try CommandLineParser.parse(["--rate", "50", "--ascii"])
/// // .run(BusmonOptions(rate: 50, ascii: true))
/// ```
package enum CommandLineParser {
    /// The most events per second `--rate` accepts: the simulated app's own limit, which the `+`
    /// key and simapp's `--rate` share.
    package static let maximumRate = Int(SimulatedApp.maximumRate)
    /// The slowest `--speed`: a second of recording in about 17 minutes. Slower plays nothing
    /// anyone would see move; the header would show 0.00x.
    package static let slowestReplaySpeed = 0.001

    /// The help text, ending with a newline.
    package static let usage = """
        usage: busmon [options]

        Watch an EventBus live in the terminal: event rates, subscribers, recent events.

        Data source (default: a simulated app inside busmon):
          --rate N            events a second the simulated app's services publish, 1 to \(maximumRate)
                              (default \(BusmonOptions.defaultRate); its screens add a few; + and - change it while running)
          --seed N            seed of the simulated app's random choices (default: random)
          --attach PATH       watch another process through its tap socket at PATH; attaches,
                              detaches and a full tap's refusal are logged
          --attach nats://HOST:PORT
                              watch every app bridged through that NATS server (a fleet): their
                              events with app, host and pid, each app's counters, apps that
                              turn quiet or gone (needs a build with --traits NATS)
          --since DURATION    with --attach nats://, first replay the fleet's history from the
                              server's JetStream stream (30s, 10m, 2h), then follow it live
          --listen HOST:PORT  let apps dial in (BusTap's monitor: initializer, simapp --connect)
                              and watch them all, each by name: 127.0.0.1:7777 for the iOS
                              Simulator, 0.0.0.0:7777 for a phone on the local network
          --token TOKEN       with --listen, the token apps must give (also BUSMON_TOKEN);
                              without one busmon makes a random one and shows it
          --replay FILE       play back a recording made with --record, read as it plays
                              (- reads standard input, with --headless)
          --speed X           replay speed factor, with --replay (default 1; 0.001 and up,
                              above 1000000 as fast as it reads)
          --at TIME           with --replay, start paused at TIME (1:12, 1:02:03 or 72.4 seconds);
                              with --headless, print the state at TIME as one JSON line and exit
          --record FILE       also write what is watched to FILE (not with --replay)
          --graph FILE        also write a Graphviz graph of who publishes what to whom to FILE
                              (call sites, event types, observer classes; dot -Tsvg FILE)
          --trace FILE        also write a trace Perfetto and chrome://tracing open to FILE:
                              handler calls on their threads, publishes, what caused what,
                              waits, counters; the app times each call while it is written

        Display:
          --ascii             draw with ASCII only (automatic when the locale is not UTF-8)
          --no-color          no colours (also when the NO_COLOR environment variable is set)
          --headless          no screen: write JSON Lines to stdout, for scripts
          --duration SECONDS  quit by itself after SECONDS
          -h, --help          show this help and exit

        In the dashboard, q quits and ? lists the keys. Weak-reference cleanup is quick: to watch
        it, start with --rate 5 or slow down with -.
        With --headless, notices (attached, detached, a recording's warnings, records dropped on the
        way) go to stderr.
        Exit status: 0 done (or the reader of --headless output closed the pipe), 1 cannot run
        (no terminal, unknown TERM, output not writable, --listen's port taken; with --headless
        also an empty recording, an app never attached, no app dialled in to --listen, or a
        NATS server never reached) or a file it wrote stopped early (a full disk, or a reader
        of --headless output that stopped reading when --duration ended), 2 bad command
        line (also --attach nats:// in a busmon built without NATS, or a --token under 12
        characters), 128 + the signal after one that ends it: 130 after SIGINT, 143 after
        SIGTERM, 129 after SIGHUP or a lost terminal.

        """

    /// Reads the arguments that follow the program name.
    ///
    /// - Parameter arguments: The command line without the program name.
    /// - Returns: What to do.
    /// - Throws: ``CommandLineError`` with a one-line reason when the command line is wrong.
    package static func parse(_ arguments: [String]) throws(CommandLineError) -> BusmonCommand {
        if arguments.prefix(while: { $0 != "--" }).contains(where: { $0 == "-h" || $0 == "--help" }) {
            return .help
        }
        var options = BusmonOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                if let extra = remaining.first { throw CommandLineError("unexpected argument '\(extra)'") }
                break
            }
            guard argument.hasPrefix("-"), argument.count > 1 else {
                throw CommandLineError("unexpected argument '\(argument)'")
            }
            let (name, inlineValue) = split(argument)
            switch name {
            case "--ascii": try noValue(name, inlineValue); options.ascii = true
            case "--no-color": try noValue(name, inlineValue); options.noColor = true
            case "--headless": try noValue(name, inlineValue); options.headless = true
            case "--rate":
                let text = try value(of: name, inline: inlineValue, from: &remaining)
                guard let rate = Int(text), (1...maximumRate).contains(rate) else {
                    throw CommandLineError(
                        "--rate needs a whole number from 1 to \(maximumRate), got '\(text)'")
                }
                options.rate = rate
            case "--seed":
                let text = try value(of: name, inline: inlineValue, from: &remaining)
                guard let seed = UInt64(text) else {
                    throw CommandLineError("--seed needs a whole number of 0 or more, got '\(text)'")
                }
                options.seed = seed
            case "--duration":
                let text = try value(of: name, inline: inlineValue, from: &remaining)
                options.duration = try positiveNumber(text, for: name, kind: "a number of seconds")
            case "--speed":
                let text = try value(of: name, inline: inlineValue, from: &remaining)
                options.speed = try positiveNumber(
                    text, for: name, kind: "a speed factor", atLeast: Self.slowestReplaySpeed)
            case "--at":
                let text = try value(of: name, inline: inlineValue, from: &remaining)
                guard let seconds = ReplaySource.seconds(parsing: text) else {
                    throw CommandLineError(
                        "--at needs a time such as 1:12, 1:02:03 or 72.4 (seconds), got '\(text)'")
                }
                options.at = seconds
            case "--attach":
                let path = try path(of: name, inline: inlineValue, from: &remaining)
                if BusmonOptions.looksLikeAURL(path), !BusmonOptions.isNATSURL(path) {
                    // Told back without its password: the message may reach a log.
                    throw CommandLineError(
                        "--attach takes a socket path or nats://HOST:PORT; "
                            + "'\(NATSServerURL.redacted(path))' looks like a mistyped URL")
                }
                options.attachPath = path
            case "--since":
                let text = try value(of: name, inline: inlineValue, from: &remaining)
                guard let seconds = duration(text) else {
                    throw CommandLineError(
                        "--since needs a duration such as 30s, 10m or 2h, got '\(text)'")
                }
                options.since = seconds
            case "--record":
                options.recordPath = try path(of: name, inline: inlineValue, from: &remaining)
            case "--graph":
                options.graphPath = try path(of: name, inline: inlineValue, from: &remaining)
            case "--trace":
                options.tracePath = try path(of: name, inline: inlineValue, from: &remaining)
            case "--replay":
                options.replayPath = try path(of: name, inline: inlineValue, from: &remaining)
            case "--listen":
                let text = try value(of: name, inline: inlineValue, from: &remaining)
                guard isHostAndPort(text) else {
                    throw CommandLineError(
                        "--listen needs HOST:PORT, such as 127.0.0.1:7777 or 0.0.0.0:7777, got '\(text)'")
                }
                options.listenAddress = text
            case "--token":
                let text = try value(of: name, inline: inlineValue, from: &remaining)
                guard !text.isEmpty, !text.contains(where: \.isWhitespace) else {
                    throw CommandLineError("--token needs a token without spaces, got '\(text)'")
                }
                options.token = text
            default:
                throw CommandLineError("unknown option '\(name)'")
            }
        }
        try checkCombination(of: options, arguments: arguments)
        if let token = options.token, let problem = ListenSource.tokenProblem(token) {
            throw CommandLineError("--token: \(problem)")
        }
        return .run(options)
    }

    /// Rejects flags that contradict each other, naming both.
    private static func checkCombination(
        of options: BusmonOptions, arguments: [String]
    ) throws(CommandLineError) {
        func given(_ flag: String) -> Bool {
            arguments.contains { $0 == flag || $0.hasPrefix(flag + "=") }
        }
        if options.attachPath != nil, options.replayPath != nil {
            throw CommandLineError("--attach and --replay cannot be used together")
        }
        if options.listenAddress != nil {
            for flag in ["--attach", "--replay", "--rate", "--seed"] where given(flag) {
                throw CommandLineError("--listen and \(flag) cannot be used together")
            }
        } else if given("--token") {
            throw CommandLineError("--token only applies to --listen")
        }
        if given("--since"), !(options.attachPath.map(BusmonOptions.isNATSURL) ?? false) {
            throw CommandLineError("--since only applies to --attach nats://HOST:PORT")
        }
        if given("--speed"), options.replayPath == nil {
            throw CommandLineError("--speed only applies to --replay")
        }
        if given("--at"), options.replayPath == nil {
            throw CommandLineError("--at only applies to --replay")
        }
        if options.attachPath != nil || options.replayPath != nil {
            let other = options.attachPath != nil ? "--attach" : "--replay"
            for flag in ["--rate", "--seed"] where given(flag) {
                throw CommandLineError("\(flag) only applies to the simulated app, not to \(other)")
            }
        }
        if options.replayPath != nil, options.recordPath != nil {
            throw CommandLineError("--record cannot be used with --replay")
        }
        if options.replayPath == "-", !options.headless {
            // The dashboard reads its keys from the terminal that standard input would be.
            throw CommandLineError(
                "--replay - (standard input) needs --headless; the dashboard reads keys there")
        }
    }

    /// Splits `--name=value` into its name and value.
    private static func split(_ argument: String) -> (name: String, value: String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else {
            return (argument, nil)
        }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func noValue(_ name: String, _ inlineValue: String?) throws(CommandLineError) {
        if inlineValue != nil { throw CommandLineError("\(name) takes no value") }
    }

    /// The value after `=`, or else the next argument unless that is another flag.
    private static func value(
        of name: String, inline inlineValue: String?, from remaining: inout ArraySlice<String>
    ) throws(CommandLineError) -> String {
        if let inlineValue { return inlineValue }
        guard let next = remaining.first, !next.hasPrefix("--") else {
            throw CommandLineError("\(name) needs a value")
        }
        remaining.removeFirst()
        return next
    }

    private static func path(
        of name: String, inline inlineValue: String?, from remaining: inout ArraySlice<String>
    ) throws(CommandLineError) -> String {
        let text = try value(of: name, inline: inlineValue, from: &remaining)
        guard !text.isEmpty else { throw CommandLineError("\(name) needs a non-empty path") }
        return text
    }

    /// Whether `text` reads as `HOST:PORT` (`[IPv6]:PORT` too), with a port from 0 to 65535.
    static func isHostAndPort(_ text: String) -> Bool {
        guard let colon = text.lastIndex(of: ":") else { return false }
        let host = text[..<colon]
        guard let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            return false
        }
        if host.hasPrefix("[") { return host.hasSuffix("]") && host.count > 2 }
        // No host at all would listen on every interface unasked: 0.0.0.0 must be said.
        return !host.isEmpty && !host.contains(":") && !host.contains(where: \.isWhitespace)
    }

    /// Seconds in a duration such as `30s`, `10m`, `2h`, `1d` or `90` (seconds), greater than 0.
    static func duration(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var number = Substring(text)
        var unit = 1.0
        if let last = text.last, let factor = units[last] {
            number = number.dropLast()
            unit = factor
        }
        // Finite once the unit is applied too: 1e308d is not a duration.
        guard let value = decimal(number), value > 0, (value * unit).isFinite else { return nil }
        return value * unit
    }

    /// `text` as a number written in decimals, such as `4`, `-0.25`, `.5` or `1e3`; `nil` for
    /// anything else, which `Double(_:)` alone would take too (`0x10`, `inf`, `nan`).
    static func decimal(_ text: Substring) -> Double? {
        var digits = 0
        var rest = text.utf8[...]
        if let sign = rest.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            rest = rest.dropFirst()
        }
        func skipDigits() {
            while let byte = rest.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                digits += 1
                rest = rest.dropFirst()
            }
        }
        skipDigits()
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            skipDigits()
        }
        guard digits > 0 else { return nil }
        if let byte = rest.first, byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                rest = rest.dropFirst()
            }
            digits = 0
            skipDigits()
            guard digits > 0 else { return nil }
        }
        guard rest.isEmpty else { return nil }
        return Double(text)
    }

    private static func positiveNumber(
        _ text: String, for name: String, kind: String, atLeast minimum: Double? = nil
    ) throws(CommandLineError) -> Double {
        guard let number = decimal(text[...]) else {
            throw CommandLineError(
                "\(name) needs \(kind) written in decimals, such as 4 or 0.5, got '\(text)'")
        }
        guard number.isFinite else { throw CommandLineError("\(name): '\(text)' is too large a number") }
        guard number > 0 else {
            throw CommandLineError("\(name) needs \(kind) greater than 0, got '\(text)'")
        }
        if let minimum, number < minimum {
            throw CommandLineError("\(name) needs \(kind) of at least \(minimum), got '\(text)'")
        }
        return number
    }
}
