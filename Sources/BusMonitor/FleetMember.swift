package import BusWire
package import EventBus

/// Which process of a fleet something came from: the app name it was bridged under, its host
/// and its process id. The wire format's origin, as monitors use it.
package typealias EventOrigin = FeedOrigin

/// One process of a fleet as a monitor knows it.
package struct FleetMember: Sendable, Hashable {
    /// Whether the process is heard from.
    package enum Presence: String, Sendable, Hashable {
        /// Heard from recently (an event or a snapshot).
        case active
        /// Silent for a while; perhaps idle, perhaps gone.
        case quiet
        /// Silent for long enough to be taken as gone.
        case gone
    }

    /// Who it is.
    package var origin: EventOrigin
    /// Whether it is heard from.
    package var presence: Presence
    /// Seconds since 1970 when it was last heard from.
    package var lastSeen: Double
    /// Events received from it by the monitor.
    package var eventsReceived: Int
    /// Its bus's newest counters, when it sends snapshots.
    package var snapshot: BusSnapshot?
    /// Its bridge's state as it last reported it, such as `connected` or `reconnecting`.
    package var bridgeState: String?
    /// Events its bridge dropped so far (it keeps the newest while the server is away).
    package var bridgeDropped: Int

    /// Creates a member.
    package init(
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
