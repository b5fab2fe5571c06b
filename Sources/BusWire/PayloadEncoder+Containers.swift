import Foundation

// MARK: - The Encoder and its containers

/// The `Encoder` handed to `encode(to:)`: a value slot at the end of the line.
struct StreamEncoder: Encoder {
    let encoder: PayloadEncoder
    let slot: Int
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(
            StreamKeyedContainer<Key>(encoder: encoder, frame: encoder.open(.keyed, slot: slot, depth: depth))
        )
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        StreamUnkeyedContainer(encoder: encoder, frame: encoder.open(.unkeyed, slot: slot, depth: depth))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        StreamSingleValueContainer(encoder: encoder, frame: encoder.open(.single, slot: slot, depth: depth))
    }
}

struct StreamKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: PayloadEncoder
    let frame: Int
    var codingPath: [any CodingKey] { [] }

    /// Starts the member `key`; its value is written next.
    @inline(__always)
    private func member(_ key: Key) throws {
        try encoder.addMember(key, to: try encoder.reach(frame))
    }

    /// Writes the member `key` with the placeholder when its name is redacted; then the caller
    /// writes nothing more.
    @inline(__always)
    private func redacted(_ key: Key) throws -> Bool {
        guard encoder.redaction.redacts(key.stringValue) else { return false }
        try member(key)
        encoder.out.appendPayloadString(PayloadRedaction.placeholder)
        return true
    }

    mutating func encodeNil(forKey key: Key) throws {
        if try redacted(key) { return }
        try member(key)
        encoder.out.appendRaw("null")
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        if try redacted(key) { return }
        try member(key)
        encoder.out.appendRaw(value ? "true" : "false")
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        if try redacted(key) { return }
        try member(key)
        encoder.out.appendPayloadString(value)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        if try redacted(key) { return }
        try member(key)
        try encoder.writeDouble(value)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        if try redacted(key) { return }
        try member(key)
        try encoder.writeFloat(value)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        if try redacted(key) { return }
        try member(key)
        encoder.out.appendInteger(value)
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try encode(Int(value), forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try encode(Int(value), forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try encode(Int(value), forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try encode(Int(value), forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encode(UInt64(value), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try encode(Int(value), forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try encode(Int(value), forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try encode(Int(value), forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        if try redacted(key) { return }
        try member(key)
        encoder.writeUnsigned(value)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if try redacted(key) { return }
        let index = try encoder.reach(frame)
        try encoder.addMember(key, to: index)
        encoder.frames[index].busy = true
        try encoder.encodeValue(value)
        encoder.frames[index].busy = false
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        // A redacted member written through a nested container: JSONEncoder's path redacts it.
        if encoder.redaction.redacts(key.stringValue) { encoder.failed = true }
        var frame = 0
        if (try? member(key)) != nil { frame = encoder.push(.keyed, slot: 0) } else { encoder.failed = true }
        return KeyedEncodingContainer(StreamKeyedContainer<NestedKey>(encoder: encoder, frame: frame))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        if encoder.redaction.redacts(key.stringValue) { encoder.failed = true }
        var frame = 0
        if (try? member(key)) != nil {
            frame = encoder.push(.unkeyed, slot: 0)
        } else {
            encoder.failed = true
        }
        return StreamUnkeyedContainer(encoder: encoder, frame: frame)
    }

    // Super encoders are not reproduced: the caller falls back to JSONEncoder.
    mutating func superEncoder() -> any Encoder { abandon() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { abandon() }

    private func abandon() -> any Encoder {
        encoder.failed = true
        return StreamEncoder(encoder: encoder, slot: -1, depth: -1)
    }
}

struct StreamUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: PayloadEncoder
    let frame: Int
    var codingPath: [any CodingKey] { [] }
    var count: Int {
        encoder.frames.last(where: { $0.serial == frame })?.count ?? 0
    }

    /// Starts the next element; its value is written next.
    @inline(__always)
    private func element() throws {
        encoder.addElement(to: try encoder.reach(frame))
    }

    mutating func encodeNil() throws {
        try element()
        encoder.out.appendRaw("null")
    }
    mutating func encode(_ value: Bool) throws {
        try element()
        encoder.out.appendRaw(value ? "true" : "false")
    }
    mutating func encode(_ value: String) throws {
        try element()
        encoder.out.appendPayloadString(value)
    }
    mutating func encode(_ value: Double) throws {
        try element()
        try encoder.writeDouble(value)
    }
    mutating func encode(_ value: Float) throws {
        try element()
        try encoder.writeFloat(value)
    }
    mutating func encode(_ value: Int) throws {
        try element()
        encoder.out.appendInteger(value)
    }
    mutating func encode(_ value: Int8) throws { try encode(Int(value)) }
    mutating func encode(_ value: Int16) throws { try encode(Int(value)) }
    mutating func encode(_ value: Int32) throws { try encode(Int(value)) }
    mutating func encode(_ value: Int64) throws { try encode(Int(value)) }
    mutating func encode(_ value: UInt) throws { try encode(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { try encode(Int(value)) }
    mutating func encode(_ value: UInt16) throws { try encode(Int(value)) }
    mutating func encode(_ value: UInt32) throws { try encode(Int(value)) }
    mutating func encode(_ value: UInt64) throws {
        try element()
        encoder.writeUnsigned(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = try encoder.reach(frame)
        encoder.addElement(to: index)
        encoder.frames[index].busy = true
        try encoder.encodeValue(value)
        encoder.frames[index].busy = false
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        var frame = 0
        if (try? element()) != nil { frame = encoder.push(.keyed, slot: 0) } else { encoder.failed = true }
        return KeyedEncodingContainer(StreamKeyedContainer<NestedKey>(encoder: encoder, frame: frame))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        var frame = 0
        if (try? element()) != nil { frame = encoder.push(.unkeyed, slot: 0) } else { encoder.failed = true }
        return StreamUnkeyedContainer(encoder: encoder, frame: frame)
    }

    mutating func superEncoder() -> any Encoder {
        encoder.failed = true
        return StreamEncoder(encoder: encoder, slot: -1, depth: -1)
    }
}

struct StreamSingleValueContainer: SingleValueEncodingContainer {
    let encoder: PayloadEncoder
    let frame: Int
    var codingPath: [any CodingKey] { [] }

    /// Claims the container's one value; a second one is left to JSONEncoder.
    @inline(__always)
    private func value() throws {
        let index = try encoder.reach(frame)
        guard encoder.frames[index].count == 0 else { throw encoder.unsupported() }
        encoder.frames[index].count = 1
    }

    mutating func encodeNil() throws {
        try value()
        encoder.out.appendRaw("null")
    }
    mutating func encode(_ value: Bool) throws {
        try self.value()
        encoder.out.appendRaw(value ? "true" : "false")
    }
    mutating func encode(_ value: String) throws {
        try self.value()
        encoder.out.appendPayloadString(value)
    }
    mutating func encode(_ value: Double) throws {
        try self.value()
        try encoder.writeDouble(value)
    }
    mutating func encode(_ value: Float) throws {
        try self.value()
        try encoder.writeFloat(value)
    }
    mutating func encode(_ value: Int) throws {
        try self.value()
        encoder.out.appendInteger(value)
    }
    mutating func encode(_ value: Int8) throws { try encode(Int(value)) }
    mutating func encode(_ value: Int16) throws { try encode(Int(value)) }
    mutating func encode(_ value: Int32) throws { try encode(Int(value)) }
    mutating func encode(_ value: Int64) throws { try encode(Int(value)) }
    mutating func encode(_ value: UInt) throws { try encode(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { try encode(Int(value)) }
    mutating func encode(_ value: UInt16) throws { try encode(Int(value)) }
    mutating func encode(_ value: UInt32) throws { try encode(Int(value)) }
    mutating func encode(_ value: UInt64) throws {
        try self.value()
        encoder.writeUnsigned(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = try encoder.reach(frame)
        guard encoder.frames[index].count == 0 else { throw encoder.unsupported() }
        encoder.frames[index].count = 1
        encoder.frames[index].busy = true
        try encoder.encodeValue(value)
        encoder.frames[index].busy = false
    }
}
