import EventBus
import Foundation
import Simulator
import TestSupport
import Testing

@testable import BusWire

/// Shapes of `Encodable` the streaming encoder must write exactly as `JSONEncoder` does.
private enum Shapes {
    struct Flat: Encodable {
        var value = 12_345
        var lane = -3
        var sentAt = 1_712_345_678.503121
        var note = "bench"
    }

    struct Nested: Encodable {
        var zeta = Flat()
        var alpha: [Flat] = [Flat(), Flat(value: 1, lane: 2, sentAt: 0.5, note: "x")]
        var middle: [String: Flat] = ["b": Flat(), "a": Flat()]
        var optional: Flat? = nil
        var present: Flat? = Flat()
        var matrix = [[1, 2], [], [3]]
        var empty: [Int] = []
        var emptyObject: [String: Int] = [:]
    }

    /// Declared in sorted order, so the fast path copies nothing.
    struct AlreadySorted: Encodable {
        var a = 1
        var b = "two"
        var c = [3.5]
    }

    struct ManyKeys: Encodable {
        var keys = Dictionary(uniqueKeysWithValues: (0..<40).map { ("key\($0)", $0) })
    }

    indirect enum Tree: Encodable {
        case leaf(Int)
        case node(left: [Tree], label: String, right: Tree?)
        case empty
    }

    struct Unicode: Encodable {
        var é = "café ☕️ 𝄞"
        var e = "\u{0}\u{1f}\u{7f}\u{2028}"
        var Z = "upper"
        var _underscore = "/slash/"
    }

    /// Writes to its container twice under one key: the last value wins.
    struct Repeated: Encodable {
        enum Keys: CodingKey { case key, other }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(1, forKey: .key)
            try container.encode("middle", forKey: .other)
            try container.encode(2, forKey: .key)
        }
    }

    /// Asks for its keyed container twice; both add to one object.
    struct TwoContainers: Encodable {
        enum Keys: CodingKey { case b, a }
        func encode(to encoder: any Encoder) throws {
            var first = encoder.container(keyedBy: Keys.self)
            try first.encode(1, forKey: .b)
            var second = encoder.container(keyedBy: Keys.self)
            try second.encode(2, forKey: .a)
        }
    }

    /// Fills a nested container after its parent wrote another member: JSONEncoder's tree takes
    /// it, the streaming encoder gives up (and the caller falls back).
    struct LateNested: Encodable {
        enum Keys: CodingKey { case inner, after }
        enum Inner: CodingKey { case x }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var inner = container.nestedContainer(keyedBy: Inner.self, forKey: .inner)
            try container.encode(1, forKey: .after)
            try inner.encode(2, forKey: .x)
        }
    }

    /// Nested containers filled in order, as synthesized enum coding does.
    struct NestedInOrder: Encodable {
        enum Keys: CodingKey { case zz, aa }
        enum Inner: CodingKey { case y, x }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var inner = container.nestedContainer(keyedBy: Inner.self, forKey: .zz)
            try inner.encode(1, forKey: .y)
            var list = inner.nestedUnkeyedContainer(forKey: .x)
            try list.encode(true)
            var deeper = list.nestedContainer(keyedBy: Inner.self)
            try deeper.encodeNil(forKey: .y)
            try container.encode("after", forKey: .aa)
        }
    }

    struct Wrapper: Encodable {
        var inner = Flat()
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(inner)
        }
    }

    struct Numbers: Encodable {
        var int8 = Int8.min
        var int64 = Int64.min
        var uint64 = UInt64.max
        var uint = UInt.max
        var double = [
            0.1, 1.0, -0.0, 1e20, 1e-7, 123_456_789.125, Double.leastNonzeroMagnitude,
            Double.greatestFiniteMagnitude,
        ]
        var float: [Float] = [3.4e38, 0.1, 1, -2.5]
        var decimal = Decimal(string: "12.345")!
        var date = Date(timeIntervalSinceReferenceDate: 12.5)
        var data = Data([0, 1, 254, 255])
        var url = URL(string: "https://example.org/a?b=c")!
        var flags = [true, false]
        var optionals: [Int?] = [nil, 1]
    }

    struct NotANumber: Encodable { var value = Double.infinity }

    struct EscapedKey: Encodable {
        enum Keys: String, CodingKey { case quoted = "a\"b", plain = "a" }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(1, forKey: .quoted)
            try container.encode(2, forKey: .plain)
        }
    }

    /// An error its own code catches after writing part of a value.
    struct SwallowedError: Encodable {
        struct Failing: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                try container.encode(1)
                throw CancellationError()
            }
        }
        enum Keys: CodingKey { case a, b }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try? container.encode(Failing(), forKey: .a)
            try container.encode(2, forKey: .b)
        }
    }
}

