import Foundation

/// The field names whose values never leave the app in a monitor's view of its events: a tap's
/// stream, a link to `busmon --listen`, a recording and the screen show `"<redacted>"` instead.
///
/// Names match whole field names in any case, at any depth of the payload: with the defaults,
/// `password`, `Password` and `user.password` are redacted, `passwordHint` is not.
///
/// ```swift
/// // The defaults, plus two names of the app's own, less one it does want to see:
/// let redaction = PayloadRedaction.default.adding("pin", "ssn").removing("token")
/// let tap = try BusTap(bus: .shared, socketPath: "/tmp/myapp.sock", redacting: redaction)
/// ```
///
/// The events themselves are not changed: subscribers in the app, and a NATS bridge's other
/// apps, which decode them as data, get every field.
public struct PayloadRedaction: Sendable, Hashable {
    /// What a redacted value reads.
    public static let placeholder = "<redacted>"

    /// The names redacted by default: `password`, `passwd`, `secret`, `token`, `accessToken`,
    /// `refreshToken`, `apiKey`, `authorization`, `cookie` and `privateKey`.
    public static let `default` = PayloadRedaction(names: [
        "password", "passwd", "secret", "token", "accessToken", "refreshToken", "apiKey", "authorization",
        "cookie", "privateKey",
    ])

    /// Nothing redacted.
    public static let none = PayloadRedaction(names: [])

    /// The names, lowercased.
    public private(set) var names: Set<String>
    /// Bit `n` set when some name is `n` bytes long, so that most fields are passed over at
    /// once.
    private var lengths: UInt64 = 0
    /// The names' bytes, for comparing a field's name without making a lowercased copy: the tap
    /// thread asks for every field of every event.
    private var asciiNames: [[UInt8]] = []

    /// Redacts the fields named `names`, in any case.
    public init(names: some Sequence<String>) {
        self.names = []
        for name in names { insert(name) }
    }

    /// These names and `more`.
    public func adding(_ more: String...) -> PayloadRedaction {
        var copy = self
        for name in more { copy.insert(name) }
        return copy
    }

    /// These names without `fewer`.
    public func removing(_ fewer: String...) -> PayloadRedaction {
        PayloadRedaction(names: names.subtracting(fewer.map { $0.lowercased() }))
    }

    private mutating func insert(_ name: String) {
        let lowered = name.lowercased()
        guard !lowered.isEmpty else { return }
        guard names.insert(lowered).inserted else { return }
        lengths |= 1 << UInt64(min(63, lowered.utf8.count))
        asciiNames.append(Array(lowered.utf8))
    }

    /// Whether a field of this name is redacted.
    @inline(__always)
    public func redacts(_ name: String) -> Bool {
        let count = name.utf8.count
        guard lengths & (1 << UInt64(min(63, count))) != 0 else { return false }
        return matches(name, count: count)
    }

    private func matches(_ name: String, count: Int) -> Bool {
        // A native string's bytes are contiguous; anything else takes the slow way below.
        let found = name.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            for candidate in asciiNames where candidate.count == count {
                var same = true
                for index in 0..<count {
                    let byte = bytes[index]
                    if byte >= 0x80 { return nil }  // not ASCII: compared the slow way below
                    let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                    if folded != candidate[index] {
                        same = false
                        break
                    }
                }
                if same { return true }
            }
            return false
        }
        if let found = found ?? nil { return found }
        return names.contains(name.lowercased())
    }

    /// Whether redaction applies at all.
    public var isEmpty: Bool { names.isEmpty }

    /// The JSON text of an event's fields with every redacted field's value replaced, keys
    /// sorted; the text unchanged when it names no redacted field.
    public func redact(json text: String) -> String {
        guard !names.isEmpty, namesARedactedKey(text),
            let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        else { return text }
        let redacted = redact(value)
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: redacted, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        else { return text }
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether some key of the JSON `text` is a redacted name, or holds an escape (decoded the
    /// slow way): a scan of its bytes, so that the payloads that name none, nearly all of them,
    /// pass without being lowercased, searched once per name, or parsed. A monitor of a NATS
    /// fleet asks this of every event.
    private func namesARedactedKey(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            let count = bytes.count
            var index = 0
            while index < count {
                guard bytes[index] == UInt8(ascii: "\"") else {
                    index += 1
                    continue
                }
                let start = index + 1
                var end = start
                var escaped = false
                while end < count, bytes[end] != UInt8(ascii: "\"") {
                    if bytes[end] == UInt8(ascii: "\\") {
                        escaped = true
                        end += 1
                    }
                    end += 1
                }
                guard end < count else { return false }
                var next = end + 1
                while next < count,
                    bytes[next] == 0x20 || bytes[next] == 0x09 || bytes[next] == 0x0A || bytes[next] == 0x0D
                {
                    next += 1
                }
                if next < count, bytes[next] == UInt8(ascii: ":") {
                    if escaped { return true }
                    let length = end - start
                    if lengths & (1 << UInt64(min(63, length))) != 0,
                        redacts(
                            String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                        )
                    {
                        return true
                    }
                }
                index = end + 1
            }
            return false
        }
    }

    private func redact(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, member) in object {
                result[key] = redacts(key) ? Self.placeholder : redact(member)
            }
            return result
        }
        if let array = value as? [Any] { return array.map { redact($0) } }
        return value
    }

    /// The description of an event that is not `Encodable`, as `String(describing:)` writes a
    /// struct (`Login(user: "ada", password: "x")`), with each redacted field's value replaced.
    public func redact(description text: String) -> String {
        guard !names.isEmpty else { return text }
        var result = ""
        var rest = Substring(text)
        while let separator = rest.range(of: ": ") {
            // The field name: the letters and digits before ": ".
            let before = rest[..<separator.lowerBound]
            let nameStart =
                before.lastIndex { !($0.isLetter || $0.isNumber || $0 == "_") }
                .map { before.index(after: $0) } ?? before.startIndex
            let name = String(before[nameStart...])
            result += rest[..<separator.upperBound]
            rest = rest[separator.upperBound...]
            guard !name.isEmpty, redacts(name) else { continue }
            // The value: a quoted string, or everything up to the next ", " or ")".
            var end = rest.startIndex
            if rest.first == "\"" {
                var index = rest.index(after: rest.startIndex)
                while index < rest.endIndex, rest[index] != "\"" {
                    if rest[index] == "\\" { index = rest.index(after: index) }
                    if index < rest.endIndex { index = rest.index(after: index) }
                }
                end = index < rest.endIndex ? rest.index(after: index) : rest.endIndex
            } else {
                end = rest.firstIndex { $0 == "," || $0 == ")" } ?? rest.endIndex
            }
            result += "\"\(Self.placeholder)\""
            rest = rest[end...]
        }
        return result + rest
    }
}
