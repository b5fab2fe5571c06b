import Testing

@testable import Dashboard
@testable import ScreenGrid

/// Text written into the grid takes one column per character, whichever path writes it.
@Suite("Cell grid")
struct CellGridTests {
    @Test(
        "each character takes one column; what cannot is a ?",
        arguments: [
            // Printable ASCII, a byte a column.
            ("LoginScreen #41", "LoginScreen #41"),
            // The dashboard's glyphs: rules, corners, bars, arrows, braille.
            ("─┬│└▁▂▃█ → ⣀⣤", "─┬│└▁▂▃█ → ⣀⣤"),
            ("café…", "café…"),
            // A letter with a combining accent is one character of two scalars: ? in one column.
            ("e\u{301}x", "?x"),
            ("─e\u{301}─", "─?─"),
            // Wide and emoji characters would take two columns.
            ("日本", "??"),
            ("ok 👍 go", "ok ? go"),
            // An arrow made emoji by its selector is one character of two scalars.
            ("↔\u{FE0F}!", "?!"),
            // Characters that show nothing, and a mark alone, would let a name pass for another
            // and shift the columns after them.
            ("Log\u{200B}in", "Log?in"),
            ("\u{FEFF}a\u{AD}b\u{202E}c", "?a?b?c"),
            ("\u{301}x", "?x"),
        ])
    func eachCharacterTakesOneColumn(text: String, shown: String) {
        var grid = CellGrid(width: 20, height: 1)
        let end = grid.put(text, x: 1, y: 0)
        #expect(grid.row(0) == " " + shown)
        #expect(end == 1 + shown.unicodeScalars.count)
    }

    @Test(
        "a number is written right-aligned, as its text would be, only its digits styled",
        arguments: [
            (0, 4, "   0"), (42, 4, "  42"), (12345, 4, "2345"), (-7, 4, "  -7"), (-1234, 4, "1234"),
            (9, 1, "9"),
        ])
    func numbersAreRightAligned(value: Int, width: Int, shown: String) {
        var grid = CellGrid(width: 6, height: 1)
        grid.put("xxxxxx", x: 0, y: 0)
        grid.putNumber(value, x: 1, y: 0, width: width, style: CellStyle(bold: true))
        #expect(grid.row(0) == "x" + shown + String(repeating: "x", count: 5 - width))
        let digits = min(width, String(value).count)
        for column in 1...width {
            let styled = column > width - digits
            #expect(grid[column, 0].style == (styled ? CellStyle(bold: true) : .plain), "column \(column)")
        }
    }

    @Test("runs of cells (numbers, fills, styles, sparklines) clip at either edge as cell-by-cell writes do")
    func runsClipAsSingleCellsDo() {
        let bold = CellStyle(bold: true)
        for x in [Int.min, -9, -5, -3, -1, 0, 2, 4, 5, 9, Int.max - 2, Int.max] {
            for value in [0, 7, -7, 123, -4567, Int.min] {
                for width in [0, 1, 3, 6] {
                    var runs = CellGrid(width: 5, height: 1)
                    var cells = runs
                    runs.put("xxxxx", x: 0, y: 0)
                    cells.put("xxxxx", x: 0, y: 0)
                    runs.putNumber(value, x: x, y: 0, width: width, style: bold)
                    // The same number written a cell at a time, right to left.
                    let digits = Array(String(value.magnitude).unicodeScalars)
                    let text = (value < 0 ? ["-"] : []) + digits
                    for offset in 0..<width {
                        let fromRight = width - 1 - offset
                        let (column, overflowed) = x.addingReportingOverflow(offset)
                        guard !overflowed else { break }
                        if fromRight < text.count {
                            cells[column, 0] = Cell(scalar: text[text.count - 1 - fromRight], style: bold)
                        } else {
                            cells[column, 0] = Cell()
                        }
                    }
                    #expect(runs == cells, "putNumber(\(value), x: \(x), width: \(width))")
                }
            }
            for count in [0, 1, 4, 12] {
                var runs = CellGrid(width: 5, height: 2)
                runs.put("abcde", x: 0, y: 0)
                var cells = runs
                runs.fill(Cell("─", style: bold), x: x, y: 1, count: count)
                runs.style(x: x, y: 0, count: count, bold)
                runs.highlight(x: x, y: 0, count: count)
                for offset in 0..<count {
                    let (column, overflowed) = x.addingReportingOverflow(offset)
                    guard !overflowed else { break }
                    cells[column, 1] = Cell("─", style: bold)
                    var cell = cells[column, 0]
                    cell.style = CellStyle(bold: true, reverse: true)
                    cells[column, 0] = cell
                }
                #expect(runs == cells, "x: \(x), count: \(count)")
            }
        }
        var grid = CellGrid(width: 5, height: 1)
        Glyphs.unicode.drawSparkline([1, 2, 4, 8], into: &grid, x: -2, y: 0, style: .plain)
        #expect(grid.row(0) == "▄█")
        grid.fill(Cell("x"), x: 0, y: 1, count: 5)
        grid.fill(Cell("x"), x: 0, y: -1, count: 5)
        #expect(grid.row(0) == "▄█")
    }

