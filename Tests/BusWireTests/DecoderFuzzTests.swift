import BusMonitor
import EventBus
import Simulator
import TestSupport
import Testing

@testable import BusMonitor
@testable import BusTap
@testable import BusWire

@Suite("Decoder fuzzing")
struct DecoderFuzzTests {
    /// Bytes a mutation likes to insert: JSON's own punctuation, escapes, and bytes that break UTF-8.
    static let interesting: [UInt8] =
        Array(#"{}[]":,\-+.eE0123456789tfnul "#.utf8) + [
            0x00, 0x0A, 0x0D, 0x1F, 0x7F, 0x80, 0xC3, 0xE2, 0xF0, 0xFF,
        ]

    static let seeds: [[UInt8]] =
        WireFormatTests.samples.map { Array($0.encodeLine().utf8) } + [
            Array(
                #"{"kind":"event","seq":1,"time":1e308,"typeName":"\u00e9\ud834\udd1e","receivers":0,"payload":[{"a":[null,true,false,-0.5e-3]}]}"#
                    .utf8)
        ]

    /// Decodes `bytes`, which must give a record or a thrown error. A record must encode to a
    /// line that decodes and encodes to the same line again (times are written to the
    /// microsecond, so the first encoding may round).
    static func check(_ bytes: [UInt8]) -> Bool {
        do {
            let line = try FeedRecord.decode(line: bytes).encodeLine()
            return (try? FeedRecord.decode(line: line))?.encodeLine() == line
        } catch {
            return !error.description.isEmpty
        }
    }

    @Test("100,000 mutated and random lines decode to a value or an error, never a crash")
    func fuzz() {
        var random = SplitMix64(seed: 0x5EED_B05)
        var failures: [[UInt8]] = []
        var decoded = 0
        for round in 0..<100_000 {
            var bytes: [UInt8]
            if round % 5 == 0 {
                // Pure noise, mostly drawn from JSON's alphabet so the parser gets deep into it.
                let length = Int.random(in: 0..<200, using: &random)
                bytes = (0..<length).map { _ in
                    Bool.random(using: &random)
                        ? Self.interesting.randomElement(using: &random)!
                        : UInt8.random(in: 0...255, using: &random)
                }
            } else {
                bytes = Self.seeds.randomElement(using: &random)!
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    mutate(&bytes, using: &random)
                }
            }
            if (try? FeedRecord.decode(line: bytes)) != nil { decoded += 1 }
            if !Self.check(bytes) { failures.append(bytes) }
        }
        #expect(failures.isEmpty, "re-encoding changed \(failures.count) records")
        // Some mutations (a changed digit, a changed letter in a string) still decode: proof
        // that the mutations are close enough to valid lines to exercise the field checks.
        #expect(decoded > 1_000)
    }

    private func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) {
        let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<7, using: &random) {
        case 0 where !bytes.isEmpty:
            bytes[position] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
        case 1:
            bytes.insert(Self.interesting.randomElement(using: &random)!, at: position)
        case 2 where !bytes.isEmpty:
            bytes.remove(at: position)
        case 3:
            bytes.removeSubrange(position...)
        case 4 where !bytes.isEmpty:
            // Duplicate a run, which makes repeated keys, longer numbers and nested brackets.
            let end = min(bytes.count, position + Int.random(in: 1...16, using: &random))
            bytes.insert(contentsOf: bytes[position..<end], at: position)
        case 5 where !bytes.isEmpty:
            bytes[position] = Self.interesting.randomElement(using: &random)!
        default:
            // Replace a digit run by a huge number.
            bytes.insert(contentsOf: Array(String(repeating: "9", count: 400).utf8), at: position)
        }
    }

    @Test("hostile shapes: huge numbers, long strings, deep nesting, endless escapes")
    func hostileShapes() {
        let hostile: [String] = [
            #"{"kind":"dropped","time":1,"events":"# + String(repeating: "9", count: 100_000) + "}",
            #"{"kind":"dropped","time":"# + String(repeating: "9", count: 100_000) + #".5,"events":1}"#,
            #"{"kind":"dropped","time":1,"events":1"# + String(repeating: #","x":[]"#, count: 50_000) + "}",
            #"{"kind":""# + String(repeating: #"\u00e9"#, count: 100_000) + #""}"#,
            String(repeating: "{\"a\":", count: 10_000),
            String(repeating: "[", count: 1_000_000),
            "{" + String(repeating: " ", count: 900_000) + "}",
            #"{"kind":"event","seq":1,"time":-0,"typeName":"","receivers":0,"payload":"\"}"#,
        ]
        for line in hostile {
            #expect(Self.check(Array(line.utf8)), "\(line.prefix(60))")
        }
    }
}
