internal import BusMonitor
internal import EventBus
internal import ScreenGrid

/// The tables: event types (counts, rates, sparklines, unheard) beside their subscribers
/// (live, dead, reclaimed, changes), sharing rows and a selection; the last row is the
/// wildcard. Enter filters the log by the selected type.
struct TablePane: DashboardPane {
    let focusTitles = ["Event types", "Subscribers"]
    let name = "tables"
    let enterHelp = "filter by type"
    let columnHelp = [
        KeyHint(
            keys: "COUNT RATE/s",
            text: "events published (the bus's own count), per second over 2 s; for a protocol "
                + "(any P), the events its handlers received"),
        KeyHint(keys: "LAST Ns, HIST", text: "events in each of the last N seconds, newest on the right"),
        KeyHint(keys: "LIVE DEAD RECL", text: "live, dead awaiting cleanup, reclaimed subscriptions"),
        KeyHint(
            keys: "DEAD, dim",
            text: "cleaned up in the last 3 s; to watch it, slow down with - (a simulated app: --rate 5)"),
        KeyHint(keys: "UNSUB CANC DUP", text: "unsubscribed, cancelled, duplicate subscriptions"),
        KeyHint(keys: "UNHEARD", text: "events no typed subscriber received"),
        KeyHint(
            keys: "TYPE marked", text: "a diamond (* in ASCII) after the name: the type has a sticky event"),
        KeyHint(keys: "CHG", text: "change in live subscriptions over the last 3 s, up or down"),
    ]

    /// The selected row, by position (types and subscribers share rows); the last row is the
    /// wildcard row.
    private(set) var selection = ListSelection<Int>()
    /// Rows in view in the last frame.
    private(set) var inView = 0..<0

    /// The rows' identities: their positions, the wildcard row last.
    private static func rows(in state: DashboardState) -> Range<Int> { 0..<(state.rows.count + 1) }

    /// A title rule and a row of column titles, then the rows it needs (the wildcard row
    /// included), at least 2 and at most 45% of the screen's rows less every title and the bar.
    func height(screenHeight: Int, state: DashboardState) -> Int? {
        let available = screenHeight - 5
        return 2 + max(2, min(state.rows.count + 1, available * 45 / 100))
    }

    /// Beside a Fleet pane on a short screen, 2 rows (the others scroll) before the log goes
    /// below three lines; for one app the rows above are kept, as they always were.
    func minimumHeight(screenHeight: Int, state: DashboardState) -> Int? {
        state.fleet == nil ? nil : 4
    }

    func contentRows(in area: Rect) -> Int { max(0, area.height - 2) }

    mutating func layOut(rows: Int, in context: PaneContext) {
        inView = selection.viewport(height: rows, of: Self.rows(in: context.state)).rows
    }

    mutating func move(by delta: Int, rows: Int, in context: PaneContext) {
        selection.move(by: delta, of: Self.rows(in: context.state))
    }

    mutating func moveToFirst(in context: PaneContext) {
        selection.select(at: 0, of: Self.rows(in: context.state))
    }

    mutating func moveToLast(in context: PaneContext) {
        selection.select(at: Int.max, of: Self.rows(in: context.state))
    }

    mutating func open(in context: PaneContext) -> PaneEffect? {
        let rows = context.state.rows
        // The row of other types is no one type to filter by: Enter there clears the filter.
        guard selection.index < rows.count, !rows[selection.index].isOtherTypes else { return .filter(nil) }
        return .filter(LogFilter(rows[selection.index].name))
    }
}

/// Column widths of the two tables for one screen width.
struct TableColumns: Equatable {
    let name: Int
    let count: Int
    let rate: Int
    let spark: Int
    /// 0 when the screen is too narrow for the column.
    let unheard: Int
    /// Whether the subscribers table shows unsubscribed, cancelled and duplicate counts.
    let wide: Bool
    /// Where the subscribers table starts (its separator column).
    let subscribersX: Int

    static let narrowSubscriberWidths = [5, 5, 6, 5]
    static let wideSubscriberWidths = [6, 6, 7, 7, 6, 5, 6]
    /// Seconds of history the sparklines keep at least before the wide columns take room from
    /// them: without it, widening a window from 100 columns to 110 cut the history from 33 s
    /// to 11 s.
    static let sparkKeptByWideColumns = 20

    init(width: Int) {
        let wideLayout = Self(width: width, wide: true)
        self = wideLayout.spark >= Self.sparkKeptByWideColumns ? wideLayout : Self(width: width, wide: false)
    }

    private init(width: Int, wide: Bool) {
        self.wide = wide
        let subscribersWidth =
            1 + (wide ? Self.wideSubscriberWidths : Self.narrowSubscriberWidths).reduce(0, +)
        count = wide ? 10 : 8
        rate = wide ? 9 : 7
        unheard = width >= 72 ? 8 : 0
        let nameAndSpark = width - subscribersWidth - count - rate - unheard - 2
        name = min(wide ? 26 : 20, max(8, nameAndSpark - 8))
        spark = max(1, min(60, nameAndSpark - name))
        subscribersX = name + count + rate + 2 + spark + unheard
    }
}

