import BusWire
import Dispatch
import EventBus
import Foundation

/// Formats payloads on the tap thread as ``PayloadFormatter`` does, but faster: the fields of
/// `Encodable` events go through ``PayloadEncoder`` straight into the line, and only types it
/// cannot reproduce exactly go through a reused `JSONEncoder`.
final class TapPayloadFormatter {
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
    init(redaction: PayloadRedaction = .default) {
        self.redaction = redaction
        payloadEncoder = PayloadEncoder(redaction: redaction)
    }

    /// The event's type name as the bus reports it (`String(describing:)` of the type), cached;
    /// derived here rather than stored by the publisher, to keep `publish` cheap.
    func typeName(of event: any Event) -> String {
        let type = type(of: event)
        if let name = typeNames[ObjectIdentifier(type)] { return name }
        let name = String(describing: type)
        typeNames[ObjectIdentifier(type)] = name
        return name
    }

    /// Writes the payload of `event` as a JSON value: its fields embedded, or a string.
    func writePayload(of event: any Event, into writer: inout JSONLineWriter) {
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

    /// The payload as ``PayloadFormatter`` makes it, with a reused encoder.
    func payload(for event: any Event) -> FeedPayload {
        if let encodable = event as? any Encodable, let data = try? encoder.encode(encodable) {
            let text = redaction.redact(json: String(decoding: data, as: UTF8.self))
            if data.count > FeedPayload.maximumLength { return .description(FeedPayload.truncated(text)) }
            if let first = data.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
                return .fields(json: text)
            }
            return .description(text)
        }
        var text = redaction.redact(description: String(describing: event))
        if text.utf8.contains(0x0A) { text = text.replacingOccurrences(of: "\n", with: " ") }
        if text.utf8.count > FeedPayload.maximumLength { text = FeedPayload.truncated(text) }
        return .description(text)
    }
}
