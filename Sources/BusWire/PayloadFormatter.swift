public import EventBus
import Foundation

/// Turns events into the one-line text monitors show and taps send: JSON of the fields of an
/// `Encodable` event (sorted keys), else its description, with redacted fields' values replaced.
///
/// ``format(_:redacting:)`` formats one event. A formatter kept from one event to the next (as a
/// tap's thread keeps one) remembers each type's name and how it encodes, and writes the fields
/// of `Encodable` events through ``PayloadEncoder`` straight into a line; only types that encoder
/// cannot reproduce exactly go through a reused `JSONEncoder`. Not thread-safe: one thread uses
/// a formatter.
public final class PayloadFormatter {
    private var typeNames: [ObjectIdentifier: String] = [:]
    /// How each type met so far encodes: `nil` for types that are not `Encodable`, or that the
    /// fast encoder gave up on once (they take the `JSONEncoder` path from then on).
    private var encodings: [ObjectIdentifier: EncodableEventType?] = [:]
    private let payloadEncoder: PayloadEncoder
    private let redaction: PayloadRedaction
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Creates a formatter that writes `"<redacted>"` for the fields `redaction` names.
    package init(redaction: PayloadRedaction = .default) {
        self.redaction = redaction
        payloadEncoder = PayloadEncoder(redaction: redaction)
    }

    /// The event's type name as the bus reports it (`String(describing:)` of the type), cached;
    /// derived here rather than stored by the publisher, to keep `publish` cheap.
    package func typeName(of event: any Event) -> String {
        let type = type(of: event)
        if let name = typeNames[ObjectIdentifier(type)] { return name }
        let name = String(describing: type)
        typeNames[ObjectIdentifier(type)] = name
        return name
    }

    /// Writes the payload of `event` as a JSON value: its fields embedded, or a string.
    package func writePayload(of event: any Event, into writer: inout JSONLineWriter) {
        let type = ObjectIdentifier(type(of: event))
        let encoding: EncodableEventType?
        if let known = encodings[type] {
            encoding = known
        } else {
            encoding = EncodableEventType(of: event)
            encodings[type] = encoding
        }
        if let encoding {
            let start = writer.bytes.count
            do throws(PayloadEncoder.Unsupported) {
                try encoding.write(event, with: payloadEncoder, into: &writer)
                let first = writer.bytes[start]
                let length = writer.bytes.count - start
                if length > FeedPayload.maximumLength
                    || (first != UInt8(ascii: "{") && first != UInt8(ascii: "["))
                {
                    // Too long, or a bare value: send its text as a description.
                    let text = String(decoding: writer.bytes[start...], as: UTF8.self)
                    writer.bytes.removeSubrange(start...)
                    writer.appendString(
                        length > FeedPayload.maximumLength ? FeedPayload.truncated(text) : text)
                }
                return
            } catch {
                writer.bytes.removeSubrange(start...)
                encodings[type] = .some(nil)
            }
        }
        switch payload(for: event) {
        case .fields(let json): writer.appendRaw(json)
        case .description(let text): writer.appendString(text)
        case .value: writer.appendString(String(describing: event))  // `payload(for:)` never makes one
        }
    }

    /// The payload of `event` as a line carries it: ``text(of:)`` cut to
    /// ``FeedPayload/maximumLength`` bytes, as fields when it is a JSON object or array.
    package func payload(for event: any Event) -> FeedPayload {
        FeedPayload(formatted: text(of: event))
    }

    /// JSON of the event's fields with sorted keys when it is `Encodable`, else its description
    /// on one line; either way redacted. Through the reused `JSONEncoder`, the reference the fast
    /// path (``writePayload(of:into:)``) matches.
    package func text(of event: any Event) -> String {
        if let encodable = event as? any Encodable, let data = try? encoder.encode(encodable) {
            return redaction.redact(json: String(decoding: data, as: UTF8.self))
        }
        var text = redaction.redact(description: String(describing: event))
        if text.utf8.contains(0x0A) { text = text.replacingOccurrences(of: "\n", with: " ") }
        return text
    }

    /// JSON of the event's fields with sorted keys when it is `Encodable`, else its description;
    /// either way with the values of redacted fields replaced by `"<redacted>"`.
    ///
    /// - Parameters:
    ///   - event: The event to format.
    ///   - redaction: The fields whose values are not shown.
    /// - Returns: A single line of text.
    public static func format(_ event: any Event, redacting redaction: PayloadRedaction = .default) -> String
    {
        PayloadFormatter(redaction: redaction).text(of: event)
    }
}

extension StickyEvent {
    /// The sticky event as monitors show it: its fields as JSON, or its description, with the
    /// default redaction (an event from another process was redacted there already).
    public var payloadText: String {
        PayloadFormatter.format(event)
    }
}