extension TablePane {
    /// Draws the tables into `area`: a title rule, column titles, then rows.
    func draw(into grid: inout CellGrid, area: Rect, canvas: PaneCanvas, focusedPart: Int?) {
        let columns = canvas.columns
        let now = canvas.now
        let paneTitles = focusTitles
        let sx = columns.subscribersX
        let ruleY = area.y
        canvas.drawRule(&grid, y: ruleY, from: 0, to: sx, title: paneTitles[0], focused: focusedPart == 0)
        grid.put(String(canvas.glyphs.teeDown), x: sx, y: ruleY, style: canvas.style(dim: true))
        canvas.drawRule(
            &grid, y: ruleY, from: sx + 1, to: grid.width, title: paneTitles[1], focused: focusedPart == 1)

        let headerStyle = canvas.style(bold: true)
        var x = 0
        grid.put("TYPE", x: x, y: area.y + 1, style: headerStyle)
        x += columns.name
        grid.put(TextFormat.right("COUNT", width: columns.count), x: x, y: area.y + 1, style: headerStyle)
        x += columns.count
        grid.put(TextFormat.right("RATE/s", width: columns.rate), x: x, y: area.y + 1, style: headerStyle)
        x += columns.rate + 1
        let sparkTitle = columns.spark >= 9 ? "LAST \(columns.spark)s" : "HIST"
        grid.put(sparkTitle, x: x, y: area.y + 1, style: headerStyle, maxWidth: columns.spark)
        x += columns.spark + 1
        if columns.unheard > 0 {
            grid.put(
                TextFormat.right("UNHEARD", width: columns.unheard), x: x, y: area.y + 1, style: headerStyle)
        }
        grid.put(String(canvas.glyphs.vertical), x: sx, y: area.y + 1, style: canvas.style(dim: true))
        let titles =
            columns.wide
            ? ["LIVE", "DEAD", "RECL", "UNSUB", "CANC", "DUP", "CHG"] : ["LIVE", "DEAD", "RECL", "CHG"]
        let widths = columns.wide ? TableColumns.wideSubscriberWidths : TableColumns.narrowSubscriberWidths
        x = sx + 1
        for (title, width) in zip(titles, widths) {
            grid.put(TextFormat.right(title, width: width), x: x, y: area.y + 1, style: headerStyle)
            x += width
        }

        for (offset, index) in inView.enumerated() {
            let y = area.y + 2 + offset
            if index < canvas.state.rows.count {
                let row = canvas.state.rows[index]
                drawTypeRow(
                    &grid, canvas: canvas, y: y, name: row.name, published: row.published, meter: row.meter,
                    unheard: row.unheard, columns: columns, now: now, isWildcard: false,
                    isSticky: row.sticky != nil)
                drawSubscriberRow(
                    &grid, canvas: canvas, y: y, tracker: row.subscribers, columns: columns, now: now)
            } else {
                drawTypeRow(
                    &grid, canvas: canvas, y: y, name: "* any type", published: canvas.state.totalPublished,
                    meter: canvas.state.totalMeter,
                    unheard: canvas.state.totalUnheard, columns: columns, now: now, isWildcard: true,
                    isSticky: false
                )
                drawSubscriberRow(
                    &grid, canvas: canvas, y: y, tracker: canvas.state.wildcard, columns: columns, now: now)
            }
            grid.put(String(canvas.glyphs.vertical), x: sx, y: y, style: canvas.style(dim: true))
            if index == selection.index {
                switch focusedPart {
                case 0: grid.style(x: 0, y: y, count: sx, canvas.style(reverse: true))
                case 1: grid.style(x: sx + 1, y: y, count: grid.width - sx - 1, canvas.style(reverse: true))
                default: break
                }
            }
        }
        if canvas.state.rows.isEmpty {
            grid.put(
                "waiting for events" + canvas.glyphs.ellipsis, x: 0, y: area.y + 2,
                style: canvas.style(dim: true))
        }
    }

