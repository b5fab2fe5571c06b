/// One event as a wildcard monitor sees it: the event, its type's name, and its reach.
public struct DeliveryRecord: Sendable {
    /// The event that was published.
    public let event: any Event
    /// The readable name of the event's type, as in ``EventTypeStatistics/typeName``.
    public let eventTypeName: String
    /// How many typed subscribers received the event (or had it queued to them); wildcard
    /// observers are not counted.
    public let receivers: Int

    /// Creates a record; the bus makes these, and tests may too.
    public init(event: any Event, eventTypeName: String, receivers: Int) {
        self.event = event
        self.eventTypeName = eventTypeName
        self.receivers = receivers
    }
}
