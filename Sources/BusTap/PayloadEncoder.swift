import Foundation

/// Encodes an `Encodable` event's fields as compact JSON with sorted keys, the same text
/// `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]` makes (which is what
/// `PayloadFormatter` shows), several times faster.
///
/// It runs for every event a tap sends, where `JSONEncoder` was most of the tap's work. It builds
/// a small tree (keys must be sorted, and a container is only complete when encoding returns),
/// then writes it straight into the line. Anything it does not reproduce exactly, such as
/// `superEncoder()` or a number JSON cannot hold, throws ``Unsupported``, and the caller falls
/// back to `JSONEncoder`.
struct PayloadEncoder {
    /// Thrown for anything the fast path leaves to `JSONEncoder`.
    struct Unsupported: Error {}

    /// Appends the JSON of `value` to `writer`'s bytes.
    static func write(_ value: any Encodable, into writer: inout JSONLineWriter) throws(Unsupported) {
        let root = Node()
        let context = Context()
        do {
            try encodeValue(value, into: root, context)
        } catch {
            throw Unsupported()
        }
        guard !context.unsupported else { throw Unsupported() }
        try root.write(into: &writer)
    }

    /// What the whole encoding shares.
    fileprivate final class Context {
        /// Set when the value used something the fast path does not reproduce exactly.
        var unsupported = false
    }

    /// Encodes `value` into `node`, handling the types `JSONEncoder` treats specially.
    fileprivate static func encodeValue(_ value: any Encodable, into node: Node, _ context: Context) throws {
        switch value {
        case let data as Data:
            node.value = .string(data.base64EncodedString())
        case let url as URL:
            node.value = .string(url.absoluteString)
        case let decimal as Decimal:
            node.value = .raw(decimal.description)
        default:
            try value.encode(to: TreeEncoder(node: node, context: context))
        }
    }

    /// One value in the tree; a reference, since containers fill it after being handed out.
    fileprivate final class Node {
        enum Value {
            case empty
            case null
            case bool(Bool)
            case integer(Int64)
            case unsigned(UInt64)
            case double(Double)
            case float(Float)
            case string(String)
            case raw(String)
            case object([(key: String, node: Node)])
            case array([Node])
        }

        var value = Value.empty

        func write(into writer: inout JSONLineWriter) throws(Unsupported) {
            switch value {
            case .empty:
                // JSONEncoder writes an empty object for a value that encoded nothing.
                writer.bytes.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
            case .null:
                writer.appendRaw("null")
            case .bool(let flag):
                writer.appendRaw(flag ? "true" : "false")
            case .integer(let number):
                writer.appendInteger(Int(number))
            case .unsigned(let number):
                if number <= UInt64(Int.max) {
                    writer.appendInteger(Int(number))
                } else {
                    writer.appendRaw(String(number))
                }
            case .double(let number):
                guard number.isFinite else { throw Unsupported() }
                writer.appendRaw(Self.trimmed(number.description))
            case .float(let number):
                guard number.isFinite else { throw Unsupported() }
                writer.appendRaw(Self.trimmed(number.description))
            case .string(let text):
                writer.appendString(text)
            case .raw(let text):
                writer.appendRaw(text)
            case .object(let members):
                writer.bytes.append(UInt8(ascii: "{"))
                for (index, member) in Self.sortedUnique(members).enumerated() {
                    if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
                    writer.appendString(member.key)
                    writer.bytes.append(UInt8(ascii: ":"))
                    try member.node.write(into: &writer)
                }
                writer.bytes.append(UInt8(ascii: "}"))
            case .array(let elements):
                writer.bytes.append(UInt8(ascii: "["))
                for (index, element) in elements.enumerated() {
                    if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
                    try element.write(into: &writer)
                }
                writer.bytes.append(UInt8(ascii: "]"))
            }
        }

        /// `1.0` is written `1`, as JSONEncoder does.
        private static func trimmed(_ text: String) -> String {
            text.hasSuffix(".0") ? String(text.dropLast(2)) : text
        }

        /// Members sorted by the bytes of their keys (JSONEncoder's order); for a key encoded
        /// twice, the last value wins.
        private static func sortedUnique(
            _ members: [(key: String, node: Node)]
        ) -> [(key: String, node: Node)] {
            guard members.count > 1 else { return members }
            let order = members.indices.sorted { left, right in
                if members[left].key == members[right].key { return left < right }
                return members[left].key.utf8.lexicographicallyPrecedes(members[right].key.utf8)
            }
            var result: [(key: String, node: Node)] = []
            result.reserveCapacity(members.count)
            for index in order {
                if let last = result.last, last.key == members[index].key {
                    result[result.count - 1] = members[index]
                } else {
                    result.append(members[index])
                }
            }
            return result
        }
    }

