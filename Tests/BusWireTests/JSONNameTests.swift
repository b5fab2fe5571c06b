import Testing

@testable import BusWire

/// Member names are packed into integers for lookups (``JSONName``): these check that the
/// packing finds exactly the member a `String` comparison would, at every length it treats apart.
@Suite("Member names")
struct JSONNameTests {
    /// The members of `line`, parsed as a record is.
    private func members(_ line: String) throws -> JSONMembers {
        let bytes = Array(line.utf8)
        return try bytes.withUnsafeBufferPointer { buffer throws(FeedDecodingError) in
            var parser = JSONParser(buffer)
            return try parser.parseRecord()
        }
    }

    private func number(_ name: String, in members: JSONMembers) -> Int? {
        guard case .number(let number)? = JSONLineMembers.find(name, in: members) else { return nil }
        return number.integer
    }

    @Test(
        "a name of any length is found, and a name one byte off is not",
        arguments: [1, 2, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 40, 100])
    func namesOfEveryLength(length: Int) throws {
        let name = String((0..<length).map { Character(Unicode.Scalar(UInt8(97 + $0 % 26))) })
        var lastChanged = Array(name.utf8)
        lastChanged[length - 1] = UInt8(ascii: "Z")
        let other = String(decoding: lastChanged, as: UTF8.self)
        // The name last in the line and first, so that its bytes end the buffer in one case.
        for line in [#"{"\#(other)":2,"\#(name)":1}"#, #"{"\#(name)":1,"\#(other)":2}"#] {
            let found = try members(line)
            #expect(number(name, in: found) == 1, "\(line)")
            #expect(number(other, in: found) == 2, "\(line)")
            #expect(number(name + "x", in: found) == nil)
            #expect(number(String(name.dropLast()), in: found) == nil)
        }
    }

    @Test("a short name at the very end of a line's bytes is read without the bytes past it")
    func shortNameAtTheEnd() throws {
        // Fewer than eight bytes from the name's start to the end of the buffer.
        #expect(throws: FeedDecodingError.self) { try members(#"{"ab""#) }
        #expect(number("a", in: try members(#"{"a":1}"#)) == 1)
        #expect(number("", in: try members(#"{"":5}"#)) == 5)
    }

    @Test("an escaped name is the name it spells, and the last of duplicate names wins")
    func escapesAndDuplicates() throws {
        let found = try members(#"{"kind":"event","\u006bind":"call","se\"q":3,"tab\t":4}"#)
        guard case .string(let kind)? = JSONLineMembers.find(JSONName.kind, in: found) else {
            Issue.record("no kind")
            return
        }
        #expect(kind == "call")
        #expect(number("se\"q", in: found) == 3)
        #expect(number("tab\t", in: found) == 4)
    }

    @Test("names differing only past 32 bytes stay apart, and a long name is found by its own")
    func longNames() throws {
        let stem = String(repeating: "n", count: 32)
        let found = try members(#"{"\#(stem)abc":1,"\#(stem)abd":2}"#)
        #expect(number(stem + "abc", in: found) == 1)
        #expect(number(stem + "abd", in: found) == 2)
        #expect(number(stem, in: found) == nil)
    }

    @Test("a control character in a name, raw, is an error that names nothing it should not")
    func controlCharacters() {
        #expect(throws: FeedDecodingError.self) { try members("{\"ki\u{01}nd\":1}") }
        #expect(throws: FeedDecodingError.self) { try members("{\"kind\u{1F}\":1}") }
    }

    @Test("a name without its colon is named in the error, as written")
    func missingColon() {
        do {
            _ = try members(#"{"typeName" "x"}"#)
            Issue.record("parsed")
        } catch {
            #expect("\(error)".contains(#"field "typeName""#), "\(error)")
        }
    }
}
