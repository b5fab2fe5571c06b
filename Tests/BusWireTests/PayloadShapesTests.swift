import EventBus
import Foundation
import TestSupport
import Testing

@testable import BusTap
@testable import BusWire

/// Events with every shape of `Encodable` a payload may have.
enum PayloadSamples {
    struct Everything: Event, Encodable {
        var int = -42
        var int8 = Int8.min
        var int16: Int16 = 300
        var int32 = Int32.max
        var int64 = Int64.min
        var uint = UInt.max
        var uint8: UInt8 = 255
        var uint16: UInt16 = 7
        var uint32: UInt32 = 8
        var uint64 = UInt64.max
        var double = 0.1
        var whole = 1.0
        var huge = 1e20
        var tiny = 1e-7
        var negativeZero = -0.0
        var float: Float = 3.4e38
        var bool = true
        var text = "q\"b\\s/\u{1}\u{1f}\n\t\r\u{8}\u{c}\u{7f}é\u{2028}😀"
        var missing: Int? = nil
        var present: String? = "here"
        var list = [1, 2, 3]
        var optionals: [Int?] = [1, nil, 3]
        var nested = Nested(name: "inner", values: [0.5])
        var keyed = ["b": 1, "B": 2, "a10": 3, "a9": 4, "é": 5, "e": 6, "_": 7]
        var numberKeys = [2: "two", 10: "ten"]
        var data = Data([1, 2, 3, 255])
        var url = URL(string: "https://example.org/a?b=c")!
        var date = Date(timeIntervalSinceReferenceDate: 12.5)
        var decimal = Decimal(string: "12.345")!
        var kind = Kind.big
        var shape = Shape.circle(radius: 2)
        var empty = Empty()
    }

    struct Nested: Encodable {
        let name: String
        let values: [Double]
    }

    enum Kind: String, Encodable { case big }
    enum Shape: Encodable { case circle(radius: Double) }
    struct Empty: Encodable {}

    class Base: Encodable {
        var base = 1
    }

    /// Encodes through `superEncoder()`, which the fast path leaves to JSONEncoder.
    final class Derived: Base, Event, @unchecked Sendable {
        var own = 2
        enum Keys: CodingKey { case own }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(own, forKey: .own)
            try super.encode(to: container.superEncoder())
        }
    }

    struct NotANumber: Event, Encodable { let value = Double.nan }
    struct BareValue: Event, Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode("just a string")
        }
    }
    struct RepeatedKey: Event, Encodable {
        enum Keys: CodingKey { case key }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(1, forKey: .key)
            try container.encode(2, forKey: .key)
        }
    }
}

extension PayloadSamples.Everything: @unchecked Sendable {}

@Suite("Payload encoder")
struct PayloadEncoderTests {
    static let events: [any Event] = [
        PayloadSamples.Everything(), PayloadSamples.Derived(), PayloadSamples.NotANumber(),
        PayloadSamples.BareValue(), PayloadSamples.RepeatedKey(), Ping(number: 1, note: "n"),
        Opaque(number: 3),
    ]

    @Test("the tap writes exactly what PayloadFormatter shows, for every shape of payload")
    func matchesPayloadFormatter() throws {
        let formatter = PayloadFormatter()
        for event in Self.events {
            // Twice: the second time, types the fast path gave up on take the slow path.
            for _ in 0..<2 {
                var writer = JSONLineWriter()
                formatter.writePayload(of: event, into: &writer)
                let json = String(decoding: writer.bytes, as: UTF8.self)
                let decoded = try #require(
                    try? FeedRecord.decode(
                        line: #"{"kind":"event","seq":1,"time":1,"typeName":"T","receivers":0,"payload":"#
                            + json + "}"))
                guard case .event(let record) = decoded else { return }
                #expect(record.payload.text == PayloadFormatter.format(event), "\(type(of: event))")
                #expect(record.payload == FeedPayload(formatted: PayloadFormatter.format(event)))
            }
        }
    }

    @Test("the fast path handles the common shapes itself")
    func fastPathCoversCommonShapes() throws {
        var writer = JSONLineWriter()
        try PayloadEncoder.write(PayloadSamples.Everything(), into: &writer)
        try PayloadEncoder.write(Ping(number: 1, note: "n"), into: &writer)
        #expect(throws: PayloadEncoder.Unsupported.self) {
            var other = JSONLineWriter()
            try PayloadEncoder.write(PayloadSamples.Derived(), into: &other)
        }
    }
}