    @Test("a sparkline drawn into cells reads as its text, clipped at the grid's edge")
    func sparklinesDrawAColumnEach() {
        var grid = CellGrid(width: 5, height: 1)
        Glyphs.unicode.drawSparkline([0, 1, 2, 4, 8, 8], into: &grid, x: 1, y: 0, style: .plain)
        #expect(grid.row(0) == "  ▁▂▄")
        #expect(Glyphs.unicode.sparkline([0, 1, 2, 4, 8, 8]) == " ▁▂▄██")
        // Counts an app made up, too large to scale in whole numbers, still draw.
        grid.put("     ", x: 0, y: 0)
        Glyphs.unicode.drawSparkline([Int.max, Int.max / 2, 1, 0], into: &grid, x: 0, y: 0, style: .plain)
        #expect(grid.row(0) == "█▄▁")
    }

    @Test("text is cut at the grid's edge and at the width asked for")
    func textIsCut() {
        var grid = CellGrid(width: 6, height: 2)
        #expect(grid.put("──────────", x: 2, y: 0) == 6)
        #expect(grid.row(0) == "  ────")
        #expect(grid.put("abcdef", x: 0, y: 1, maxWidth: 3) == 3)
        #expect(grid.row(1) == "abc")
    }

    @Test("plain text starting left of the grid, below it, or cut short is written as it shows")
    func plainTextAtTheEdges() {
        var grid = CellGrid(width: 6, height: 2)
        #expect(grid.put("hello", x: -2, y: 0) == 3)
        #expect(grid.row(0) == "llo")
        #expect(grid.put("abc", x: 0, y: 2) == 3)
        #expect(grid.put("abc", x: 0, y: -1) == 3)
        #expect(grid.text == "llo\n")
        // Cut after the e, its accent is cut off with the rest.
        #expect(grid.put("abce\u{301}", x: 0, y: 1, maxWidth: 4) == 4)
        #expect(grid.row(1) == "abce")
        #expect(grid.put("xyz", x: 7, y: 1) == 7)
        #expect(grid.put("xyz", x: Int.min, y: 1) == Int.min + 3)
        #expect(grid.row(1) == "abce")
    }

    @Test("a time of day shows the milliseconds the wire's microseconds say, not one less")
    func clockReadsMicroseconds() {
        // 1796458245.1, .3 and .6 are each a little less than that as binary numbers.
        for (time, millis) in [
            (1_796_458_245.1, ".100"), (1_796_458_245.3, ".300"), (1_796_458_245.6, ".600"),
        ] {
            #expect(TextFormat.clock(time).hasSuffix(millis), "\(TextFormat.clock(time))")
        }
        #expect(TextFormat.clock(1_796_458_245.999_999_7).hasSuffix(":46.000"))
        #expect(TextFormat.clock(1_796_458_245.000_4).hasSuffix(":45.000"))
        #expect(TextFormat.clock(1_796_458_245.999_4).hasSuffix(":45.999"))
    }

