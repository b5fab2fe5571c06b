/// What `busmon` was asked to do, as read from its command line.
///
/// Every field has the value busmon uses when the flag is absent, so a default-constructed value
/// is the same as running `busmon` with no arguments.
package struct BusmonOptions: Sendable, Equatable {
    /// Events per second the simulated app publishes when `--rate` is not given.
    package static let defaultRate = 200

    /// Events per second the simulated app publishes (`--rate`), at least 1.
    package var rate: Int
    /// Seed of the simulated app's random choices (`--seed`), or `nil` for a random one.
    package var seed: UInt64?
    /// Seconds after which busmon quits by itself (`--duration`), or `nil` to run until asked.
    package var duration: Double?
    /// Draw with ASCII characters only (`--ascii`), even in a UTF-8 locale.
    package var ascii: Bool
    /// Never use colours (`--no-color`); the `NO_COLOR` environment variable does the same.
    package var noColor: Bool
    /// Path of another process's tap socket to watch, or the `nats://` URL of a fleet's server
    /// (`--attach`).
    package var attachPath: String?
    /// Seconds of a fleet's history to replay before following it live (`--since`); only with
    /// `--attach nats://…`.
    package var since: Double?
    /// File to write what is watched to (`--record`).
    package var recordPath: String?
    /// Where `--graph` writes the flow graph (Graphviz DOT), or `nil` for no graph.
    package var graphPath: String?
    /// Where `--trace` writes a Chrome Trace Event file, or `nil` for no trace.
    package var tracePath: String?
    /// Recording to play back instead of watching live (`--replay`).
    package var replayPath: String?
    /// Replay speed factor (`--speed`), greater than 0; only used with ``replayPath``.
    package var speed: Double
    /// Seconds into the recording where a replay starts, paused (`--at`); with `--headless`,
    /// the moment whose state busmon prints. Only with ``replayPath``.
    package var at: Double?
    /// Run without a screen and write JSON Lines to stdout (`--headless`).
    package var headless: Bool
    /// `HOST:PORT` to listen on for apps that dial in (`--listen`).
    package var listenAddress: String?
    /// The token apps dialling in must give (`--token`, or the `BUSMON_TOKEN` environment
    /// variable); `nil` makes busmon choose a random one and show it.
    package var token: String?

    /// Creates options; the defaults are those of a bare `busmon`.
    package init(
        rate: Int = BusmonOptions.defaultRate, seed: UInt64? = nil, duration: Double? = nil,
        ascii: Bool = false, noColor: Bool = false, attachPath: String? = nil, recordPath: String? = nil,
        replayPath: String? = nil, speed: Double = 1, headless: Bool = false, since: Double? = nil,
        listenAddress: String? = nil, token: String? = nil
    ) {
        self.listenAddress = listenAddress
        self.token = token
        self.since = since
        self.rate = rate
        self.seed = seed
        self.duration = duration
        self.ascii = ascii
        self.noColor = noColor
        self.attachPath = attachPath
        self.recordPath = recordPath
        self.replayPath = replayPath
        self.speed = speed
        self.headless = headless
    }

    /// Where the watched data comes from, decided from ``attachPath`` and ``replayPath``.
    package var source: BusmonSource {
        if let listenAddress { return .listen(address: listenAddress, token: token) }
        if let attachPath, Self.isNATSURL(attachPath) { return .fleet(url: attachPath, since: since) }
        if let attachPath { return .attach(path: attachPath) }
        if let replayPath { return .replay(path: replayPath, speed: speed) }
        return .simulator(rate: rate, seed: seed)
    }

    /// Whether `text` reads as a URL, well formed or not: it holds `://`, or begins with a
    /// scheme and `:/` (`nats:/host`). Never a socket path anyone means; perhaps a NATS URL
    /// mistyped, with a password in it.
    package static func looksLikeAURL(_ text: String) -> Bool {
        if text.contains("://") { return true }
        let trimmed = text.drop { $0 == " " }
        guard let colon = trimmed.firstIndex(of: ":"), let first = trimmed.first, first.isLetter else {
            return false
        }
        let scheme = trimmed[..<colon]
        let schemeCharacters = scheme.allSatisfy { $0.isLetter || $0.isNumber || "+.-".contains($0) }
        return schemeCharacters && trimmed[colon...].hasPrefix(":/")
    }

    /// Whether `--attach` names a NATS server (`nats://…` or `tls://…`) rather than a socket path.
    package static func isNATSURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("nats://") || lowered.hasPrefix("tls://")
    }
}

/// The kinds of data source busmon can watch.
package enum BusmonSource: Sendable, Equatable {
    /// A simulated app inside busmon publishing `rate` events per second.
    case simulator(rate: Int, seed: UInt64?)
    /// Another process, through the tap socket at `path`.
    case attach(path: String)
    /// Every bridged app of a fleet, through the NATS server at `url`, after replaying `since`
    /// seconds of history when given.
    case fleet(url: String, since: Double?)
    /// A recording at `path`, played back `speed` times as fast as it was recorded.
    case replay(path: String, speed: Double)
    /// Every app that dials in to `address` (`HOST:PORT`) with `token`; a random token when
    /// `nil`.
    case listen(address: String, token: String?)
}
