/// The subjects a ``NATSBridge`` publishes on, and the reversible escaping of the names in them.
///
/// Every event goes to `eventbus.<app>.<EventTypeName>`. A NATS subject is a list of tokens
/// separated by `.`, and a token may not hold `.`, the wildcards `*` and `>`, white space or
/// control characters, so app and type names (`Box<Int>`, `my app`) are escaped: every byte of
/// their UTF-8 outside the printable ASCII range, and each of `.` `*` `>` `%`, becomes `%`
/// and two upper-case hex digits, as in a URL. A leading `_` is escaped too, which keeps tokens
/// starting with `_` free for the bridge's own records (`eventbus.<app>._snapshot`).
///
/// ```swift
/// NATSSubject.subject(app: "checkout", typeName: "Box<Int>")  // "eventbus.checkout.Box<Int%3E"
/// NATSSubject.name(fromToken: "Box<Int%3E")                   // "Box<Int>"
/// ```
public enum NATSSubject {
    /// The first token of every subject the bridge uses.
    public static let root = "eventbus"

    /// The subject events of type `typeName` from `app` are published on.
    ///
    /// - Parameters:
    ///   - app: The sending app's name, as given to the bridge.
    ///   - typeName: The event's type name, as `EventTypeStatistics.typeName` gives it.
    /// - Returns: `eventbus.<app>.<typeName>`, both names escaped.
    public static func subject(app: String, typeName: String) -> String {
        root + "." + token(for: app) + "." + token(for: typeName)
    }

    /// A name escaped into one subject token.
    ///
    /// - Parameter name: Any text; the empty name becomes `%00`.
    /// - Returns: A token that ``name(fromToken:)`` turns back into `name`.
    public static func token(for name: String) -> String {
        // An empty token would make an invalid subject (`eventbus..X`); NUL cannot occur in a
        // Swift type name or an app name anyone chooses, so `%00` stands for the empty name.
        guard !name.isEmpty else { return "%00" }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(name.utf8.count)
        for (index, byte) in name.utf8.enumerated() {
            if needsEscape(byte) || (index == 0 && byte == UInt8(ascii: "_")) {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigit(byte >> 4))
                bytes.append(hexDigit(byte & 0x0F))
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The name a token was escaped from.
    ///
    /// - Parameter token: A token made by ``token(for:)``.
    /// - Returns: The name, or `nil` when the token holds a `%` not followed by two hex digits,
    ///   a character that escaping would have replaced, or bytes that are not UTF-8.
    public static func name(fromToken token: String) -> String? {
        if token == "%00" { return "" }
        var bytes: [UInt8] = []
        let utf8 = Array(token.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < utf8.count, let high = hexValue(utf8[index + 1]),
                    let low = hexValue(utf8[index + 2])
                else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                guard !needsEscape(byte) else { return nil }
                bytes.append(byte)
                index += 1
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether `byte` may not stand for itself in a token.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "*")
            || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "%")
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
