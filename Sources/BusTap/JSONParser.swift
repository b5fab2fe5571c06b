/// A parsed JSON value, as the wire decoder needs it.
enum JSONValue {
    case null
    case bool(Bool)
    /// The number's text, converted only when a field asks for an integer or a double, so that
    /// `1e999` or a 40-digit integer is an error for that field rather than a silent rounding.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The name of the value's JSON type, for error messages.
    var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A small strict JSON parser (RFC 8259) over bytes that are already valid UTF-8.
///
/// Hand-written rather than `JSONSerialization` so that the decoder can keep the exact text of an
/// embedded payload object, and so that its limits are ours: nesting deeper than
/// ``maximumDepth`` is an error rather than deep recursion, and every step consumes input, so any
/// input ends in a value or an error in linear time.
struct JSONParser {
    /// How deeply arrays and objects may nest.
    static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// One member of the top-level object: its value and where its text lies in the input.
    struct Member {
        let value: JSONValue
        let range: Range<Int>
    }

    /// Parses input that must be exactly one JSON object, keeping where each member's value lies.
    mutating func parseTopLevelObject() throws(FeedDecodingError) -> [String: Member] {
        skipWhitespace()
        guard position < bytes.count else { throw malformed("the line is empty") }
        guard bytes[position] == UInt8(ascii: "{") else {
            throw FeedDecodingError.notAnObject
        }
        position += 1
        depth = 1
        var members: [String: Member] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                let name = try parseKey()
                skipWhitespace()
                let start = position
                let value = try parseValue()
                members[name] = Member(value: value, range: start..<position)
                skipWhitespace()
                if try endOfContainer(closing: UInt8(ascii: "}")) { break }
            }
        }
        try expectEnd()
        return members
    }

    /// Parses input that must be exactly one JSON value.
    mutating func parseDocument() throws(FeedDecodingError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        try expectEnd()
        return value
    }

    /// Whether `text` is one JSON object or array with no line breaks anywhere in it.
    static func isSingleLineContainer(_ text: String) -> Bool {
        guard let first = text.utf8.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
            return false
        }
        guard !text.utf8.contains(0x0A), !text.utf8.contains(0x0D) else { return false }
        var copy = text
        return copy.withUTF8 { buffer in
            var parser = JSONParser(buffer)
            return (try? parser.parseDocument()) != nil
        }
    }

    // MARK: - Values

    private mutating func parseValue() throws(FeedDecodingError) -> JSONValue {
        guard let byte = peek() else { throw malformed("the line ends where a value should start") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw malformed("unexpected \(describe(byte))")
        }
    }

    private mutating func parseObject() throws(FeedDecodingError) -> JSONValue {
        try enterContainer()
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                let name = try parseKey()
                skipWhitespace()
                members[name] = try parseValue()
                skipWhitespace()
                if try endOfContainer(closing: UInt8(ascii: "}")) { break }
            }
        }
        depth -= 1
        return .object(members)
    }

    private mutating func parseArray() throws(FeedDecodingError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                elements.append(try parseValue())
                skipWhitespace()
                if try endOfContainer(closing: UInt8(ascii: "]")) { break }
            }
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func enterContainer() throws(FeedDecodingError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw malformed("nesting deeper than \(Self.maximumDepth) levels")
        }
        position += 1
    }

    /// Consumes `,` (returns false) or the closing bracket (returns true).
    private mutating func endOfContainer(closing: UInt8) throws(FeedDecodingError) -> Bool {
        guard let byte = peek() else { throw malformed("the line ends inside an object or array") }
        position += 1
        if byte == UInt8(ascii: ",") { return false }
        if byte == closing { return true }
        position -= 1
        throw malformed("expected ',' or '\(Character(Unicode.Scalar(closing)))', found \(describe(byte))")
    }

    private mutating func parseKey() throws(FeedDecodingError) -> String {
        guard peek() == UInt8(ascii: "\"") else {
            if let byte = peek() { throw malformed("expected a field name, found \(describe(byte))") }
            throw malformed("the line ends where a field name should be")
        }
        let name = try parseString()
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw malformed("expected ':' after field \"\(name)\"") }
        position += 1
        return name
    }

    private mutating func parseLiteral(
        _ word: StaticString, _ value: JSONValue
    ) throws(FeedDecodingError) -> JSONValue {
        let length = word.utf8CodeUnitCount
        let matches = word.withUTF8Buffer { expected in
            position + length <= bytes.count
                && (0..<length).allSatisfy { bytes[position + $0] == expected[$0] }
        }
        guard matches else { throw malformed("unknown word (expected \(word))") }
        position += length
        return value
    }

    private mutating func parseNumber() throws(FeedDecodingError) -> JSONValue {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), isDigit(first) else { throw malformed("a number needs digits") }
        if first == UInt8(ascii: "0") {
            position += 1
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let digit = peek(), isDigit(digit) else {
                throw malformed("a number needs digits after '.'")
            }
            skipDigits()
        }
        if let byte = peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            position += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { position += 1 }
            guard let digit = peek(), isDigit(digit) else {
                throw malformed("a number needs digits in its exponent")
            }
            skipDigits()
        }
        return .number(
            String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self))
    }

    private mutating func parseString() throws(FeedDecodingError) -> String {
        position += 1  // the opening quote
        let start = position
        // Fast path: no escapes, so the text is the bytes between the quotes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(
                    decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw malformed("a control character inside a string must be escaped") }
            position += 1
        }
        var scalars = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &scalars)
            case ..<0x20:
                throw malformed("a control character inside a string must be escaped")
            default:
                scalars.append(byte)
            }
        }
        throw malformed("a string is not closed")
    }

    private mutating func parseEscape(into output: inout [UInt8]) throws(FeedDecodingError) {
        guard let byte = peek() else { throw malformed("a string is not closed") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): output.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var value = try parseHex4()
            if (0xD800..<0xDC00).contains(value) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw malformed("a \\u escape holds half a surrogate pair") }
                position += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else {
                    throw malformed("a \\u escape holds half a surrogate pair")
                }
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(value) {
                throw malformed("a \\u escape holds half a surrogate pair")
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw malformed("a \\u escape is not a character")
            }
            output.append(contentsOf: String(Character(scalar)).utf8)
        default:
            throw malformed("unknown escape \\\(Character(Unicode.Scalar(byte)))")
        }
    }

    private mutating func parseHex4() throws(FeedDecodingError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw malformed("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw malformed("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    // MARK: - Bytes

    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { position += 1 }
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            position += 1
        }
    }

    private mutating func expectEnd() throws(FeedDecodingError) {
        skipWhitespace()
        if let byte = peek() {
            throw malformed("unexpected \(describe(byte)) after the end of the JSON value")
        }
    }

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16))"
    }

    private func malformed(_ reason: String) -> FeedDecodingError {
        .malformedJSON(reason: reason, offset: position)
    }
}
