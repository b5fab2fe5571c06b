package import BusWire

/// One message from a process of a fleet, decoded: an event, a lifecycle change or a snapshot
/// with the process it came from, or the state of the link that carries them.
///
/// A NATS fleet decodes them from `eventbus.>`; ``ListenSource`` makes them from each app's
/// connection, whose handshake names the app.
package enum FleetMessage: Sendable, Hashable {
    /// An event, with its origin.
    case event(FeedEvent, origin: FeedOrigin)
    /// A subscriber lifecycle change.
    case lifecycle(FeedLifecycle, origin: FeedOrigin)
    /// The app's bus counters.
    case snapshot(FeedSnapshot, origin: FeedOrigin)
    /// One handler call, sent while the monitor traces calls.
    case call(FeedHandlerCall, origin: FeedOrigin)
    /// The state and counts of the link that carries the app's records.
    case link(FleetLinkReport)

    /// `record` as a message from `origin`; `nil` for the kinds that are not a process's own
    /// (a hello, drop counts, a refusal).
    package init?(_ record: FeedRecord, origin: FeedOrigin) {
        switch record {
        case .event(let event): self = .event(event, origin: origin)
        case .lifecycle(let change): self = .lifecycle(change, origin: origin)
        case .snapshot(let snapshot): self = .snapshot(snapshot, origin: origin)
        case .call(let call): self = .call(call, origin: origin)
        case .hello, .dropped, .refused, .detached: return nil
        }
    }

    /// Who sent it.
    package var origin: FeedOrigin {
        switch self {
        case .event(_, let origin), .lifecycle(_, let origin), .snapshot(_, let origin), .call(_, let origin):
            return origin
        case .link(let report): return report.origin
        }
    }

    /// When the sender made it, seconds since 1970 on its clock.
    package var time: Double {
        switch self {
        case .event(let event, _): return event.time
        case .lifecycle(let change, _): return change.time
        case .snapshot(let snapshot, _): return snapshot.time
        case .call(let call, _): return call.time
        case .link(let report): return report.time
        }
    }
}

/// What the link between one app and the monitor says of itself: a NATS bridge's report, or
/// the state of an app's connection to `busmon --listen`.
package struct FleetLinkReport: Sendable, Hashable {
    /// The state a link reports last, when it was closed; its app is gone at once.
    package static let closedState = "closed"
    /// The ``kind`` of a NATS bridge's report, whose counts run from the bridge's start.
    package static let bridgeKind = "bridge"

    /// Seconds since 1970 when the report was made.
    package var time: Double
    /// The app the link speaks for.
    package var origin: FeedOrigin
    /// What the link is, for the log: `bridge`, `connection`.
    package var kind: String
    /// Its state, such as `connected`, `reconnecting` or ``closedState``.
    package var state: String
    /// Events the link dropped so far.
    package var dropped: Int
    /// Times the link reconnected so far.
    package var reconnects: Int
    /// Handler calls the link lost so far, while a trace asked for them.
    package var droppedCalls = 0
    /// Lifecycle changes the link lost so far (a running total).
    package var droppedLifecycle = 0
    /// What the link reconnects to, for the log: `the server` for a NATS bridge.
    package var peer: String
    /// Which of the app's links made the report, when one app may have several in turn (a
    /// dialler that reconnects opens a new connection, whose counts start again at 0); `nil`
    /// for a NATS bridge, whose counts run from its start across its reconnections.
    package var link: Int?
    /// The number of the last event the link sent, for a link that numbers its events (a NATS
    /// bridge numbers them as it forwards them); `nil` otherwise.
    package var lastEventNumber: Int?

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - time: When it was made.
    ///   - origin: The app.
    ///   - kind: What the link is.
    ///   - state: Its state.
    ///   - dropped: Events dropped so far.
    ///   - reconnects: Reconnections so far.
    ///   - peer: What the link reconnects to.
    ///   - link: Which of the app's links made it, when its counts start again with each link.
    package init(
        time: Double, origin: FeedOrigin, kind: String, state: String, dropped: Int = 0, reconnects: Int = 0,
        peer: String = "the monitor", link: Int? = nil
    ) {
        self.peer = peer
        self.link = link
        self.time = time
        self.origin = origin
        self.kind = kind
        self.state = state
        self.dropped = dropped
        self.reconnects = reconnects
    }
}
