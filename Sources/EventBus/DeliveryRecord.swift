/// One event as a wildcard monitor sees it: the event, its type's name, its reach, and where it
/// came from.
public struct DeliveryRecord: Sendable {
    /// The event that was published.
    public let event: any Event
    /// The readable name of the event's type, as in ``EventTypeStatistics/typeName``.
    public let eventTypeName: String
    /// How many typed subscribers received the event (or had it queued to them); wildcard
    /// observers are not counted.
    public let receivers: Int
    /// The event's number, cause, site, thread and time together: stored as one value, so
    /// that a monitor keeping it copies one field, not five.
    public let trace: PublishTrace

    /// The event's number on its bus: unique, and increasing in the order of the `publish`
    /// calls. Numbers are given while someone watches the bus, so they may skip.
    public var eventID: UInt64 { trace.eventID }
    /// The ``eventID`` of the event whose handler published this one, on the same thread or
    /// through a queued or main-actor delivery; `nil` for a publish made outside any handler
    /// of this bus.
    public var causeID: UInt64? { trace.causeID }
    /// Where `publish` was called, when the caller's site is known.
    public var site: PublishSite? { trace.site }

    /// The thread that called `publish`, while something observes handler calls; `nil`
    /// otherwise.
    public var thread: TraceThread? { trace.thread }
    /// When `publish` was called, in nanoseconds since 1970, while something observes handler
    /// calls; `nil` otherwise.
    public var publishedAtNanoseconds: Int? { trace.publishedAtNanoseconds }

    /// Creates a record; the bus makes these, and tests and replays may too.
    public init(
        event: any Event, eventTypeName: String, receivers: Int, eventID: UInt64 = 0,
        causeID: UInt64? = nil, site: PublishSite? = nil, thread: TraceThread? = nil,
        publishedAtNanoseconds: Int? = nil
    ) {
        self.event = event
        self.eventTypeName = eventTypeName
        self.receivers = receivers
        trace = PublishTrace(
            eventID: eventID, causeID: causeID, site: site, thread: thread,
            publishedAtNanoseconds: publishedAtNanoseconds)
    }
}

extension DeliveryRecord {
    /// A record whose number, cause, site, thread and time come from `trace`.
    init(event: any Event, eventTypeName: String, receivers: Int, trace: PublishTrace) {
        self.event = event
        self.eventTypeName = eventTypeName
        self.receivers = receivers
        self.trace = trace
    }
}
