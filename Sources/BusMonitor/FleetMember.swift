public import BusWire
public import EventBus

/// Which process of a fleet something came from: the app name it was bridged under, its host
/// and its process id. The wire format's origin, as monitors use it.
public typealias EventOrigin = FeedOrigin

/// One process of a fleet as a monitor knows it.
public struct FleetMember: Sendable, Hashable {
    /// Whether the process is heard from.
    public enum Presence: String, Sendable, Hashable {
        /// Heard from recently (an event or a snapshot).
        case active
        /// Silent for a while; perhaps idle, perhaps gone.
        case quiet
        /// Silent for long enough to be taken as gone.
        case gone
    }

    /// Who it is.
    public var origin: EventOrigin
    /// Whether it is heard from.
    public var presence: Presence
    /// Seconds since 1970 when it was last heard from.
    public var lastSeen: Double
    /// Events received from it by the monitor.
    public var eventsReceived: Int
    /// Its bus's newest counters, when it sends snapshots.
    public var snapshot: BusSnapshot?
    /// Its bridge's state as it last reported it, such as `connected` or `reconnecting`.
    public var bridgeState: String?
    /// Events its bridge dropped so far (it keeps the newest while the server is away).
    public var bridgeDropped: Int

    /// Creates a member.
    public init(
        origin: EventOrigin, presence: Presence = .active, lastSeen: Double, eventsReceived: Int = 0,
        snapshot: BusSnapshot? = nil, bridgeState: String? = nil, bridgeDropped: Int = 0
    ) {
        self.origin = origin
        self.presence = presence
        self.lastSeen = lastSeen
        self.eventsReceived = eventsReceived
        self.snapshot = snapshot
        self.bridgeState = bridgeState
        self.bridgeDropped = bridgeDropped
    }
}
