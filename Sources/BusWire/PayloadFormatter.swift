public import EventBus
import Foundation

/// Turns events into the one-line text monitors show and taps send.
public enum PayloadFormatter {
    /// JSON of the event's fields with sorted keys when it is `Encodable`, else its description;
    /// either way with the values of redacted fields replaced by `"<redacted>"`.
    ///
    /// - Parameters:
    ///   - event: The event to format.
    ///   - redaction: The fields whose values are not shown.
    /// - Returns: A single line of text.
    public static func format(_ event: any Event, redacting redaction: PayloadRedaction = .default) -> String
    {
        if let encodable = event as? any Encodable {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            if let data = try? encoder.encode(encodable), let text = String(data: data, encoding: .utf8) {
                return redaction.redact(json: text)
            }
        }
        return redaction.redact(
            description: String(describing: event).replacingOccurrences(of: "\n", with: " "))
    }
}

extension StickyEvent {
    /// The sticky event as monitors show it: its fields as JSON, or its description, with the
    /// default redaction (an event from another process was redacted there already).
    public var payloadText: String {
        PayloadFormatter.format(event)
    }
}
