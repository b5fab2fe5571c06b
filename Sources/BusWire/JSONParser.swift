/// The bytes the parser looks for, as constants: in a debug build `UInt8(ascii:)` is a call,
/// and a `switch` over such cases calls it for each case it tries, for every byte of a line.
private enum ASCII {
    static let quote: UInt8 = 0x22  // "
    static let plus: UInt8 = 0x2B  // +
    static let comma: UInt8 = 0x2C  // ,
    static let minus: UInt8 = 0x2D  // -
    static let dot: UInt8 = 0x2E  // .
    static let slash: UInt8 = 0x2F  // /
    static let zero: UInt8 = 0x30  // 0
    static let nine: UInt8 = 0x39  // 9
    static let colon: UInt8 = 0x3A  // :
    static let upperA: UInt8 = 0x41  // A
    static let upperE: UInt8 = 0x45  // E
    static let upperF: UInt8 = 0x46  // F
    static let openBracket: UInt8 = 0x5B  // [
    static let backslash: UInt8 = 0x5C  // \
    static let closeBracket: UInt8 = 0x5D  // ]
    static let lowerA: UInt8 = 0x61  // a
    static let lowerB: UInt8 = 0x62  // b
    static let lowerE: UInt8 = 0x65  // e
    static let lowerF: UInt8 = 0x66  // f
    static let lowerN: UInt8 = 0x6E  // n
    static let lowerR: UInt8 = 0x72  // r
    static let lowerT: UInt8 = 0x74  // t
    static let lowerU: UInt8 = 0x75  // u
    static let openBrace: UInt8 = 0x7B  // {
    static let closeBrace: UInt8 = 0x7D  // }
}

/// A number as the parser read it: both forms, so that each field can say what it wants.
struct JSONNumber {
    /// The value, when written as a whole number (no fraction or exponent) that fits in `Int`.
    let integer: Int?
    /// Whether it was written as a whole number, however large.
    let isWhole: Bool
    /// The value as a double; infinite when it is out of range.
    let double: Double
    /// Where its text lies in the input, for error messages.
    let range: Range<Int>
}

/// A parsed JSON value, as the wire decoder needs it.
enum JSONValue {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    /// Members in the order written; lookups take the last of duplicate names.
    case object(JSONMembers)
    /// An object or array whose text was checked but not built, found at `range` in the input.
    case unparsed(isObject: Bool, range: Range<Int>)
    /// A value that was checked and skipped without being built.
    case skipped

    /// The name of the value's JSON type, for error messages.
    var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        case .unparsed(let isObject, _): return isObject ? "an object" : "an array"
        case .skipped: return "a value"
        }
    }
}

/// A small strict JSON parser (RFC 8259) over bytes that are already valid UTF-8.
///
/// Hand-written rather than `JSONSerialization` for three reasons: the decoder keeps the exact
/// text of an embedded payload object; it checks nested objects without building them, which
/// keeps decoding a line cheap; and its limits are ours: nesting deeper than ``maximumDepth`` is
/// an error rather than deep recursion, and every step consumes input, so any input ends in a
/// value or an error in linear time.
struct JSONParser {
    /// How deeply arrays and objects may nest, in a value, or below a record.
    static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0
    /// Whether ``parseRecord(buildingContainersFor:)`` built a member that is an object or an
    /// array, rather than leaving it unparsed.
    private(set) var builtContainers = false

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses input that must be exactly one JSON object. Scalar members are built; nested
    /// objects and arrays are checked and returned as ``JSONValue/unparsed(isObject:range:)``,
    /// unless a `kind` member before them names `builtKind`: then they are built at once, rather
    /// than checked now and parsed again by the reader that needs them all (a snapshot's rows).
    mutating func parseRecord(
        buildingContainersFor builtKind: String? = nil
    ) throws(FeedDecodingError) -> JSONMembers {
        skipWhitespace()
        guard position < bytes.count else { throw malformed("the line is empty") }
        guard bytes[position] == ASCII.openBrace else { throw .notAnObject }
        position += 1
        // The record's own braces are not counted: its members may nest as deeply as a value
        // parsed alone, so that a payload the tap sends as JSON (``isSingleLineContainer(_:)``
        // checked it alone) is never too deep once it is a record's member.
        depth = 0
        var members: JSONMembers = []
        // Room for a fleet's event with its trace, so that a line's members are one allocation.
        members.reserveCapacity(16)
        var buildsContainers = false
        skipWhitespace()
        if peekIs(ASCII.closeBrace) {
            position += 1
        } else {
            while true {
                skipWhitespace()
                let name = try parseKey()
                skipWhitespace()
                let start = position
                let isContainer = peekIs(ASCII.openBrace) || peekIs(ASCII.openBracket)
                let value = try parseValue(build: !isContainer || buildsContainers)
                if let builtKind, name == JSONName.kind, case .string(let kind) = value {
                    buildsContainers = kind == builtKind
                }
                if isContainer && buildsContainers { builtContainers = true }
                if isContainer && !buildsContainers {
                    members.append(
                        (
                            name,
                            .unparsed(isObject: bytes[start] == ASCII.openBrace, range: start..<position)
                        ))
                } else {
                    members.append((name, value))
                }
                skipWhitespace()
                if try endOfContainer(closing: ASCII.closeBrace) { break }
            }
        }
        try expectEnd()
        return members
    }

