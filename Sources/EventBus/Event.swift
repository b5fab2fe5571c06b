/// Something that happened, published on an ``EventBus`` and delivered by type.
///
/// Declare each event as a small value type. Subscribers receive the concrete type, so no casts
/// are needed in handlers:
///
/// ```swift
/// struct UserLoggedInEvent: Event {
///     let userId: String
///     let userName: String
/// }
/// ```
///
/// Events cross threads (the bus delivers on the publisher's thread, or on a queue a subscriber
/// chose), so `Event` refines `Sendable`. Conform to `Encodable` as well and monitors can show
/// the event's fields.
public protocol Event: Sendable {}
