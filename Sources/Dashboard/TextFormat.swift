#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Number, time and text formatting for the dashboard's narrow columns.
enum TextFormat {
    /// `value` in at most `width` characters: plain digits when they fit, else 12.3k, 4.56M, up
    /// to 9.22E for `Int.max` (a count an app sends may be that large), in the unit that
    /// leaves at most three digits before the point (1.00M, not 1000k), or a larger one when
    /// the column is too narrow for it.
    static func count(_ value: Int, width: Int) -> String {
        let plain = String(value)
        if plain.count <= width { return plain }
        let units: [(Double, String)] = [
            (1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T"), (1e15, "P"), (1e18, "E"),
        ]
        for (index, (scale, unit)) in units.enumerated() {
            let scaled = Double(value) / scale
            // Too many digits for `fixed`, which would say "inf": a larger unit will do.
            guard scaled.magnitude < 1e15 else { continue }
            for decimals in [2, 1, 0] {
                let digits = fixed(scaled, decimals: decimals)
                // Four digits before the point, once rounded: the next unit says it shorter.
                if index < units.count - 1, (Double(digits) ?? 0).magnitude >= 1000 { break }
                if digits.count + unit.count <= width { return digits + unit }
            }
        }
        return String(repeating: "#", count: max(0, width))
    }

    /// `value` with commas between groups of three digits: 100,107.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return (value < 0 ? "-" : "") + text
    }

    /// A rate: one decimal below 10, whole numbers above, `k` above 100,000.
    static func rate(_ value: Double) -> String {
        if value < 9.95 { return fixed(value, decimals: 1) }
        if value < 99_999.5 { return fixed(value, decimals: 0) }
        return fixed(value / 1_000, decimals: 0) + "k"
    }

