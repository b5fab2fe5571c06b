internal import ScreenGrid

/// The characters the dashboard draws with, in Unicode or plain ASCII.
struct Glyphs: Equatable {
    let horizontal: Character
    let vertical: Character
    let teeDown: Character
    let topLeft: Character
    let topRight: Character
    let bottomLeft: Character
    let bottomRight: Character
    /// Sparkline levels, lowest first, each one scalar; a zero draws as a space.
    let levels: [Unicode.Scalar]
    let rise: String
    let drop: String
    let ellipsis: String
    let bullet: String
    let upDown: String
    /// Marks an event type that has a sticky event.
    let sticky: String

    static let unicode = Glyphs(
        horizontal: "─", vertical: "│", teeDown: "┬", topLeft: "┌", topRight: "┐", bottomLeft: "└",
        bottomRight: "┘", levels: ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"], rise: "▲", drop: "▼",
        ellipsis: "…", bullet: "•", upDown: "↑↓", sticky: "◆")

    static let ascii = Glyphs(
        horizontal: "-", vertical: "|", teeDown: "+", topLeft: "+", topRight: "+", bottomLeft: "+",
        bottomRight: "+", levels: ["_", ".", "-", "=", "#"], rise: "+", drop: "-", ellipsis: "~",
        bullet: ">", upDown: "Up/Dn", sticky: "*")

    /// One character per value, scaled so the largest value draws as the tallest level.
    func sparkline(_ values: [Int]) -> String {
        let largest = Self.largest(of: values)
        var text = String.UnicodeScalarView()
        for value in values { text.append(level(of: value, largest: largest)) }
        return String(text)
    }

    /// Draws ``sparkline(_:)`` of `values` from column `x` of row `y`, a cell per value, without
    /// a string: a table draws one in every row of every frame.
    func drawSparkline(_ values: [Int], into grid: inout CellGrid, x: Int, y: Int, style: CellStyle) {
        let largest = Self.largest(of: values)
        grid.withCells(inRow: y, from: x, count: values.count) { cells, skipped in
            for index in 0..<cells.count {
                cells[index] = Cell(
                    scalar: level(of: values[skipped + index], largest: largest), style: style)
            }
        }
    }

    /// The largest of `values`, or 0 when there are none above it; found in a loop, since
    /// `max()` is a generic call per element in a debug build.
    private static func largest(of values: [Int]) -> Int {
        var largest = 0
        for index in values.indices where values[index] > largest { largest = values[index] }
        return largest
    }

    /// The level that shows `value` in a sparkline whose largest value is `largest`: a space for
    /// 0, else the lowest of ``levels`` that reaches it.
    @inline(__always)
    private func level(of value: Int, largest: Int) -> Unicode.Scalar {
        guard value > 0, largest > 0 else { return " " }
        let top = levels.count
        // value / largest of the top level, rounded up, in whole numbers: exact where the
        // quotient of doubles could land a hair above a whole level. Counts from an app are
        // not trusted to be small: one that could overflow is scaled as a double.
        guard value <= largest, largest <= Int.max / (top + 1) else {
            let scaled = Double(value) / Double(largest) * Double(top)
            return levels[min(top - 1, max(0, Int(scaled.rounded(.up)) - 1))]
        }
        let reached = (value * top + largest - 1) / largest
        return levels[min(top - 1, max(0, reached - 1))]
    }
}
