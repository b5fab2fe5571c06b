public import EventBus

/// An event as a monitor receives it from another process: its type's name and its payload as
/// text, which the app redacted before sending. A monitor shows it; it never rebuilds the
/// event, whose type it does not have.
public struct ReceivedEvent: Event, CustomStringConvertible {
    /// The event type's name in the app, such as `NetworkStatusChangedEvent`.
    public let typeName: String
    /// The payload as the app sent it: JSON of the fields, or the event's description.
    public let payload: String

    /// Creates the event as received.
    public init(typeName: String, payload: String) {
        self.typeName = typeName
        self.payload = payload
    }

    /// The payload text.
    public var description: String { payload }
}
