#if NATS
    // A copy of BusTap's PayloadEncoder (Sources/BusTap/PayloadEncoder.swift), kept identical so
    // that a bridged event's payload is the same text a tap sends. It is copied rather than
    // shared because BusTap keeps it internal; once it moves into BusWire as a `package` type,
    // this copy goes.
    import BusWire
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
            let root = Slot()
            let context = Context()
            do {
                try encodeValue(value, into: root, context)
            } catch {
                throw Unsupported()
            }
            guard !context.unsupported else { throw Unsupported() }
            try root.value.write(into: &writer)
        }

        /// What the whole encoding shares.
        fileprivate final class Context {
            /// Set when the value used something the fast path does not reproduce exactly.
            var unsupported = false

            /// Gives up on the fast path (super encoders are not reproduced) and returns a
            /// throwaway encoder for the caller to write into.
            func abandon() -> any Encoder {
                unsupported = true
                return TreeEncoder(slot: Slot(), context: self)
            }
        }

        /// Encodes `value` into `slot`, handling the types `JSONEncoder` treats specially. Compares
        /// metatypes rather than casting, since a cast costs more than encoding a small value.
        fileprivate static func encodeValue(
            _ value: any Encodable, into slot: Slot, _ context: Context
        ) throws {
            let type = Swift.type(of: value) as Any.Type
            if type == Data.self, let data = value as? Data {
                slot.value = .string(data.base64EncodedString())
            } else if type == URL.self, let url = value as? URL {
                slot.value = .string(url.absoluteString)
            } else if type == Decimal.self, let decimal = value as? Decimal {
                slot.value = .raw(decimal.description)
            } else {
                try value.encode(to: TreeEncoder(slot: slot, context: context))
            }
        }

        /// One value of the tree. Scalars are stored inline; containers are objects, since their
        /// containers fill them after being handed out.
        fileprivate enum Value {
            case empty
            case null
            case bool(Bool)
            case integer(Int64)
            case unsigned(UInt64)
            case double(Double)
            case float(Float)
            case string(String)
            case raw(String)
            case object(ObjectNode)
            case array(ArrayNode)

            func write(into writer: inout JSONLineWriter) throws(Unsupported) {
                switch self {
                case .empty:
                    // JSONEncoder writes an empty object for a value that encoded nothing.
                    writer.appendRaw("{}")
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
                case .object(let node):
                    try node.write(into: &writer)
                case .array(let node):
                    writer.bytes.append(UInt8(ascii: "["))
                    for (index, element) in node.elements.enumerated() {
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
        }

        /// Where a value that encodes itself will go.
        fileprivate final class Slot {
            var value = Value.empty
        }

        fileprivate final class ObjectNode {
            var members: [(key: String, value: Value)] = []

            func write(into writer: inout JSONLineWriter) throws(Unsupported) {
                sortByKey()
                writer.bytes.append(UInt8(ascii: "{"))
                var first = true
                for index in members.indices {
                    // For a key encoded twice, the last value wins; the sort keeps their order.
                    if index + 1 < members.count && members[index + 1].key == members[index].key { continue }
                    if !first { writer.bytes.append(UInt8(ascii: ",")) }
                    first = false
                    writer.appendString(members[index].key)
                    writer.bytes.append(UInt8(ascii: ":"))
                    try members[index].value.write(into: &writer)
                }
                writer.bytes.append(UInt8(ascii: "}"))
            }

            /// Sorts members by the bytes of their keys (JSONEncoder's order), stably: in place by
            /// insertion for the few fields of a typical event, which needs no allocation.
            private func sortByKey() {
                guard members.count > 1 else { return }
                guard members.count <= 16 else {
                    members = members.enumerated().sorted { left, right in
                        if left.element.key == right.element.key { return left.offset < right.offset }
                        return left.element.key.utf8.lexicographicallyPrecedes(right.element.key.utf8)
                    }.map(\.element)
                    return
                }
                for index in 1..<members.count {
                    var position = index
                    while position > 0
                        && members[position].key.utf8.lexicographicallyPrecedes(
                            members[position - 1].key.utf8)
                    {
                        members.swapAt(position, position - 1)
                        position -= 1
                    }
                }
            }
        }

        fileprivate final class ArrayNode {
            var elements: [Value] = []
        }

        /// The `Encoder` handed to `encode(to:)`.
        private struct TreeEncoder: Encoder {
            let slot: Slot
            let context: Context
            var codingPath: [any CodingKey] = []
            var userInfo: [CodingUserInfoKey: Any] { [:] }

            func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
                let node: ObjectNode
                if case .object(let existing) = slot.value {
                    node = existing
                } else {
                    node = ObjectNode()
                    slot.value = .object(node)
                }
                return KeyedEncodingContainer(
                    KeyedContainer<Key>(node: node, context: context, codingPath: codingPath))
            }

            func unkeyedContainer() -> any UnkeyedEncodingContainer {
                let node: ArrayNode
                if case .array(let existing) = slot.value {
                    node = existing
                } else {
                    node = ArrayNode()
                    slot.value = .array(node)
                }
                return UnkeyedContainer(node: node, context: context, codingPath: codingPath)
            }

            func singleValueContainer() -> any SingleValueEncodingContainer {
                SingleValueContainer(slot: slot, context: context, codingPath: codingPath)
            }
        }

        private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
            let node: ObjectNode
            let context: Context
            var codingPath: [any CodingKey]

            private func add(_ key: Key, _ value: Value) {
                node.members.append((key.stringValue, value))
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
            mutating func encode(_ value: UInt8, forKey key: Key) throws {
                add(key, .unsigned(UInt64(value)))
            }
            mutating func encode(_ value: UInt16, forKey key: Key) throws {
                add(key, .unsigned(UInt64(value)))
            }
            mutating func encode(_ value: UInt32, forKey key: Key) throws {
                add(key, .unsigned(UInt64(value)))
            }
            mutating func encode(_ value: UInt64, forKey key: Key) throws { add(key, .unsigned(value)) }

            mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
                let slot = Slot()
                try PayloadEncoder.encodeValue(value, into: slot, context)
                add(key, slot.value)
            }

            mutating func nestedContainer<NestedKey: CodingKey>(
                keyedBy keyType: NestedKey.Type, forKey key: Key
            ) -> KeyedEncodingContainer<NestedKey> {
                let child = ObjectNode()
                add(key, .object(child))
                return KeyedEncodingContainer(
                    KeyedContainer<NestedKey>(node: child, context: context, codingPath: codingPath + [key]))
            }

            mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
                let child = ArrayNode()
                add(key, .array(child))
                return UnkeyedContainer(node: child, context: context, codingPath: codingPath + [key])
            }

            mutating func superEncoder() -> any Encoder { context.abandon() }
            mutating func superEncoder(forKey key: Key) -> any Encoder { context.abandon() }
        }

        private struct UnkeyedContainer: UnkeyedEncodingContainer {
            let node: ArrayNode
            let context: Context
            var codingPath: [any CodingKey]
            var count: Int { node.elements.count }

            private func add(_ value: Value) {
                node.elements.append(value)
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
                let slot = Slot()
                try PayloadEncoder.encodeValue(value, into: slot, context)
                add(slot.value)
            }

            mutating func nestedContainer<NestedKey: CodingKey>(
                keyedBy keyType: NestedKey.Type
            ) -> KeyedEncodingContainer<NestedKey> {
                let child = ObjectNode()
                add(.object(child))
                return KeyedEncodingContainer(
                    KeyedContainer<NestedKey>(node: child, context: context, codingPath: codingPath))
            }

            mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
                let child = ArrayNode()
                add(.array(child))
                return UnkeyedContainer(node: child, context: context, codingPath: codingPath)
            }

            mutating func superEncoder() -> any Encoder { context.abandon() }
        }

        private struct SingleValueContainer: SingleValueEncodingContainer {
            let slot: Slot
            let context: Context
            var codingPath: [any CodingKey]

            mutating func encodeNil() throws { slot.value = .null }
            mutating func encode(_ value: Bool) throws { slot.value = .bool(value) }
            mutating func encode(_ value: String) throws { slot.value = .string(value) }
            mutating func encode(_ value: Double) throws { slot.value = .double(value) }
            mutating func encode(_ value: Float) throws { slot.value = .float(value) }
            mutating func encode(_ value: Int) throws { slot.value = .integer(Int64(value)) }
            mutating func encode(_ value: Int8) throws { slot.value = .integer(Int64(value)) }
            mutating func encode(_ value: Int16) throws { slot.value = .integer(Int64(value)) }
            mutating func encode(_ value: Int32) throws { slot.value = .integer(Int64(value)) }
            mutating func encode(_ value: Int64) throws { slot.value = .integer(value) }
            mutating func encode(_ value: UInt) throws { slot.value = .unsigned(UInt64(value)) }
            mutating func encode(_ value: UInt8) throws { slot.value = .unsigned(UInt64(value)) }
            mutating func encode(_ value: UInt16) throws { slot.value = .unsigned(UInt64(value)) }
            mutating func encode(_ value: UInt32) throws { slot.value = .unsigned(UInt64(value)) }
            mutating func encode(_ value: UInt64) throws { slot.value = .unsigned(value) }

            mutating func encode<T: Encodable>(_ value: T) throws {
                try PayloadEncoder.encodeValue(value, into: slot, context)
            }
        }
    }
#endif
