internal import BusMonitor
internal import BusWire

/// What the person typed after `/`: text to find in a line's type, app or payload, or with a
/// leading `!`, text whose lines to hide. `app:NAME` keeps the lines of one process of a fleet
/// (its app name, or `app@host:pid`), as Enter on a row of the Fleet pane asks.
struct LogFilter: Equatable, Sendable {
    /// What starts a filter by app.
    static let appPrefix = "app:"

    /// The text as typed, `!` included.
    let expression: String
    /// Whether matching lines are hidden rather than shown.
    let inverted: Bool
    /// Whether the filter names an app (`app:NAME`) rather than text to find.
    let isAppFilter: Bool
    /// The text to look for, without `!` (or the app's name without `app:`), as UTF-8 with ASCII
    /// capitals made small.
    private let pattern: [UInt8]

    /// Parses `expression`; `nil` when it filters nothing (empty, a lone `!` or `app:`).
    init?(_ expression: String) {
        let inverted = expression.hasPrefix("!")
        var needle = inverted ? String(expression.dropFirst()) : expression
        isAppFilter = needle.lowercased().hasPrefix(Self.appPrefix)
        if isAppFilter { needle = String(needle.dropFirst(Self.appPrefix.count)) }
        guard !needle.isEmpty else { return nil }
        self.expression = expression
        self.inverted = inverted
        pattern = needle.utf8.map(Self.fold)
    }

    /// A filter that keeps the lines of the fleet member the log calls `label`.
    static func app(_ label: String) -> LogFilter? {
        LogFilter(appPrefix + label)
    }

    /// Whether a line of type `typeName` from `origin` is shown; `detail` is asked for only when
    /// the type and the app do not decide.
    func shows(typeName: String, origin: EventOrigin? = nil, detail: () -> String) -> Bool {
        let found: Bool
        if isAppFilter {
            // The whole name, so that `app:web` is not also `webshop`.
            found = origin.map { equals($0.app) || equals($0.description) } ?? false
        } else {
            found = contains(typeName) || (origin.map { contains($0.app) } ?? false) || contains(detail())
        }
        return found != inverted
    }

    /// Whether the log shows `entry` under this filter.
    func shows(_ entry: LogEntry) -> Bool {
        shows(typeName: entry.typeName, origin: entry.origin) { entry.detailText }
    }

    /// Whether `text` is the pattern, ignoring the case of ASCII letters.
    func equals(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            bytes.count == pattern.count && zip(bytes, pattern).allSatisfy { Self.fold($0) == $1 }
        }
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