    /// Builds the value whose text starts at `start`, such as a member ``parseRecord(buildingContainersFor:)`` left
    /// unparsed; number ranges in it then point into the whole input.
    mutating func parseValue(at start: Int) throws(FeedDecodingError) -> JSONValue {
        position = start
        depth = 0
        return try parseValue(build: true)
    }

    /// Whether `text` is one JSON object or array with no line breaks anywhere in it.
    static func isSingleLineContainer(_ text: String) -> Bool {
        guard let first = text.utf8.first, first == ASCII.openBrace || first == ASCII.openBracket else {
            return false
        }
        guard !text.utf8.contains(0x0A), !text.utf8.contains(0x0D) else { return false }
        var copy = text
        return copy.withUTF8 { buffer in
            var parser = JSONParser(buffer)
            parser.skipWhitespace()
            guard (try? parser.parseValue(build: false)) != nil else { return false }
            return (try? parser.expectEnd()) != nil
        }
    }

    // MARK: - Values

    private mutating func parseValue(build: Bool) throws(FeedDecodingError) -> JSONValue {
        guard let byte = peek() else { throw malformed("the line ends where a value should start") }
        // Compared with `==`, not matched by `switch`, whose cases a debug build tries through
        // the generic `~=`, one call each.
        if byte == ASCII.quote {
            if build { return .string(try parseString()) }
            try skipString()
            return .skipped
        }
        if byte == ASCII.minus || isDigit(byte) { return try parseNumber(build: build) }
        if byte == ASCII.openBrace { return try parseObject(build: build) }
        if byte == ASCII.openBracket { return try parseArray(build: build) }
        if byte == ASCII.lowerT { return try parseLiteral("true", .bool(true)) }
        if byte == ASCII.lowerF { return try parseLiteral("false", .bool(false)) }
        if byte == ASCII.lowerN { return try parseLiteral("null", .null) }
        throw malformed("unexpected \(describe(byte))")
    }

    private mutating func parseObject(build: Bool) throws(FeedDecodingError) -> JSONValue {
        try enterContainer()
        var members: JSONMembers = []
        skipWhitespace()
        if peekIs(ASCII.closeBrace) {
            position += 1
        } else {
            while true {
                skipWhitespace()
                if build {
                    let name = try parseKey()
                    skipWhitespace()
                    members.append((name, try parseValue(build: true)))
                } else {
                    try skipKey()
                    skipWhitespace()
                    _ = try parseValue(build: false)
                }
                skipWhitespace()
                if try endOfContainer(closing: ASCII.closeBrace) { break }
            }
        }
        depth -= 1
        return build ? .object(members) : .skipped
    }

    private mutating func parseArray(build: Bool) throws(FeedDecodingError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhitespace()
        if peekIs(ASCII.closeBracket) {
            position += 1
        } else {
            while true {
                skipWhitespace()
                let element = try parseValue(build: build)
                if build { elements.append(element) }
                skipWhitespace()
                if try endOfContainer(closing: ASCII.closeBracket) { break }
            }
        }
        depth -= 1
        return build ? .array(elements) : .skipped
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
        if byte == ASCII.comma { return false }
        if byte == closing { return true }
        position -= 1
        throw malformed("expected ',' or '\(Character(Unicode.Scalar(closing)))', found \(describe(byte))")
    }

