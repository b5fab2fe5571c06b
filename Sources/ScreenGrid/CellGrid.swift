/// How a cell is drawn, beyond its character.
package struct CellStyle: Hashable, Sendable {
    /// Colours a terminal can show; the terminal backend maps them to its palette.
    package enum Color: UInt8, Hashable, Sendable, CaseIterable {
        case red, green, yellow, blue, magenta, cyan, white
    }

    /// Bold text.
    package var bold: Bool
    /// Foreground and background swapped, as for a selected row or a bar.
    package var reverse: Bool
    /// Dimmed text, for less important detail.
    package var dim: Bool
    /// The foreground colour, or `nil` for the terminal's default.
    package var color: Color?

    /// Creates a style.
    package init(bold: Bool = false, reverse: Bool = false, dim: Bool = false, color: Color? = nil) {
        self.bold = bold
        self.reverse = reverse
        self.dim = dim
        self.color = color
    }

    /// The terminal's default look.
    package static let plain = CellStyle()
}

/// One character cell of the screen.
package struct Cell: Hashable, Sendable {
    /// What the cell shows; one terminal column wide.
    package var character: Character
    /// How it is drawn.
    package var style: CellStyle

    /// Creates a cell.
    package init(_ character: Character = " ", style: CellStyle = .plain) {
        self.character = character
        self.style = style
    }
}

/// An in-memory screen: the dashboard draws here, the terminal backend copies it out, and
/// tests read it as text.
package struct CellGrid: Sendable, Equatable {
    /// Columns.
    package private(set) var width: Int
    /// Rows.
    package private(set) var height: Int
    private var cells: [Cell]

    /// Creates a blank grid.
    ///
    /// - Parameters:
    ///   - width: Columns, at least 0.
    ///   - height: Rows, at least 0.
    package init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: Cell(), count: self.width * self.height)
    }

    /// The cell at column `x`, row `y`; reading outside the grid gives a blank cell and writing
    /// there does nothing, so drawing code need not clip.
    package subscript(x: Int, y: Int) -> Cell {
        get {
            guard x >= 0, y >= 0, x < width, y < height else { return Cell() }
            return cells[y * width + x]
        }
        set {
            guard x >= 0, y >= 0, x < width, y < height else { return }
            cells[y * width + x] = newValue
        }
    }

    /// Blanks every cell.
    package mutating func clear() {
        for index in cells.indices { cells[index] = Cell() }
    }

    /// Writes `text` from column `x` of row `y`, clipped to the grid and to `maxWidth` columns.
    ///
    /// Characters wider than one column are replaced by `?` so that columns stay aligned.
    ///
    /// - Returns: The column after the last character written.
    @discardableResult
    package mutating func put(
        _ text: String, x: Int, y: Int, style: CellStyle = .plain, maxWidth: Int? = nil
    ) -> Int {
        var column = x
        let limit = min(width, x + (maxWidth ?? width))
        // Printable ASCII, most of what a frame writes, takes a column a byte: no grapheme
        // breaking and no Unicode property lookups, which otherwise cost most of a frame.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            for byte in text.utf8 {
                guard column < limit else { break }
                self[column, y] = Cell(Character(Unicode.Scalar(byte)), style: style)
                column += 1
            }
            return column
        }
        for character in text {
            guard column < limit else { break }
            self[column, y] = Cell(Self.isSingleWidth(character) ? character : "?", style: style)
            column += 1
        }
        return column
    }

    /// Sets the style of `count` cells of row `y` from column `x`, keeping their characters.
    package mutating func style(x: Int, y: Int, count: Int, _ style: CellStyle) {
        for column in x..<max(x, x + count) {
            var cell = self[column, y]
            cell.style = style
            self[column, y] = cell
        }
    }

    /// Reverses `count` cells of row `y` from column `x`, keeping their other attributes, so a
    /// selected row keeps its colour (a leak suspect stays red, a gone object grey).
    package mutating func highlight(x: Int, y: Int, count: Int) {
        for column in x..<max(x, x + count) {
            var cell = self[column, y]
            cell.style.reverse = true
            self[column, y] = cell
        }
    }

    /// Row `y` as text, trailing spaces removed.
    package func row(_ y: Int) -> String {
        guard y >= 0, y < height else { return "" }
        var text = String(cells[(y * width)..<(y * width + width)].map(\.character))
        while text.last == " " { text.removeLast() }
        return text
    }

    /// The whole grid as text, one line per row, trailing spaces removed.
    package var text: String {
        (0..<height).map(row).joined(separator: "\n")
    }

    /// Whether `character` takes one terminal column: printable, not a combining sequence of
    /// several columns, not an East Asian wide or emoji character.
    static func isSingleWidth(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1 else {
            return false
        }
        let value = scalar.value
        if value >= 0x20 && value < 0x7F { return true }
        if value < 0x20 || (value >= 0x7F && value < 0xA0) { return false }
        if scalar.properties.isEmojiPresentation { return false }
        // East Asian wide and fullwidth ranges.
        if (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value)
            || (0xAC00...0xD7A3).contains(value) || (0xF900...0xFAFF).contains(value)
            || (0xFE30...0xFE4F).contains(value) || (0xFF00...0xFF60).contains(value)
            || (0xFFE0...0xFFE6).contains(value) || (0x20000...0x3FFFD).contains(value)
        {
            return false
        }
        return true
    }
}