    @Test("text is measured and searched byte by byte when it is plain, by character when not")
    func textIsMeasuredAndSearched() {
        #expect(TextFormat.characterCount("12,345") == 6)
        #expect(TextFormat.characterCount("café") == 4)
        #expect(TextFormat.characterCount("e\u{301}") == 1)
        #expect(TextFormat.right("42", width: 5) == "   42")
        // Counts and durations an app sends may be as large as a count or a duration can be.
        #expect(TextFormat.count(.max, width: 4) == "9.2E")
        #expect(TextFormat.count(.max, width: 9) == "9.22E")
        #expect(TextFormat.count(999_999_999_999_999_999, width: 5) == "1.00E")
        #expect(TextFormat.count(12_345_678, width: 6) == "12.35M")
        #expect(TextFormat.count(999_400, width: 4) == "999k")
        #expect(TextFormat.count(999_400, width: 3) == "1M")
        #expect(TextFormat.elapsed(.seconds(Int64.max)) == "> 1e6 y")
        // Durations stay short enough for a column, however long.
        #expect(TextFormat.elapsed(.seconds(3 * 3600 + 120)) == "3h 02m")
        #expect(TextFormat.elapsed(.seconds(5 * 86_400 + 7 * 3600)) == "5d 07h")
        #expect(TextFormat.elapsed(.seconds(1_000_000_000)) == "31.7 y")
        #expect(TextFormat.elapsed(.seconds(999_999 * 31_557_600)) == "999999 y")
        #expect(TextFormat.right("caf\u{E9}", width: 5) == " café")
        #expect(TextFormat.text("simapp (pid 7, bus simapp)", contains: "bus simapp"))
        #expect(TextFormat.text("bbus x", contains: "bus x"))
        #expect(!TextFormat.text("bus simap", contains: "bus simapp"))
        #expect(!TextFormat.text("simapp (bus other)", contains: "bus simapp"))
        #expect(TextFormat.text("any", contains: ""))
    }

    @Test("a cell holds one scalar, and a character of several is drawn as ?")
    func aCellHoldsOneScalar() {
        #expect(Cell("│").scalar == "│")
        #expect(Cell("e\u{301}").character == "?")
        #expect(Cell().character == " ")
        #expect(MemoryLayout<Cell>.size <= 8)
    }

    @Test("a frame tells the terminal only the cells that changed, or all of them after a resize")
    func changesSinceTheLastFrame() {
        var before = CellGrid(width: 4, height: 2)
        before.put("abcd", x: 0, y: 0)
        var now = before
        now.put("X", x: 1, y: 0)
        now.put("─", x: 3, y: 1, style: CellStyle(bold: true))
        var changes: [String] = []
        now.forEachChange(since: before) { x, y, cell in changes.append("\(x),\(y)=\(cell.character)") }
        #expect(changes == ["1,0=X", "3,1=─"])

        // Rows that did not change are passed over whole; the ones around them are still read.
        var tall = CellGrid(width: 3, height: 3)
        tall.put("abc", x: 0, y: 1)
        var next = tall
        next.put("z", x: 2, y: 0)
        next.put("y", x: 0, y: 2)
        changes = []
        next.forEachChange(since: tall) { x, y, cell in changes.append("\(x),\(y)=\(cell.character)") }
        #expect(changes == ["2,0=z", "0,2=y"])

        var all = 0
        now.forEachChange(since: CellGrid(width: 5, height: 2)) { _, _, _ in all += 1 }
        #expect(all == 8)
        all = 0
        now.forEachChange(since: nil) { _, _, _ in all += 1 }
        #expect(all == 8)
    }
}
