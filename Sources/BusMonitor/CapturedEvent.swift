import BusWire
public import EventBus
import Foundation

/// One published event as a monitor keeps it.
///
/// In-process captures keep the event itself and format its payload only when a row showing it
/// is drawn; events read from a socket or a recording arrive already formatted.
public struct CapturedEvent: Sendable {
    /// The event's payload, formatted or not yet.
    public enum Payload: Sendable {
        /// The event itself, formatted on demand.
        case value(any Event)
        /// A payload already formatted, as read from a tap or a recording.
        case text(String)
    }

    /// Seconds since 1970 when the event was captured.
    public let time: Double
    /// The readable name of the event's type.
    public let typeName: String
    /// The event's payload.
    public let payload: Payload
    /// How many typed subscribers received the event.
    public let receivers: Int
    /// The process that published it, when the source watches several (a fleet bridged through
    /// NATS); `nil` for a single app.
    public let origin: EventOrigin?
    /// The event's number, its cause's and its call site, as far as the source knows them.
    public let trace: PublishTrace

    /// Creates a captured event.
    public init(
        time: Double, typeName: String, payload: Payload, receivers: Int, origin: EventOrigin? = nil,
        trace: PublishTrace = PublishTrace()
    ) {
        self.trace = trace
        self.time = time
        self.typeName = typeName
        self.payload = payload
        self.receivers = receivers
        self.origin = origin
    }

    /// The payload as text: JSON of the fields of an `Encodable` event, its description otherwise.
    public var payloadText: String {
        switch payload {
        case .text(let text): return text
        case .value(let event): return PayloadFormatter.format(event)
        }
    }
}

/// A subscriber lifecycle change as a monitor keeps it.
public struct CapturedLifecycle: Sendable {
    /// Seconds since 1970 when the change was captured.
    public let time: Double
    /// The change.
    public let change: SubscriberLifecycleEvent
    /// The process whose bus it happened on, when the source watches several (a fleet bridged
    /// through NATS); `nil` for a single app.
    public let origin: EventOrigin?

    /// Creates a captured change.
    public init(time: Double, change: SubscriberLifecycleEvent, origin: EventOrigin? = nil) {
        self.time = time
        self.change = change
        self.origin = origin
    }
}

extension StickyEvent {
    /// The sticky event as monitors show it: its fields as JSON, or its description, with the
    /// default redaction (an event from another process was redacted there already).
    public var payloadText: String {
        PayloadFormatter.format(event)
    }
}
