/// What the person typed after `/`: text to find in a line's type or payload, or with a
/// leading `!`, text whose lines to hide.
struct LogFilter: Equatable {
    /// The text as typed, `!` included.
    let expression: String
    /// Whether matching lines are hidden rather than shown.
    let inverted: Bool
    /// The text to look for, without `!`, as UTF-8 with ASCII capitals made small.
    private let pattern: [UInt8]

    /// Parses `expression`; `nil` when it filters nothing (empty, or a lone `!`).
    init?(_ expression: String) {
        let inverted = expression.hasPrefix("!")
        let needle = inverted ? String(expression.dropFirst()) : expression
        guard !needle.isEmpty else { return nil }
        self.expression = expression
        self.inverted = inverted
        pattern = needle.utf8.map(Self.fold)
    }

    /// Whether a line of type `typeName` is shown; `detail` is asked for only when the type
    /// alone does not decide.
    func shows(typeName: String, detail: () -> String) -> Bool {
        let found = contains(typeName) || contains(detail())
        return found != inverted
    }

    /// Whether `text` holds the pattern, ignoring the case of ASCII letters.
    ///
    /// Works on the UTF-8 bytes without copying them: the filter runs over thousands of lines a
    /// second at high rates. Letters outside ASCII match only in the case typed.
    func contains(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { haystack in
            guard pattern.count <= haystack.count else { return false }
            let first = pattern[0]
            for start in 0...(haystack.count - pattern.count) where Self.fold(haystack[start]) == first {
                var matched = 1
                while matched < pattern.count, Self.fold(haystack[start + matched]) == pattern[matched] {
                    matched += 1
                }
                if matched == pattern.count { return true }
            }
            return false
        }
    }

    /// `byte` with ASCII capitals made small.
    @inline(__always)
    private static func fold(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte | 0x20 : byte
    }
}
