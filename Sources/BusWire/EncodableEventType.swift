import EventBus

/// How to encode the events of one `Encodable` type, worked out once for the type.
///
/// Whether an `any Event` is `Encodable` is a dynamic cast, which looks the conformance up each
/// time (a hash-table lookup and more, longer than encoding a small event). A sender keeps one of
/// these per event type instead, found with the first event of it, and encodes later events of
/// that type through it with no cast.
package struct EncodableEventType {
    private let writer: any EventPayloadWriting

    /// The encoding of `event`'s type, or `nil` when it is not `Encodable`.
    package init?(of event: any Event) {
        guard let encodable = event as? any Encodable else { return nil }
        writer = Self.writer(for: encodable)
    }

    private static func writer<T: Encodable>(for value: T) -> any EventPayloadWriting {
        TypedPayloadWriter<T>()
    }

    /// Appends the JSON of `event`, which must be of the type this was made from, with
    /// `encoder`.
    package func write(
        _ event: any Event, with encoder: PayloadEncoder, into line: inout JSONLineWriter
    ) throws(PayloadEncoder.Unsupported) {
        try writer.write(event, with: encoder, into: &line)
    }
}

private protocol EventPayloadWriting {
    func write(
        _ event: any Event, with encoder: PayloadEncoder, into line: inout JSONLineWriter
    ) throws(PayloadEncoder.Unsupported)
}

/// Writes events of the `Encodable` type `T`, handed over as `any Event`.
private struct TypedPayloadWriter<T: Encodable>: EventPayloadWriting {
    func write(
        _ event: any Event, with encoder: PayloadEncoder, into line: inout JSONLineWriter
    ) throws(PayloadEncoder.Unsupported) {
        try write(opened: event, with: encoder, into: &line)
    }

    /// `E` is the event's dynamic type, `T` when the caller kept its promise: then the value is
    /// `T` as it is, and a bit cast (no runtime call) hands it over.
    private func write<E: Event>(
        opened event: E, with encoder: PayloadEncoder, into line: inout JSONLineWriter
    ) throws(PayloadEncoder.Unsupported) {
        if E.self == T.self {
            try encoder.write(unsafeBitCast(event, to: T.self), into: &line)
        } else if let value = event as? any Encodable {
            try encoder.write(value, into: &line)
        } else {
            throw PayloadEncoder.Unsupported()
        }
    }
}