    private func drawTypeRow(
        _ grid: inout CellGrid, canvas: PaneCanvas, y: Int, name: String, published: Int, meter: RateMeter,
        unheard: Int,
        columns: TableColumns, now: Double, isWildcard: Bool, isSticky: Bool
    ) {
        var x = 0
        let nameStyle = isWildcard ? canvas.style(bold: true, dim: false) : canvas.style()
        let nameWidth = columns.name - (isSticky ? 3 : 1)
        let shownName = TextFormat.truncate(name, width: nameWidth, ellipsis: canvas.glyphs.ellipsis)
        grid.put(shownName, x: x, y: y, style: nameStyle)
        if isSticky {
            grid.put(
                canvas.glyphs.sticky, x: x + shownName.count + 1, y: y,
                style: canvas.style(bold: true, color: .cyan))
        }
        x += columns.name
        Self.putCount(
            &grid, published, x: x, y: y, width: columns.count,
            style: isWildcard ? canvas.style(bold: true) : canvas.style())
        x += columns.count
        // Rates run on the source's clock: a replay shows the recording's.
        let sourceNow = canvas.state.sourceTime(at: now)
        grid.put(
            TextFormat.right(TextFormat.rate(meter.rate(at: sourceNow)), width: columns.rate), x: x, y: y)
        x += columns.rate + 1
        canvas.glyphs.drawSparkline(
            meter.history(seconds: columns.spark, at: sourceNow), into: &grid, x: x, y: y,
            style: canvas.style(color: isWildcard ? .magenta : .cyan))
        x += columns.spark + 1
        if columns.unheard > 0 {
            Self.putCount(
                &grid, unheard, x: x, y: y, width: columns.unheard,
                style: unheard > 0 ? canvas.style(color: .yellow) : canvas.style(dim: true))
        }
    }

    /// `value` right-aligned in the `width` columns from `x`, a blank column at least before it:
    /// written digit by digit when it fits, as most counts do in every row of every frame, and
    /// shortened with a unit (`12.3k`) when it does not.
    private static func putCount(
        _ grid: inout CellGrid, _ value: Int, x: Int, y: Int, width: Int, style: CellStyle
    ) {
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        if value >= 0, digits < width {
            grid.putNumber(value, x: x, y: y, width: width, style: style)
        } else {
            // Only the value styled, as the digits are: a reversed style must not run into the
            // gap between columns.
            let text = TextFormat.count(value, width: width - 1)
            grid.fill(Cell(), x: x, y: y, count: width)
            grid.put(text, x: x + width - TextFormat.characterCount(text), y: y, style: style)
        }
    }

    private func drawSubscriberRow(
        _ grid: inout CellGrid, canvas: PaneCanvas, y: Int, tracker: SubscriberTracker, columns: TableColumns,
        now: Double
    ) {
        let counts = tracker.counts
        // Judged on the clock they were noted on (a replay's recording time).
        let sourceNow = canvas.state.highlightTime(now: now)
        let liveChange = tracker.liveChange.flatMap { $0.isRecent(at: sourceNow) ? $0 : nil }
        let reclaimed = tracker.reclaimChange.map { $0.isRecent(at: sourceNow) } ?? false
        let widths = columns.wide ? TableColumns.wideSubscriberWidths : TableColumns.narrowSubscriberWidths
        var x = columns.subscribersX + 1
        var column = 0
        // Each column: a blank, then its value right-aligned in the rest, only the value styled.
        func number(_ value: Int, _ style: CellStyle) {
            guard column < widths.count else { return }
            Self.putCount(&grid, value, x: x, y: y, width: widths[column], style: style)
            x += widths[column]
            column += 1
        }
        var liveStyle = canvas.style(bold: true)
        if let liveChange {
            liveStyle =
                liveChange.delta < 0
                ? canvas.style(bold: true, reverse: true, color: .red)
                : canvas.style(bold: true, color: .green)
        }
        number(counts.live, liveStyle)
        if counts.dead > 0 {
            number(counts.dead, canvas.style(bold: true, color: .yellow))
        } else if let recent = tracker.recentDead, recent.isRecent(at: sourceNow) {
            // Cleaned up a moment ago: the count seen last, dim.
            number(recent.delta, canvas.style(dim: true, color: .yellow))
        } else {
            number(0, canvas.style(dim: true))
        }
        number(
            counts.reclaimed,
            reclaimed ? canvas.style(bold: true, reverse: true, color: .yellow) : canvas.style())
        if columns.wide {
            number(counts.unsubscribed, canvas.style())
            number(counts.cancelled, canvas.style())
            number(counts.duplicates, counts.duplicates > 0 ? canvas.style(color: .magenta) : canvas.style())
        }
        guard column < widths.count else { return }
        let width = widths[column]
        // The change shortened with a unit when it is too wide (a count from an app may go from
        // Int.max to 0), never cut to its last digits.
        let marker =
            liveChange.map {
                ($0.delta < 0 ? canvas.glyphs.drop : canvas.glyphs.rise)
                    + TextFormat.count(Int(clamping: $0.delta.magnitude), width: width - 2)
            } ?? ""
        let shown = TextFormat.right(marker, width: width - 1)
        grid.put(" " + shown, x: x, y: y)
        if let liveChange {
            let style = canvas.style(bold: true, color: liveChange.delta < 0 ? .red : .green)
            let styled = min(marker.count, shown.count)
            grid.style(x: x + 1 + shown.count - styled, y: y, count: styled, style)
        }
    }
}
