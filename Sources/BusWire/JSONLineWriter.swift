/// Writes one JSON object per line into a byte buffer, by hand.
///
/// A tap encodes every event it sends, so this avoids `JSONEncoder` and its intermediate
/// containers: fields go straight into bytes, strings are escaped in one pass, and text that needs
/// no escaping is copied whole.
package struct JSONLineWriter {
    /// The lines written so far.
    package var bytes: [UInt8]
    private var needsComma = false

    package init(reservingCapacity capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Starts an object whose first field is `"kind":kind`.
    package mutating func beginRecord(_ kind: StaticString) {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        key("kind")
        bytes.append(UInt8(ascii: "\""))
        appendASCII(kind)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Starts a nested object as the value of `name`, or as an array element when `name` is nil.
    package mutating func beginObject(_ name: StaticString?) {
        if let name { key(name) } else { separator() }
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Ends the current object.
    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Starts an array as the value of `name`.
    package mutating func beginArray(_ name: StaticString) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Ends the current array.
    package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Ends the record's object and the line.
    package mutating func endRecord() {
        bytes.append(UInt8(ascii: "}"))
        bytes.append(UInt8(ascii: "\n"))
        needsComma = false
    }

    package mutating func field(_ name: StaticString, _ value: Int) {
        key(name)
        appendInteger(value)
    }

    package mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }

    package mutating func field(_ name: StaticString, _ value: Double) {
        key(name)
        appendDouble(value)
    }

    package mutating func field(_ name: StaticString, _ value: String) {
        key(name)
        appendString(value)
    }

    /// A field whose name is only known at run time, such as an event type's.
    package mutating func field(named name: String, _ value: Int) {
        separator()
        appendString(name)
        bytes.append(UInt8(ascii: ":"))
        appendInteger(value)
    }

    /// A number field whose name is only known at run time.
    package mutating func field(named name: String, _ value: Double) {
        separator()
        appendString(name)
        bytes.append(UInt8(ascii: ":"))
        appendDouble(value)
    }

    /// Writes `null` when `value` is nil.
    package mutating func field(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { appendString(value) } else { appendASCII("null") }
    }

    /// Writes `null` when `value` is nil.
    package mutating func field(_ name: StaticString, _ value: Int?) {
        key(name)
        if let value { appendInteger(value) } else { appendASCII("null") }
    }

    /// Writes `values` as an array of strings.
    package mutating func field(_ name: StaticString, strings values: [String]) {
        beginArray(name)
        for value in values {
            separator()
            appendString(value)
        }
        endArray()
    }

    /// Where the writer stands, to come back to with ``rewind(to:)``.
    package struct Mark {
        fileprivate let count: Int
        fileprivate let needsComma: Bool
    }

    /// The current position, before writing something that may have to be taken back.
    package var mark: Mark { Mark(count: bytes.count, needsComma: needsComma) }

    /// Takes back everything written since `mark`, such as array elements that made a line
    /// too long.
    package mutating func rewind(to mark: Mark) {
        bytes.removeSubrange(mark.count...)
        needsComma = mark.needsComma
    }

    /// Writes `json`, which the caller knows is one valid JSON value without newlines, as is.
    package mutating func rawField(_ name: StaticString, _ json: String) {
        key(name)
        appendJSONText(json)
    }

    // MARK: - Values

    private mutating func separator() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    /// Goes on after fields appended as raw bytes, inside a record: the next field is led by a
    /// comma.
    package mutating func continueRecord() {
        needsComma = true
    }

    /// Writes `"name":`, ready for a value.
    package mutating func key(_ name: StaticString) {
        separator()
        bytes.append(UInt8(ascii: "\""))
        appendASCII(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends text that is already JSON, as it is: literals and numbers this writer made.
    package mutating func appendRaw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends text that is already JSON, with DEL, the C1 controls, the bidirectional and
    /// line-separator characters and those that show nothing inside its strings written as
    /// `\u` escapes, as
    /// ``appendString(utf8:escapingTerminalControls:)`` writes them: the JSON an app sent (a
    /// payload) reaches terminals too. Outside strings JSON has none of them, so the text means
    /// what it meant. Without any (as nearly always), one pass over the bytes.
    package mutating func appendJSONText(_ text: String) {
        var text = text
        text.withUTF8 { appendEscaping($0, jsonSyntax: false, terminalControls: true) }
    }

    private mutating func appendASCII(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    package mutating func appendInteger(_ value: Int) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        // Digits go right to left into a small buffer on the stack, then in with one append.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for a sign and 20 digits
        var magnitude = value.magnitude
        var start = 24
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Writes a time or a duration in seconds, to the microsecond: `1712345678.123456`.
    ///
    /// Fixed precision, because it is much cheaper to write than Swift's shortest round-trip
    /// form, and because readers convert numbers of up to 16 digits exactly and quickly. Values of
    /// a million years and more (never times) fall back to the shortest form; JSON has no infinity
    /// or NaN, so those become `0`.
    package mutating func appendDouble(_ value: Double) {
        guard value.isFinite else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        let microseconds = (value.magnitude * 1e6).rounded()
        guard microseconds < 1e18 else {
            bytes.append(contentsOf: value.description.utf8)
            return
        }
        let total = Int(microseconds)
        if value < 0 && total != 0 { bytes.append(UInt8(ascii: "-")) }
        appendInteger(total / 1_000_000)
        bytes.append(UInt8(ascii: "."))
        var fraction = total % 1_000_000
        var digits = 6
        // Trailing zeros carry nothing; keep one digit so the number still reads as a time.
        while digits > 1 && fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        var divisor = 1
        for _ in 1..<digits { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / divisor % 10))
            divisor /= 10
        }
    }

    /// Writes `text` as a JSON string: quotes, backslashes and control characters escaped.
    package mutating func appendString(_ text: String) {
        var text = text
        text.withUTF8 { appendString(utf8: $0) }
    }

    /// Writes a string of an app's payload as `JSONEncoder` would, byte for byte: what JSON
    /// requires escaped, nothing more (see ``appendString(utf8:escapingTerminalControls:)``).
    package mutating func appendPayloadString(_ text: String) {
        var text = text
        text.withUTF8 { appendString(utf8: $0, escapingTerminalControls: false) }
    }

    /// Writes the UTF-8 text `utf8` as a JSON string, as ``appendString(_:)`` does.
    ///
    /// Besides what JSON requires (quotes, backslashes, C0 controls), DEL, the C1 controls,
    /// the characters that move or reorder text on a terminal (the bidirectional marks,
    /// overrides and isolates, the line and paragraph separators) and those that show nothing
    /// (zero-width spaces, the soft hyphen, tags: ``UntrustedText/isHiddenOrReordering(_:)``)
    /// are written as `\u` escapes: JSON Lines output is often read on a terminal
    /// (`--headless`, `cat` of a recording, `jq -r`), where a C1 CSI acts as `ESC [` does and
    /// `Log\u{200B}in` passes for `Login`. The text reads back the same.
    ///
    /// - Parameter escapingTerminalControls: `false` writes what JSON requires only, byte for
    ///   byte as `JSONEncoder` does: for an app's payload, which a monitor writes out through
    ///   ``appendJSONText(_:)``.
    package mutating func appendString(
        utf8: UnsafeBufferPointer<UInt8>, escapingTerminalControls: Bool = true
    ) {
        bytes.append(UInt8(ascii: "\""))
        appendEscaping(utf8, jsonSyntax: true, terminalControls: escapingTerminalControls)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `utf8` with what must be escaped escaped: quotes, backslashes and C0 controls when
    /// `jsonSyntax` (text going into a string), and DEL, C1 and the characters that reorder
    /// text when `terminalControls`.
    private mutating func appendEscaping(
        _ utf8: UnsafeBufferPointer<UInt8>, jsonSyntax: Bool, terminalControls: Bool
    ) {
        var runStart = 0
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            // Printable ASCII other than `"` and `\` goes on after four comparisons, one more
            // than JSON alone needs; a byte from DEL up is looked at only to escape controls.
            guard
                (jsonSyntax && (byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")))
                    || (byte >= 0x7F && terminalControls)
            else {
                index += 1
                continue
            }
            let (scalar, length) = Self.escapedScalar(at: index, in: utf8)
            guard length > 0 else {
                index += 1
                continue
            }
            if runStart < index {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            }
            if length == 1 {
                appendEscape(byte)
            } else {
                appendUnicodeEscape(scalar)
            }
            index += length
            runStart = index
        }
        if runStart < utf8.count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
    }

    /// The scalar starting at `index` that is written escaped, and its length in bytes; a length
    /// of 0 when it is written as it is. Below 0x80 a byte is its own scalar, which the caller
    /// asked about because JSON or a terminal needs it escaped; from there up, the scalars
    /// ``UntrustedText/isHiddenOrReordering(_:)`` names.
    private static func escapedScalar(at index: Int, in utf8: UnsafeBufferPointer<UInt8>) -> (UInt32, Int) {
        let byte = utf8[index]
        if byte < 0x80 { return (UInt32(byte), 1) }
        // A lead byte's count of bytes; a continuation byte met on its own is left as it is.
        let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 0
        guard length > 0, index + length <= utf8.count else { return (0, 0) }
        var scalar = UInt32(byte) & (0x7F >> UInt32(length))
        for offset in 1..<length { scalar = scalar << 6 | UInt32(utf8[index + offset] & 0x3F) }
        return UntrustedText.isHiddenOrReordering(scalar) ? (scalar, length) : (0, 0)
    }

    /// Writes `\uXXXX` for `scalar`, and a pair of them (its UTF-16 surrogates) beyond the Basic
    /// Multilingual Plane, as JSON spells such a character.
    private mutating func appendUnicodeEscape(_ scalar: UInt32) {
        guard scalar <= 0xFFFF else {
            let offset = scalar - 0x10000
            appendUnicodeEscape(0xD800 + (offset >> 10))
            appendUnicodeEscape(0xDC00 + (offset & 0x3FF))
            return
        }
        let hex: StaticString = "0123456789abcdef"
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(UInt8(ascii: "u"))
        hex.withUTF8Buffer { digits in
            for shift in stride(from: 12, through: 0, by: -4) {
                bytes.append(digits[Int((scalar >> UInt32(shift)) & 0x0F)])
            }
        }
    }

    private mutating func appendEscape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            hex.withUTF8Buffer { digits in
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0F)])
            }
        }
    }
}