    /// `value` with `decimals` digits after the point, without Foundation's `String(format:)`.
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "-" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else { return value < 0 ? "-inf" : "inf" }
        let whole = Int(scaled) / Int(scale)
        let fraction = Int(scaled) % Int(scale)
        var text = (value < 0 && scaled > 0 ? "-" : "") + String(whole)
        if decimals > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return text
    }

    /// The local time of day of `time` (seconds since 1970) as HH:MM:SS.mmm.
    ///
    /// Read to the microsecond first, as the wire writes times: `1796458245.1` is a little
    /// less than that as a binary number, and truncated at once it showed as `.099`.
    static func clock(_ time: Double) -> String {
        guard time.isFinite else { return "--:--:--.---" }
        var whole = time.rounded(.down)
        var microseconds = Int(((time - whole) * 1_000_000).rounded())
        if microseconds >= 1_000_000 {
            whole += 1
            microseconds -= 1_000_000
        }
        var seconds = time_t(whole)
        var parts = tm()
        localtime_r(&seconds, &parts)
        let millis = min(999, max(0, microseconds / 1000))
        return pad2(Int(parts.tm_hour)) + ":" + pad2(Int(parts.tm_min)) + ":" + pad2(Int(parts.tm_sec)) + "."
            + String(repeating: "0", count: millis < 10 ? 2 : millis < 100 ? 1 : 0) + String(millis)
    }

    /// A duration as HH:MM:SS, with days in front when there are any.
    static func duration(_ seconds: Double) -> String {
        let total = max(0, Int(seconds.isFinite ? seconds : 0))
        let days = total / 86_400
        let clock = pad2(total / 3600 % 24) + ":" + pad2(total / 60 % 60) + ":" + pad2(total % 60)
        return days > 0 ? "\(days)d \(clock)" : clock
    }

    /// A span of time to read at a glance, in at most 8 characters so that a table's column
    /// holds it whole: `12 ms` below a second, `5.0 s` below a minute (as the bus's own lines
    /// write it), then `2m 05s`, `1h 02m` below 100 hours, `12d 05h` below 1,000 days, then
    /// years (`31.7 y`, `4000 y`), and `> 1e6 y` beyond a million (a duration from an app may be
    /// anything up to what a `Duration` holds).
    static func elapsed(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let secondsPerYear: Int64 = 31_557_600
        // Checked before milliseconds are worked out, which would overflow.
        guard seconds < 1_000_000 * secondsPerYear else { return "> 1e6 y" }
        guard seconds >= 0 else { return "0 ms" }
        let milliseconds = max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        if milliseconds < 60_000 {
            let tenths = milliseconds / 100
            return "\(tenths / 10).\(tenths % 10) s"
        }
        let whole = Int(milliseconds / 1000)
        if whole < 3600 { return "\(whole / 60)m " + pad2(whole % 60) + "s" }
        if whole < 100 * 3600 { return "\(whole / 3600)h " + pad2(whole / 60 % 60) + "m" }
        if whole < 1000 * 86_400 { return "\(whole / 86_400)d " + pad2(whole / 3600 % 24) + "h" }
        let years = Double(whole) / Double(secondsPerYear)
        return (years < 100 ? fixed(years, decimals: 1) : fixed(years, decimals: 0)) + " y"
    }

    /// A handler's time, fine enough for short calls: `0.004 ms`, `0.25 ms`, `3.2 ms`, `32 ms`,
    /// then as ``elapsed(_:)`` from a second.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        if value >= 1000 { return elapsed(duration) }
        if value >= 10 { return fixed(value, decimals: 0) + " ms" }
        if value >= 1 { return fixed(value, decimals: 1) + " ms" }
        if value >= 0.1 { return fixed(value, decimals: 2) + " ms" }
        return fixed(value, decimals: 3) + " ms"
    }

    private static func pad2(_ value: Int) -> String {
        value < 10 ? "0\(value)" : String(value)
    }

    /// `text` cut to `width` characters, the last one replaced by `ellipsis` when cut.
    static func truncate(_ text: String, width: Int, ellipsis: String) -> String {
        guard width > 0 else { return "" }
        // A text of no more bytes than columns fits whatever it holds; most do, and counting
        // characters costs grapheme breaking.
        guard text.utf8.count > width, text.count > width else { return text }
        return String(text.prefix(max(0, width - ellipsis.count))) + ellipsis.prefix(width)
    }

    /// `text` right-aligned in `width` characters.
    static func right(_ text: String, width: Int) -> String {
        let count = characterCount(text)
        return count >= width
            ? String(text.suffix(width)) : String(repeating: " ", count: width - count) + text
    }

    /// The characters of `text`, counted by bytes when they are all ASCII, as numbers and
    /// column titles are.
    static func characterCount(_ text: String) -> Int {
        let asciiCount = text.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            // A loop over the bytes rather than `allSatisfy`, which a debug build calls a
            // closure for per byte: every number of every table row is counted each frame.
            for index in bytes.indices where bytes[index] >= 0x80 { return nil }
            return bytes.count
        }
        return (asciiCount ?? nil) ?? text.count
    }

    /// Whether `part` occurs in `text`, compared byte for byte (the standard library's search
    /// compares characters, a frame's worth of work for one header).
    static func text(_ text: String, contains part: String) -> Bool {
        let haystack = Array(text.utf8)
        let needle = Array(part.utf8)
        guard needle.count <= haystack.count else { return false }
        guard !needle.isEmpty else { return true }
        // Compared byte by byte in loops, not with `elementsEqual`: the header asks every frame,
        // and a debug build makes that a generic call per position.
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            var offset = 1
            while offset < needle.count, haystack[start + offset] == needle[offset] { offset += 1 }
            if offset == needle.count { return true }
        }
        return false
    }

    /// `text` broken into lines of at most `width` characters, at spaces where possible.
    static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var rest = Substring(paragraph)
            if rest.isEmpty { lines.append("") }
            while !rest.isEmpty {
                if rest.count <= width {
                    lines.append(String(rest))
                    break
                }
                let limit = rest.index(rest.startIndex, offsetBy: width)
                let cut = rest[..<limit].lastIndex(of: " ").map { rest.index(after: $0) } ?? limit
                let piece = rest[..<cut]
                lines.append(String(piece.hasSuffix(" ") ? piece.dropLast() : piece))
                rest = rest[cut...]
            }
        }
        return lines
    }
}
