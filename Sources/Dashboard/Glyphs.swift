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
        String(String.UnicodeScalarView(sparklineScalars(values)))
    }

    /// The scalars of ``sparkline(_:)``, for drawing straight into cells.
    func sparklineScalars(_ values: [Int]) -> some Collection<Unicode.Scalar> {
        let largest = values.max() ?? 0
        let top = levels.count
        return values.lazy.map { value -> Unicode.Scalar in
            guard value > 0 else { return " " }
            let scaled = Double(value) / Double(largest) * Double(top)
            return levels[min(top - 1, max(0, Int(scaled.rounded(.up)) - 1))]
        }
    }
}
