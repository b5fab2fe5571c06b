import Foundation

/// A measured figure held against its target.
struct TargetCheck {
    let label: String
    /// The measured figure, such as a ratio.
    let value: Double
    /// The target as printed, such as `>= 10x`.
    let target: String
    let passes: Bool

    /// The measured figure as printed: a ratio with two decimals, or three when two would
    /// round it onto the target and hide which side of it the figure is on.
    let formattedValue: String

    /// A ratio that should be at least `minimum`.
    static func atLeast(_ label: String, _ value: Double, _ minimum: Double) -> TargetCheck {
        TargetCheck(
            label: label, value: value, target: ">= \(format(minimum))x", passes: value >= minimum,
            formattedValue: formatRatio(value, near: minimum))
    }

    /// A ratio that should be at most `maximum`.
    static func atMost(_ label: String, _ value: Double, _ maximum: Double) -> TargetCheck {
        TargetCheck(
            label: label, value: value, target: "<= \(format(maximum))x", passes: value <= maximum,
            formattedValue: formatRatio(value, near: maximum))
    }

    /// A count that should be at most `maximum`.
    static func countAtMost(_ label: String, _ value: Int, _ maximum: Int) -> TargetCheck {
        TargetCheck(
            label: label, value: Double(value), target: "<= \(maximum)", passes: value <= maximum,
            formattedValue: "\(value)")
    }

    /// A time in milliseconds that should be at most `maximum`.
    static func millisecondsAtMost(_ label: String, _ value: Double, _ maximum: Double) -> TargetCheck {
        TargetCheck(
            label: label, value: value, target: "<= \(format(maximum)) ms", passes: value <= maximum,
            formattedValue: format(value) + " ms")
    }

    /// A share of one core, such as a process's CPU time per second, that should be at most
    /// `maximum` (0.01 is 1%).
    static func shareAtMost(_ label: String, _ value: Double, _ maximum: Double) -> TargetCheck {
        TargetCheck(
            label: label, value: value, target: "<= " + String(format: "%g%%", maximum * 100),
            passes: value <= maximum, formattedValue: String(format: "%.2f%%", value * 100))
    }

    /// A rate, such as frames a second, that should be at least `minimum`.
    static func perSecondAtLeast(_ label: String, _ value: Double, _ minimum: Double) -> TargetCheck {
        TargetCheck(
            label: label, value: value, target: ">= " + String(format: "%g/s", minimum),
            passes: value >= minimum, formattedValue: String(format: "%.1f/s", value))
    }

    /// A memory size in MiB that should be at most `maximum`.
    static func megabytesAtMost(_ label: String, _ value: Int, _ maximum: Int) -> TargetCheck {
        TargetCheck(
            label: label, value: Double(value), target: "<= \(maximum) MB", passes: value <= maximum,
            formattedValue: "\(value) MB")
    }

    private static func formatRatio(_ value: Double, near target: Double) -> String {
        let twoDecimals = format(value)
        let needsMore = twoDecimals == format(target) && value != target
        return (needsMore ? String(format: "%.3f", value) : twoDecimals) + "x"
    }

    static func format(_ value: Double) -> String {
        String(format: "%.2f", value)
    }
}

/// Plain-text output: left-aligned labels and right-aligned numbers.
enum TextTable {
    /// A share as a percentage with two decimals, such as `0.25%`.
    static func percent(_ share: Double) -> String {
        String(format: "%.2f%%", share * 100)
    }

    static func render(header: [String], rows: [[String]]) -> String {
        let columns = header.count
        var widths = header.map(\.count)
        for row in rows {
            for column in 0..<columns { widths[column] = max(widths[column], row[column].count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        let rule = String(repeating: "-", count: widths.reduce(0, +) + 2 * (columns - 1))
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }

    static func nanoseconds(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }

    static func megabytes(_ bytes: Int?) -> String {
        bytes.map { String(format: "%.1f MB", Double($0) / 1_048_576) } ?? "unknown"
    }
}
