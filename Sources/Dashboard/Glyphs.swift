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
        let largest = values.max() ?? 0
        guard largest > 0 else { return String(repeating: " ", count: values.count) }
        // Built a scalar at a time: each level is one scalar, and a string of characters costs
        // grapheme breaking per value, most of a sparkline's price at 25 frames a second.
        let scalars = levels
        var text = String.UnicodeScalarView()
        for value in values {
            guard value > 0 else {
                text.append(" ")
                continue
            }
            let scaled = Double(value) / Double(largest) * Double(scalars.count)
            text.append(scalars[min(scalars.count - 1, max(0, Int(scaled.rounded(.up)) - 1))])
        }
        return String(text)
    }
}