@Suite("Streaming payload encoder")
struct StreamingPayloadEncoderTests {
    static func reference(_ value: any Encodable) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The fast path's text, or nil when it leaves the value to JSONEncoder.
    static func fast(_ value: any Encodable, with encoder: PayloadEncoder = PayloadEncoder()) -> String? {
        var writer = JSONLineWriter()
        writer.bytes.append(contentsOf: "prefix".utf8)
        do {
            try encoder.write(value, into: &writer)
        } catch {
            // A failure leaves the line as it was.
            return String(decoding: writer.bytes, as: UTF8.self) == "prefix" ? nil : "corrupted"
        }
        let text = String(decoding: writer.bytes, as: UTF8.self)
        return text.hasPrefix("prefix") ? String(text.dropFirst(6)) : "corrupted"
    }

    static var handled: [any Encodable] {
        [
            Shapes.Flat(), Shapes.Nested(), Shapes.AlreadySorted(), Shapes.ManyKeys(),
            Shapes.Tree.node(
                left: [.leaf(1), .empty], label: "root", right: .node(left: [], label: "r", right: nil)),
            Shapes.Unicode(), Shapes.Repeated(), Shapes.TwoContainers(), Shapes.NestedInOrder(),
            Shapes.Wrapper(),
            Shapes.Numbers(), "bare", 42, [1, 2], [String: Int](),
        ]
    }

    @Test("common shapes are written by the fast path exactly as JSONEncoder writes them")
    func matchesJSONEncoder() throws {
        let encoder = PayloadEncoder()
        // Twice through one encoder: its buffers carry nothing from one value to the next.
        for _ in 0..<2 {
            for value in Self.handled {
                let expected = try #require(Self.reference(value))
                #expect(Self.fast(value, with: encoder) == expected, "\(type(of: value))")
            }
        }
    }

    @Test("what the fast path cannot reproduce is left to JSONEncoder, and the line is untouched")
    func unsupportedShapesFallBack() {
        let encoder = PayloadEncoder()
        let values: [any Encodable] = [
            Shapes.LateNested(), Shapes.NotANumber(), Shapes.EscapedKey(), Shapes.SwallowedError(),
        ]
        for value in values {
            #expect(Self.fast(value, with: encoder) == nil, "\(type(of: value))")
            // And the encoder still works afterwards.
            #expect(Self.fast(Shapes.Flat(), with: encoder) == Self.reference(Shapes.Flat()))
        }
    }

    @Test("random trees of values encode as JSONEncoder encodes them")
    func randomTreesMatch() throws {
        var random = SplitMix64(seed: 0x5EED)
        let encoder = PayloadEncoder()
        for _ in 0..<500 {
            let value = RandomValue.make(depth: 0, &random)
            let expected = try #require(Self.reference(value))
            #expect(Self.fast(value, with: encoder) == expected)
        }
    }

    @Test("an event type's encoding writes its events without a cast, and others through one")
    func encodableEventType() throws {
        let event: any Event = Ping(number: 7, note: "n")
        let type = try #require(EncodableEventType(of: event))
        var writer = JSONLineWriter()
        try type.write(event, with: PayloadEncoder(), into: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == Self.reference(Ping(number: 7, note: "n")))
        #expect(EncodableEventType(of: Opaque(number: 1)) == nil)
    }
}

/// A JSON-like value with random shape, keys and scalars.
private indirect enum RandomValue: Encodable {
    case int(Int)
    case double(Double)
    case string(String)
    case bool(Bool)
    case null
    case array([RandomValue])
    case object([String: RandomValue])

    static let keys = ["a", "b", "B", "a10", "a9", "é", "e", "_", "zz", "", "key with space", "ü", "🙂"]
    static let strings = ["", "plain", "quote\"back\\slash", "line\nbreak\ttab", "\u{1}\u{1f}", "/", "café"]

    static func make(depth: Int, _ random: inout SplitMix64) -> RandomValue {
        let choice = Int(random.next() % (depth > 3 ? 5 : 7))
        switch choice {
        case 0: return .int(Int(bitPattern: UInt(random.next())) >> Int(random.next() % 64))
        case 1:
            let value = Double(bitPattern: random.next())
            return .double(value.isFinite ? value : Double(random.next() % 1000) / 8)
        case 2: return .string(strings[Int(random.next() % UInt64(strings.count))])
        case 3: return .bool(random.next() % 2 == 0)
        case 4: return .null
        case 5: return .array((0..<Int(random.next() % 4)).map { _ in make(depth: depth + 1, &random) })
        default:
            var object: [String: RandomValue] = [:]
            for _ in 0..<Int(random.next() % 6) {
                object[keys[Int(random.next() % UInt64(keys.count))]] = make(depth: depth + 1, &random)
            }
            return .object(object)
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let members):
            try members.encode(to: encoder)
        default:
            var container = encoder.singleValueContainer()
            switch self {
            case .int(let value): try container.encode(value)
            case .double(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .bool(let value): try container.encode(value)
            default: try container.encodeNil()
            }
        }
    }
}
