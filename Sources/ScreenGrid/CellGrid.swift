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
///
/// It holds one Unicode scalar, not a `Character`: a cell is one column, which a cluster of
/// several scalars never is here (``CellGrid/put(_:x:y:style:maxWidth:)`` draws those as `?`),
/// and a scalar makes a cell eight plain bytes that a frame clears, copies and compares without
/// reference counting.
package struct Cell: Hashable, Sendable {
    /// What the cell shows; one terminal column wide.
    package var scalar: Unicode.Scalar
    /// How it is drawn.
    package var style: CellStyle

    /// What the cell shows, as a character.
    package var character: Character {
        get { Character(scalar) }
        set { scalar = Self.scalar(of: newValue) }
    }

    /// Creates a blank cell.
    package init() {
        self.init(scalar: " ")
    }

    /// Creates a cell showing `character`, or `?` when it is more than one Unicode scalar.
    package init(_ character: Character, style: CellStyle = .plain) {
        self.scalar = Self.scalar(of: character)
        self.style = style
    }

    /// Creates a cell showing `scalar`.
    package init(scalar: Unicode.Scalar, style: CellStyle = .plain) {
        self.scalar = scalar
        self.style = style
    }

    private static func scalar(of character: Character) -> Unicode.Scalar {
        let scalars = character.unicodeScalars
        return scalars.count == 1 ? scalars.first! : "?"
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

    /// Calls `body` with each cell that differs from the same cell of `previous`, row by row, or
    /// with every cell when there is no previous grid of the same size: what a terminal must be
    /// told to show this grid where it showed `previous`.
    package func forEachChange(since previous: CellGrid?, _ body: (_ x: Int, _ y: Int, _ cell: Cell) -> Void)
    {
        let previous = previous.flatMap { $0.width == width && $0.height == height ? $0 : nil }
        cells.withUnsafeBufferPointer { now in
            guard let previous else {
                for index in now.indices { body(index % width, index / width, now[index]) }
                return
            }
            previous.cells.withUnsafeBufferPointer { before in
                guard MemoryLayout<Cell>.size == MemoryLayout<UInt64>.size else {
                    for index in now.indices where now[index] != before[index] {
                        body(index % width, index / width, now[index])
                    }
                    return
                }
                // A cell is eight bytes without padding (a scalar, three flags, an optional
                // colour), so two cells are equal when their words are: a frame compares words, not
                // fields, most of them equal to the last frame's. A row the same as before is
                // passed over with one comparison of its bytes: most rows of most frames are.
                guard let nowBytes = UnsafeRawPointer(now.baseAddress),
                    let beforeBytes = UnsafeRawPointer(before.baseAddress)
                else { return }
                let rowBytes = width &* 8
                for y in 0..<height {
                    let rowOffset = y &* rowBytes
                    if System.bytesEqual(nowBytes + rowOffset, beforeBytes + rowOffset, count: rowBytes) {
                        continue
                    }
                    for x in 0..<width {
                        let offset = rowOffset &+ x &* 8
                        if nowBytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                            != beforeBytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                        {
                            body(x, y, now[y &* width &+ x])
                        }
                    }
                }
            }
        }
    }

    /// The cells of the whole rows `rows`, row by row; rows outside the grid are left out.
    package func cells(ofRows rows: Range<Int>) -> [Cell] {
        let rows = rows.clamped(to: 0..<height)
        return Array(cells[(rows.lowerBound * width)..<(rows.upperBound * width)])
    }

    /// Writes back whole rows as ``cells(ofRows:)`` gave them for `rows` of a grid this wide;
    /// cells of another count are not written.
    package mutating func put(_ saved: [Cell], inRows rows: Range<Int>) {
        let rows = rows.clamped(to: 0..<height)
        let range = (rows.lowerBound * width)..<(rows.upperBound * width)
        guard saved.count == range.count else { return }
        cells.replaceSubrange(range, with: saved)
    }

    /// Blanks every cell.
    package mutating func clear() {
        cells.withUnsafeMutableBufferPointer { $0.update(repeating: Cell()) }
    }

    /// Writes `value` in decimal, right-aligned in the `width` columns from column `x` of row `y`:
    /// its digits in `style`, the columns before them blank and plain. A number with more
    /// digits than `width` shows its last `width`. Written cell by cell, without a `String`:
    /// a table writes a few numbers in every row of every frame.
    package mutating func putNumber(_ value: Int, x: Int, y: Int, width: Int, style: CellStyle = .plain) {
        withCells(inRow: y, from: x, count: width) { cells, skipped in
            // Right to left; `index` is the column from `x` less those left of the grid, so the
            // columns cut off on either side are passed over, not written.
            var index = width - 1 - skipped
            var remaining = value.magnitude
            repeat {
                if index >= 0, index < cells.count {
                    let digit = Unicode.Scalar(UInt8(ascii: "0") + UInt8(remaining % 10))
                    cells[index] = Cell(scalar: digit, style: style)
                }
                remaining /= 10
                index -= 1
            } while remaining > 0 && index >= -skipped
            if value < 0, index >= -skipped {
                if index >= 0, index < cells.count { cells[index] = Cell(scalar: "-", style: style) }
                index -= 1
            }
            while index >= 0 {
                if index < cells.count { cells[index] = Cell() }
                index -= 1
            }
        }
    }

    /// Writes `count` copies of `cell`, whose character takes one column, from column `x` of
    /// row `y`, clipped to the grid. Rules are drawn this way in every frame, without a string
    /// of them made only to be taken apart again.
    package mutating func fill(_ cell: Cell, x: Int, y: Int, count: Int) {
        withCells(inRow: y, from: x, count: count) { cells, _ in cells.update(repeating: cell) }
    }

    /// Calls `body` with the cells of row `y` from column `x`, `count` columns of them clipped
    /// to the grid, and how many of those columns fell left of it; does nothing when none of
    /// them is in the grid. One access for a run of cells: written one by one through the
    /// subscript, each costs a debug build a call, a bounds check and an exclusivity check.
    package mutating func withCells(
        inRow y: Int, from x: Int, count: Int,
        _ body: (_ cells: UnsafeMutableBufferPointer<Cell>, _ skipped: Int) -> Void
    ) {
        guard y >= 0, y < height, count > 0 else { return }
        // Added with a check: a run starting far right of the grid must clip, not trap.
        let (end, overflowed) = x.addingReportingOverflow(count)
        let first = max(0, x)
        let last = overflowed ? width : min(width, end)
        guard first < last else { return }
        // `last` > 0 here, so `x` > -`count`: the subtraction cannot overflow.
        let skipped = first - x
        let rowStart = y * width
        cells.withUnsafeMutableBufferPointer { all in
            body(UnsafeMutableBufferPointer(rebasing: all[(rowStart + first)..<(rowStart + last)]), skipped)
        }
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
        let ascii = text.utf8.withContiguousStorageIfAvailable { bytes in
            putPrintableASCII(bytes, x: x, y: y, limit: limit, style: style)
        }
        if let written = ascii ?? nil { return written }
        // The dashboard's own glyphs (rules, bars, arrows, braille graphs) are scalars that
        // stand alone as characters, one column each: no grapheme breaking for them either.
        // Written as they come; the first that does not stand alone sends the whole text to the
        // careful path below, which writes over them.
        var standsAlone = true
        for scalar in text.unicodeScalars {
            guard column < limit else { break }
            guard Self.standsAloneInOneColumn(scalar) else {
                standsAlone = false
                break
            }
            self[column, y] = Cell(scalar: scalar, style: style)
            column += 1
        }
        if standsAlone { return column }
        column = x
        for character in text {
            guard column < limit else { break }
            self[column, y] = Cell(Self.isSingleWidth(character) ? character : "?", style: style)
            column += 1
        }
        return column
    }

    /// Writes `bytes` from column `x` of row `y` up to column `limit` when each byte shown is
    /// printable ASCII; returns the column after the last one written, or `nil`, having written
    /// nothing, when one is not. What follows the cut is not read: the careful path, too, draws
    /// the characters it reaches and no further.
    ///
    /// One pass over the bytes, written straight into the cells: a frame writes a few thousand
    /// characters this way, and in a debug build an iterator and a subscript call per byte were
    /// a tenth of busmon's time.
    private mutating func putPrintableASCII(
        _ bytes: UnsafeBufferPointer<UInt8>, x: Int, y: Int, limit: Int, style: CellStyle
    ) -> Int? {
        // Subtracted with a check: a column far left of the grid must clip, not trap.
        let (room, overflowed) = limit.subtractingReportingOverflow(x)
        let shown = overflowed ? bytes.count : max(0, min(bytes.count, room))
        for index in 0..<shown {
            let byte = bytes[index]
            guard byte >= 0x20, byte < 0x7F else { return nil }
        }
        guard y >= 0, y < height else { return x + shown }
        let first = x >= 0 ? 0 : (x <= -shown ? shown : -x)
        guard first < shown else { return x + shown }
        let rowStart = y * width + x
        cells.withUnsafeMutableBufferPointer { cells in
            for index in first..<shown {
                cells[rowStart + index] = Cell(scalar: Unicode.Scalar(bytes[index]), style: style)
            }
        }
        return x + shown
    }

    /// Sets the style of `count` cells of row `y` from column `x`, keeping their characters.
    package mutating func style(x: Int, y: Int, count: Int, _ style: CellStyle) {
        withCells(inRow: y, from: x, count: count) { cells, _ in
            for index in 0..<cells.count { cells[index].style = style }
        }
    }

    /// Reverses `count` cells of row `y` from column `x`, keeping their other attributes, so a
    /// selected row keeps its colour (a leak suspect stays red, a gone object grey).
    package mutating func highlight(x: Int, y: Int, count: Int) {
        withCells(inRow: y, from: x, count: count) { cells, _ in
            for index in 0..<cells.count { cells[index].style.reverse = true }
        }
    }

    /// Row `y` as text, trailing spaces removed.
    package func row(_ y: Int) -> String {
        guard y >= 0, y < height else { return "" }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: cells[(y * width)..<(y * width + width)].lazy.map(\.scalar))
        var text = String(scalars)
        while text.last == " " { text.removeLast() }
        return text
    }

    /// The whole grid as text, one line per row, trailing spaces removed.
    package var text: String {
        (0..<height).map(row).joined(separator: "\n")
    }

    /// Whether `scalar` is a character by itself in any text (it neither extends nor joins the
    /// scalars around it) and takes one column: printable ASCII, Latin-1 and Latin letters,
    /// general punctuation, arrows and mathematical operators, box drawing, blocks, geometric
    /// shapes before the two that are emoji, and braille. None of these is emoji-presented.
    static func standsAloneInOneColumn(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        // Not the soft hyphen (U+00AD), which terminals show as a hyphen or as nothing.
        case 0x20..<0x7F, 0xA0..<0xAD, 0xAE..<0x300, 0x2010..<0x2028, 0x2030..<0x205F, 0x2190..<0x231A,
            0x2500..<0x25FD, 0x2800..<0x2900:
            return true
        default:
            return false
        }
    }

    /// Whether `character` takes one terminal column: printable, not a combining sequence of
    /// several columns, not an East Asian wide or emoji character.
    static func isSingleWidth(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1 else {
            return false
        }
        let value = scalar.value
        if standsAloneInOneColumn(scalar) { return true }
        if value < 0x20 || (value >= 0x7F && value < 0xA0) { return false }
        // Format characters (bidirectional controls, zero-width spaces and joiners, the byte
        // order mark) and marks alone take no column: a name drawn with one would pass for
        // another, and the columns after it would shift.
        switch scalar.properties.generalCategory {
        case .format, .nonspacingMark, .enclosingMark: return false
        default: break
        }
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