    private mutating func parseKey() throws(FeedDecodingError) -> JSONName {
        try expectKeyQuote()
        let start = position + 1
        var end = start
        // Names are short and plain: packed straight from the bytes between the quotes, with
        // no `String` made. A name with an escape is read as any string is, then packed.
        if let base = bytes.baseAddress {
            // Eight bytes at a time up to the first that ends a plain name.
            let raw = UnsafeRawPointer(base)
            while end + 8 <= bytes.count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: end, as: UInt64.self))
                let stops = Self.nameStops(in: word)
                if stops != 0 {
                    end += stops.trailingZeroBitCount >> 3
                    break
                }
                end += 8
            }
        }
        while end < bytes.count, bytes[end] != ASCII.quote, bytes[end] != ASCII.backslash, bytes[end] >= 0x20
        {
            end += 1
        }
        let name: JSONName
        if end < bytes.count, bytes[end] == ASCII.quote {
            name = JSONName(in: bytes, from: start, to: end)
            position = end + 1
        } else {
            name = JSONName(try parseString())
        }
        skipWhitespace()
        guard peekIs(ASCII.colon) else { throw missingColon(after: name) }
        position += 1
        return name
    }

    /// The bytes of `word` (eight bytes of a line, the first in the lowest byte) that end a
    /// plain name: a quote, a backslash or a control character, each marked by its top bit.
    /// Only the lowest mark is sure (a borrow may mark a byte above it), and it is the one used.
    private static func nameStops(in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let tops: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(ASCII.quote))
        let backslashes = word ^ (ones &* UInt64(ASCII.backslash))
        let quoteMarks = (quotes &- ones) & ~quotes
        let backslashMarks = (backslashes &- ones) & ~backslashes
        let controlMarks = (word &- ones &* 0x20) & ~word
        return (quoteMarks | backslashMarks | controlMarks) & tops
    }

    private mutating func skipKey() throws(FeedDecodingError) {
        try expectKeyQuote()
        try skipString()
        try expectColon(after: nil)
    }

    private func expectKeyQuote() throws(FeedDecodingError) {
        guard peekIs(ASCII.quote) else {
            if let byte = peek() { throw malformed("expected a field name, found \(describe(byte))") }
            throw malformed("the line ends where a field name should be")
        }
    }

    private mutating func expectColon(after name: JSONName?) throws(FeedDecodingError) {
        skipWhitespace()
        guard peekIs(ASCII.colon) else { throw missingColon(after: name) }
        position += 1
    }

    /// Out of line, so that reading a name copies it nowhere while all is well.
    @inline(never)
    private func missingColon(after name: JSONName?) -> FeedDecodingError {
        malformed("expected ':' after " + (name.map { "field \"\($0.text)\"" } ?? "a field name"))
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

    // MARK: - Numbers

    /// Powers of ten that doubles hold exactly, for the exact fast path of number conversion.
    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    private mutating func parseNumber(build: Bool) throws(FeedDecodingError) -> JSONValue {
        let start = position
        let negative = peekIs(ASCII.minus)
        if negative { position += 1 }
        guard let first = peek(), isDigit(first) else { throw malformed("a number needs digits") }
        var mantissa: UInt64 = 0
        var mantissaOverflowed = false
        var decimalExponent = 0
        // Digits are added in place, not by a nested function: a debug build boxes what such a
        // function captures, and numbers are most of a line's bytes.
        let mantissaLimit = UInt64.max / 10
        if first == ASCII.zero {
            position += 1
        } else {
            while position < bytes.count, bytes[position] &- ASCII.zero < 10 {
                let digit = UInt64(bytes[position] &- ASCII.zero)
                if !mantissaOverflowed, mantissa < mantissaLimit || (mantissa == mantissaLimit && digit <= 5)
                {
                    mantissa = mantissa &* 10 &+ digit
                } else {
                    mantissaOverflowed = true
                    decimalExponent += 1
                }
                position += 1
            }
        }
        var isWhole = true
        if peekIs(ASCII.dot) {
            isWhole = false
            position += 1
            guard let digit = peek(), isDigit(digit) else {
                throw malformed("a number needs digits after '.'")
            }
            while position < bytes.count, bytes[position] &- ASCII.zero < 10 {
                let digit = UInt64(bytes[position] &- ASCII.zero)
                if !mantissaOverflowed {
                    if mantissa < mantissaLimit || (mantissa == mantissaLimit && digit <= 5) {
                        mantissa = mantissa &* 10 &+ digit
                        decimalExponent -= 1
                    } else {
                        mantissaOverflowed = true
                    }
                }
                position += 1
            }
        }
        if let byte = peek(), byte == ASCII.lowerE || byte == ASCII.upperE {
            isWhole = false
            position += 1
            var exponentNegative = false
            if let sign = peek(), sign == ASCII.plus || sign == ASCII.minus {
                exponentNegative = sign == ASCII.minus
                position += 1
            }
            guard let digit = peek(), isDigit(digit) else {
                throw malformed("a number needs digits in its exponent")
            }
            var exponent = 0
            while let byte = peek(), isDigit(byte) {
                exponent = min(exponent * 10 + Int(byte - ASCII.zero), 1_000_000)
                position += 1
            }
            decimalExponent += exponentNegative ? -exponent : exponent
        }
        guard build else { return .skipped }

        var integer: Int?
        if isWhole && !mantissaOverflowed {
            if negative {
                integer = mantissa <= UInt64(Int.max) + 1 ? Int(truncatingIfNeeded: 0 &- mantissa) : nil
            } else {
                integer = mantissa <= UInt64(Int.max) ? Int(mantissa) : nil
            }
        }
        let double: Double
        if !mantissaOverflowed, mantissa <= 1 << 53, abs(decimalExponent) <= 22 {
            // Both the mantissa and the power of ten are exact doubles, so one IEEE operation
            // rounds correctly.
            let power = Self.exactPowersOfTen[abs(decimalExponent)]
            let magnitude = decimalExponent < 0 ? Double(mantissa) / power : Double(mantissa) * power
            double = negative ? -magnitude : magnitude
        } else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            double = Double(text) ?? .infinity
        }
        return .number(
            JSONNumber(integer: integer, isWhole: isWhole, double: double, range: start..<position))
    }

    // MARK: - Strings

    private mutating func parseString() throws(FeedDecodingError) -> String {
        let text = try parseWholeString()
        guard text.utf8.count > Self.maximumStringLength else { return text }
        return FeedPayload.truncated(text, limit: Self.maximumStringLength)
    }

    /// Bytes of a string value a reader keeps, ending in `…` when cut: a name, a reason or an
    /// app's label is far shorter, and a monitor holds thousands of records at once (its log, the
    /// batches between frames, a graph's arrows), so a stranger's megabyte-long type names would
    /// otherwise decide its memory. As long as a payload's cut (``FeedPayload/maximumReadLength``).
    package static let maximumStringLength = FeedPayload.maximumReadLength

    private mutating func parseWholeString() throws(FeedDecodingError) -> String {
        position += 1  // the opening quote
        let start = position
        // Fast path: no escapes, so the text is the bytes between the quotes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == ASCII.quote {
                let text = String(
                    decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            }
            if byte == ASCII.backslash { break }
            if byte < 0x20 { throw malformed("a control character inside a string must be escaped") }
            position += 1
        }
        var output = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case ASCII.quote:
                return String(decoding: output, as: UTF8.self)
            case ASCII.backslash:
                try parseEscape(into: &output)
            case ..<0x20:
                throw malformed("a control character inside a string must be escaped")
            default:
                output.append(byte)
            }
        }
        throw malformed("a string is not closed")
    }

    /// Checks a string without building it.
    private mutating func skipString() throws(FeedDecodingError) {
        position += 1
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == ASCII.quote { return }
            if byte == ASCII.backslash {
                _ = try escapedScalar()
            } else if byte < 0x20 {
                throw malformed("a control character inside a string must be escaped")
            }
        }
        throw malformed("a string is not closed")
    }

    private mutating func parseEscape(into output: inout [UInt8]) throws(FeedDecodingError) {
        let scalar = try escapedScalar()
        if scalar.isASCII {
            output.append(UInt8(scalar.value))
        } else {
            output.append(contentsOf: String(Character(scalar)).utf8)
        }
    }

    /// Reads the rest of an escape after its backslash.
    private mutating func escapedScalar() throws(FeedDecodingError) -> Unicode.Scalar {
        guard let byte = peek() else { throw malformed("a string is not closed") }
        position += 1
        switch byte {
        case ASCII.quote, ASCII.backslash, ASCII.slash: return Unicode.Scalar(byte)
        case ASCII.lowerB: return "\u{08}"
        case ASCII.lowerF: return "\u{0C}"
        case ASCII.lowerN: return "\n"
        case ASCII.lowerR: return "\r"
        case ASCII.lowerT: return "\t"
        case ASCII.lowerU:
            var value = try parseHex4()
            if (0xD800..<0xDC00).contains(value) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard position + 1 < bytes.count, bytes[position] == ASCII.backslash,
                    bytes[position + 1] == ASCII.lowerU
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
            return scalar
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
            case ASCII.zero...ASCII.nine: digit = byte - ASCII.zero
            case ASCII.lowerA...ASCII.lowerF: digit = byte - ASCII.lowerA + 10
            case ASCII.upperA...ASCII.upperF: digit = byte - ASCII.upperA + 10
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

    /// Whether the next byte is `byte`: compared as it is, not as an optional, whose `==` a
    /// debug build makes through the generic witnesses.
    private func peekIs(_ byte: UInt8) -> Bool {
        position < bytes.count && bytes[position] == byte
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= ASCII.zero && byte <= ASCII.nine
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

/// The members of a line that must be one JSON object, looked up by name: for the short lines
/// of a connection's handshake and requests, where a missing or mistyped member means the line
/// is not what was expected rather than an error to explain.
package struct JSONLineMembers {
    /// The members in the order they came.
    let members: JSONMembers

    /// Parses `line` (without its `\n`); `nil` when it is not one JSON object.
    ///
    /// - Parameter kind: Builds the arrays and objects inside the line when its `kind` member,
    ///   written before them, is this; they are checked and left unbuilt otherwise.
    package init?(_ line: ArraySlice<UInt8>, buildingContainersFor kind: String? = nil) {
        let text = Array(line)
        let members = try? text.withUnsafeBufferPointer { buffer throws(FeedDecodingError) in
            var parser = JSONParser(buffer)
            return try parser.parseRecord(buildingContainersFor: kind)
        }
        guard let members else { return nil }
        self.members = members
    }

    private init(members: JSONMembers) {
        self.members = members
    }

    /// The member `name`'s value when it is a finite number.
    package func double(_ name: String) -> Double? {
        guard case .number(let number)? = Self.find(name, in: members), number.double.isFinite else {
            return nil
        }
        return number.double
    }

    /// The member `name`'s value when it is an array of objects (built: see
    /// ``init(_:buildingContainersFor:)``), each looked up as a line's members are; `nil` when
    /// it is anything else, or holds anything but objects.
    package func objects(_ name: String) -> [JSONLineMembers]? {
        guard case .array(let values)? = Self.find(name, in: members) else { return nil }
        var objects: [JSONLineMembers] = []
        objects.reserveCapacity(values.count)
        for value in values {
            guard case .object(let members) = value else { return nil }
            objects.append(JSONLineMembers(members: members))
        }
        return objects
    }

    /// The member `name`'s value when it is a string.
    package func string(_ name: String) -> String? {
        guard case .string(let value)? = Self.find(name, in: members) else { return nil }
        return value
    }

    /// The member `name`'s value when it is a whole number that fits an `Int`.
    package func integer(_ name: String) -> Int? {
        guard case .number(let number)? = Self.find(name, in: members) else { return nil }
        return number.integer
    }

    /// The member `name`'s value when it is `true` or `false`.
    package func bool(_ name: String) -> Bool? {
        guard case .bool(let value)? = Self.find(name, in: members) else { return nil }
        return value
    }

    /// The value of the member `name` of `members`; the last of duplicate names wins, as in most
    /// JSON readers. A loop over indices rather than `last(where:)`: every field of every line
    /// is looked up here, and a closure call per member is most of a debug build's decoding.
    static func find(_ name: String, in members: JSONMembers) -> JSONValue? {
        find(JSONName(name), in: members)
    }

    /// The value of the member `name` of `members`, the last of duplicate names.
    static func find(_ name: JSONName, in members: JSONMembers) -> JSONValue? {
        members.withUnsafeBufferPointer { members in
            var index = members.count
            while index > 0 {
                index -= 1
                if members[index].key == name { return members[index].value }
            }
            return nil
        }
    }
}

/// An object's members in the order written, each name packed for comparing.
typealias JSONMembers = [(key: JSONName, value: JSONValue)]

/// A member's name as the decoder compares it: its UTF-8 bytes packed into integers, so that
/// finding a field among a line's members compares integers, not strings. Every field of every
/// line is found by a walk over the line's members, and comparing two `String`s that differ is
/// a call into the standard library each time.
///
/// Names of up to 32 bytes, which every name the wire format uses is, are held whole, so their
/// comparison is exact. Past 32 bytes the rest is held as a 64-bit hash: a longer name a
/// newer writer sends is never one this reader looks up, whatever its hash.
struct JSONName: Equatable {
    /// Bytes 0 to 31 in four words, the first byte of each in its lowest byte; zero past the end.
    private let first: UInt64
    private let second: UInt64
    private let third: UInt64
    private let fourth: UInt64
    /// The length in bytes.
    private let length: Int
    /// FNV-1a of the bytes past the 32nd; 0 for shorter names.
    private let rest: UInt64

    /// The `kind` member's name, which every record has.
    static let kind = JSONName("kind")

    /// Packs `bytes`, the UTF-8 of a name without escapes.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        let count = bytes.count
        guard count >= 8, let base = bytes.baseAddress else {
            var word: UInt64 = 0
            for index in 0..<count { word |= UInt64(bytes[index]) &<< (8 &* UInt64(index)) }
            self.init(words: (word, 0, 0, 0), length: count, rest: 0)
            return
        }
        // Whole words loaded at once; a last partial word is loaded as the eight bytes that end
        // the name and shifted down, so that no byte past the name is read.
        let raw = UnsafeRawPointer(base)
        func word(_ offset: Int) -> UInt64 {
            if offset + 8 <= count {
                return UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            }
            if offset >= count { return 0 }
            let last = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
            return last &>> (8 &* UInt64(offset + 8 - count))
        }
        var rest: UInt64 = 0
        if count > 32 {
            rest = 0xcbf2_9ce4_8422_2325
            for index in 32..<count { rest = (rest ^ UInt64(bytes[index])) &* 0x100_0000_01b3 }
        }
        self.init(words: (word(0), word(8), word(16), word(24)), length: count, rest: rest)
    }

    private init(words: (UInt64, UInt64, UInt64, UInt64), length: Int, rest: UInt64) {
        (first, second, third, fourth) = words
        self.length = length
        self.rest = rest
    }

    /// Packs the name at `start..<end` of `line`, which may read, and leave out, the bytes
    /// after it that `line` holds.
    init(in line: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) {
        let count = end - start
        if count < 8, start + 8 <= line.count, let base = line.baseAddress {
            let word = UInt64(
                littleEndian: UnsafeRawPointer(base).loadUnaligned(fromByteOffset: start, as: UInt64.self))
            let kept = count == 0 ? 0 : word & (UInt64.max &>> (8 &* UInt64(8 - count)))
            self.init(words: (kept, 0, 0, 0), length: count, rest: 0)
        } else {
            self.init(UnsafeBufferPointer(rebasing: line[start..<end]))
        }
    }

    /// Packs `name`, a field's name as the decoder spells it.
    init(_ name: StaticString) {
        self = name.withUTF8Buffer { JSONName($0) }
    }

    /// Packs `name`.
    init(_ name: String) {
        var name = name
        self = name.withUTF8 { JSONName($0) }
    }

    /// The name as text, for messages: the first 32 bytes of a longer name, and an ellipsis.
    var text: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(length, 32))
        let words = [first, second, third, fourth]
        for index in 0..<min(length, 32) {
            bytes.append(UInt8(truncatingIfNeeded: words[index >> 3] &>> (8 &* UInt64(index & 7))))
        }
        return String(decoding: bytes, as: UTF8.self) + (length > 32 ? "…" : "")
    }
}
