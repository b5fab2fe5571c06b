/// What the person typed after `/`: text to find in a line's type or payload, or with a
/// leading `!`, text whose lines to hide.
struct LogFilter: Equatable {
    /// The text as typed, `!` included.
    let expression: String
    /// Whether matching lines are hidden rather than shown.
    let inverted: Bool
    /// The text to look for, without `!`, lowercased, as UTF-8.
    private let pattern: [UInt8]

    /// Parses `expression`; `nil` when it filters nothing (empty, or a lone `!`).
    init?(_ expression: String) {
        let inverted = expression.hasPrefix("!")
        let needle = inverted ? String(expression.dropFirst()) : expression
        guard !needle.isEmpty else { return nil }
        self.expression = expression
        self.inverted = inverted
        pattern = Array(needle.lowercased().utf8)
    }

    /// Whether a line of type `typeName` is shown; `detail` is asked for only when the type
    /// alone does not decide.
    func shows(typeName: String, detail: () -> String) -> Bool {
        let found = contains(typeName) || contains(detail())
        return found != inverted
    }

    /// Whether `text` holds the pattern, ignoring case.
    func contains(_ text: String) -> Bool {
        let haystack = Array(text.lowercased().utf8)
        guard pattern.count <= haystack.count else { return false }
        let first = pattern[0]
        var start = 0
        while start <= haystack.count - pattern.count {
            if haystack[start] == first {
                var matched = 1
                while matched < pattern.count, haystack[start + matched] == pattern[matched] { matched += 1 }
                if matched == pattern.count { return true }
            }
            start += 1
        }
        return false
    }
}
