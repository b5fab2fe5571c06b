/// The help overlay's rows for one screen size: each key line and column note, wrapped to the
/// box, so the whole help can be read at the smallest size by scrolling.
///
/// The controller keeps the scroll position within ``maximumScroll``; the view draws
/// ``visibleRows`` of ``rows`` from there.
struct HelpText: Equatable {
    /// One row of the box: keys (on a line's first row only) and a piece of the line's text.
    struct Row: Equatable {
        let keys: String
        let text: String
        /// Whether the row belongs to a column note rather than a key.
        let isNote: Bool
    }

    /// Columns of the keys, before the text.
    static let keyWidth = 18

    let rows: [Row]
    /// The inside width of the box.
    let width: Int
    /// Rows the box shows.
    let visibleRows: Int

    /// Wraps `keys`, then a blank row, then `notes` to fit a screen `screenWidth` x `screenHeight`.
    init(keys: [KeyHint], notes: [KeyHint], screenWidth: Int, screenHeight: Int) {
        let longest = (keys + notes).map(\.text.count).max() ?? 0
        // The box's frame and padding take 4 columns, and 4 more are left around it.
        width = max(Self.keyWidth + 8, min(screenWidth - 8, Self.keyWidth + longest + 1))
        let textWidth = width - Self.keyWidth
        var rows: [Row] = []
        func add(_ hint: KeyHint, isNote: Bool) {
            for (index, piece) in TextFormat.wrap(hint.text, width: textWidth).enumerated() {
                rows.append(Row(keys: index == 0 ? hint.keys : "", text: piece, isNote: isNote))
            }
        }
        for hint in keys { add(hint, isNote: false) }
        rows.append(Row(keys: "", text: "", isNote: true))
        for hint in notes { add(hint, isNote: true) }
        self.rows = rows
        // The box takes the screen less a row above and below, and its frame.
        visibleRows = max(1, min(rows.count, screenHeight - 4))
    }

    /// The furthest the box scrolls: its last row at the bottom.
    var maximumScroll: Int { max(0, rows.count - visibleRows) }

    /// Whether there is more than the box shows.
    var scrolls: Bool { maximumScroll > 0 }
}