    /// The `Encoder` handed to `encode(to:)`.
    private struct TreeEncoder: Encoder {
        let node: Node
        let context: Context
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            if case .object = node.value {
            } else {
                node.value = .object([])
            }
            return KeyedEncodingContainer(
                KeyedContainer<Key>(node: node, context: context, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            if case .array = node.value {
            } else {
                node.value = .array([])
            }
            return UnkeyedContainer(node: node, context: context, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleValueContainer(node: node, context: context, codingPath: codingPath)
        }
    }

    private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let context: Context
        var codingPath: [any CodingKey]

        private func add(_ key: Key, _ value: Node.Value) {
            let child = Node()
            child.value = value
            add(key, child)
        }

        private func add(_ key: Key, _ child: Node) {
            guard case .object(var members) = node.value else { return }
            node.value = .empty  // let the array be uniquely referenced while appending
            members.append((key.stringValue, child))
            node.value = .object(members)
        }

        mutating func encodeNil(forKey key: Key) throws { add(key, .null) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { add(key, .bool(value)) }
        mutating func encode(_ value: String, forKey key: Key) throws { add(key, .string(value)) }
        mutating func encode(_ value: Double, forKey key: Key) throws { add(key, .double(value)) }
        mutating func encode(_ value: Float, forKey key: Key) throws { add(key, .float(value)) }
        mutating func encode(_ value: Int, forKey key: Key) throws { add(key, .integer(Int64(value))) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { add(key, .integer(Int64(value))) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { add(key, .integer(Int64(value))) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { add(key, .integer(Int64(value))) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { add(key, .integer(value)) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { add(key, .unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { add(key, .unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { add(key, .unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { add(key, .unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { add(key, .unsigned(value)) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            let child = Node()
            try PayloadEncoder.encodeValue(value, into: child, context)
            add(key, child)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            let child = Node()
            add(key, child)
            return TreeEncoder(node: child, context: context, codingPath: codingPath + [key]).container(
                keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = Node()
            add(key, child)
            return TreeEncoder(node: child, context: context, codingPath: codingPath + [key])
                .unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { abandon() }
        mutating func superEncoder(forKey key: Key) -> any Encoder { abandon() }

        private func abandon() -> any Encoder {
            context.unsupported = true
            return TreeEncoder(node: Node(), context: context)
        }
    }

    private struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: Node
        let context: Context
        var codingPath: [any CodingKey]
        var count: Int {
            if case .array(let elements) = node.value { return elements.count }
            return 0
        }

        private func add(_ value: Node.Value) {
            let child = Node()
            child.value = value
            add(child)
        }

        private func add(_ child: Node) {
            guard case .array(var elements) = node.value else { return }
            node.value = .empty
            elements.append(child)
            node.value = .array(elements)
        }

        mutating func encodeNil() throws { add(.null) }
        mutating func encode(_ value: Bool) throws { add(.bool(value)) }
        mutating func encode(_ value: String) throws { add(.string(value)) }
        mutating func encode(_ value: Double) throws { add(.double(value)) }
        mutating func encode(_ value: Float) throws { add(.float(value)) }
        mutating func encode(_ value: Int) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: Int8) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: Int16) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: Int32) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: Int64) throws { add(.integer(value)) }
        mutating func encode(_ value: UInt) throws { add(.unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt8) throws { add(.unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt16) throws { add(.unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt32) throws { add(.unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt64) throws { add(.unsigned(value)) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            let child = Node()
            try PayloadEncoder.encodeValue(value, into: child, context)
            add(child)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            let child = Node()
            add(child)
            return TreeEncoder(node: child, context: context, codingPath: codingPath).container(
                keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = Node()
            add(child)
            return TreeEncoder(node: child, context: context, codingPath: codingPath).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            context.unsupported = true
            return TreeEncoder(node: Node(), context: context)
        }
    }

    private struct SingleValueContainer: SingleValueEncodingContainer {
        let node: Node
        let context: Context
        var codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.value = .null }
        mutating func encode(_ value: Bool) throws { node.value = .bool(value) }
        mutating func encode(_ value: String) throws { node.value = .string(value) }
        mutating func encode(_ value: Double) throws { node.value = .double(value) }
        mutating func encode(_ value: Float) throws { node.value = .float(value) }
        mutating func encode(_ value: Int) throws { node.value = .integer(Int64(value)) }
        mutating func encode(_ value: Int8) throws { node.value = .integer(Int64(value)) }
        mutating func encode(_ value: Int16) throws { node.value = .integer(Int64(value)) }
        mutating func encode(_ value: Int32) throws { node.value = .integer(Int64(value)) }
        mutating func encode(_ value: Int64) throws { node.value = .integer(value) }
        mutating func encode(_ value: UInt) throws { node.value = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt8) throws { node.value = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt16) throws { node.value = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt32) throws { node.value = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt64) throws { node.value = .unsigned(value) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try PayloadEncoder.encodeValue(value, into: node, context)
        }
    }
}
