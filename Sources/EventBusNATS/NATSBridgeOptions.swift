import BusWire

/// How a ``NATSBridge`` connects, queues and reconnects. The defaults suit most apps.
///
/// ```swift
/// var options = NATSBridgeOptions()
/// options.whenUnreachable = .keepTrying   // start even while the server is down
/// let bridge = try NATSBridge(bus: .shared, url: "nats://127.0.0.1:4222", app: "checkout",
///                             options: options)
/// ```
public struct NATSBridgeOptions: Sendable, Hashable {
    /// What the bridge does when no server answers at start.
    public enum StartPolicy: Sendable, Hashable {
        /// The initializer throws ``NATSBridgeError/unreachable(url:detail:)``.
        case failIfUnreachable
        /// The bridge starts in ``NATSBridgeState/reconnecting`` and connects when it can,
        /// keeping the newest events until then.
        case keepTrying
    }

    /// What to do when no server answers at start; by default, fail.
    public var whenUnreachable: StartPolicy
    /// How many events wait to be sent at most. When it is full, the oldest goes (counted in
    /// ``NATSBridgeStatistics/dropped``), so the publisher never waits.
    public var queueCapacity: Int
    /// Seconds between reconnect attempts: the first wait is the lower bound, each next one
    /// doubles, up to the upper bound, with up to a fifth more at random so that many apps do
    /// not come back at the same instant.
    public var reconnectDelay: ClosedRange<Double>
    /// Reconnect attempts before giving up (``NATSBridgeState/disconnected``); `nil` tries for
    /// ever.
    public var maximumReconnects: Int?
    /// Seconds to wait for a server to answer one connection attempt.
    public var connectTimeout: Double
    /// The host name the envelope names as the sender; by default, this machine's.
    public var host: String
    /// Whether the bridge also publishes what monitors show of the app: its bus's snapshots
    /// (`eventbus.<app>._snapshot`), its subscriber lifecycle changes (`._lifecycle`) and its own
    /// state and counts (`._bridge`), on a connection of their own. On by default; `false`
    /// leaves only the events.
    public var monitoring: Bool
    /// Seconds between two snapshots (and two `_bridge` records) the bridge publishes while
    /// ``monitoring`` is on; half a second by default, as a tap sends them.
    public var monitoringInterval: Double

    /// Creates options; every parameter has the default described on its property.
    ///
    /// - Parameters:
    ///   - whenUnreachable: What to do when no server answers at start.
    ///   - queueCapacity: Events that may wait to be sent.
    ///   - reconnectDelay: The first and the longest wait between reconnect attempts, in seconds.
    ///   - maximumReconnects: Attempts before giving up; `nil` for ever.
    ///   - connectTimeout: Seconds for one connection attempt.
    ///   - host: The sending host's name in the envelope.
    ///   - monitoring: Whether to publish snapshots, lifecycle changes and the bridge's state.
    ///   - monitoringInterval: Seconds between snapshots.
    public init(
        whenUnreachable: StartPolicy = .failIfUnreachable, queueCapacity: Int = 10_000,
        reconnectDelay: ClosedRange<Double> = 0.1...5, maximumReconnects: Int? = nil,
        connectTimeout: Double = 2, host: String = NATSBridgeOptions.hostName(), monitoring: Bool = true,
        monitoringInterval: Double = 0.5
    ) {
        self.monitoring = monitoring
        self.monitoringInterval = monitoringInterval
        self.whenUnreachable = whenUnreachable
        self.queueCapacity = queueCapacity
        self.reconnectDelay = reconnectDelay
        self.maximumReconnects = maximumReconnects
        self.connectTimeout = connectTimeout
        self.host = host
    }

    /// This machine's host name, as `gethostname` gives it.
    ///
    /// - Returns: The name, or `localhost` when the system has none.
    public static func hostName() -> String {
        System.hostName()
    }
}

/// A JetStream stream that keeps the fleet's events for replay, bounded by age and size.
///
/// Given to ``NATSBridge/init(bus:url:app:stream:options:)``, the bridge makes sure a stream
/// with this name captures `eventbus.>`. A stream of that name that already exists is used as it
/// is, whatever its limits.
public struct NATSStreamOptions: Sendable, Hashable {
    /// The stream's name: letters, digits, `-` and `_`.
    public var name: String
    /// Seconds an event is kept.
    public var maximumAge: Double
    /// Bytes the stream may hold; the oldest events go first.
    public var maximumBytes: Int64

    /// Creates stream options.
    ///
    /// - Parameters:
    ///   - name: The stream's name; `EVENTBUS` by default.
    ///   - maximumAge: Seconds an event is kept; a day by default.
    ///   - maximumBytes: Bytes the stream may hold; 1 GiB by default.
    public init(name: String = "EVENTBUS", maximumAge: Double = 86_400, maximumBytes: Int64 = 1 << 30) {
        self.name = name
        self.maximumAge = maximumAge
        self.maximumBytes = maximumBytes
    }
}
