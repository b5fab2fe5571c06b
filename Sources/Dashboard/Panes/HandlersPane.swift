internal import EventBus
internal import ScreenGrid

/// The handlers: one row per observer class (or token subscriptions) and event type, with its
/// calls, average and longest time, how long its deliveries waited to start, slow calls and
/// failures, worst first. Shown once a snapshot
/// has handler rows (the bus times handlers while it is watched); Enter filters the log by the
/// row's type.
struct HandlersPane: DashboardPane {
    let focusTitles = ["Handlers"]
    let name = "handlers"
    let enterHelp = "filter the log by the handler's event type"
    let columnHelp = [
        KeyHint(
            keys: "Handlers",
            text: "per observer class (token for subscriptions without one) and type: CALLS timed, "
                + "AVG and MAX time, WAIT (p99 of how long a delivery waited to start: a main-actor hop, "
                + "an actor's mailbox, a queue; 0 when called in the publish), SLOW calls (over the bus's "
                + "threshold, 16 ms by default), FAILED (threw), DROPPED (events an async stream's "
                + "full buffer let go)"),
        KeyHint(keys: "SLOW, FAILED", text: "yellow and red; the worst handlers come first"),
        KeyHint(
            keys: "WAIT", text: "yellow when deliveries waited past the bus's slow-delivery threshold (late)"),
    ]

    /// Rows the pane lists at most before it scrolls.
    static let listedRows = 5

    /// The selected row, by its place in the ranking: the rows change places as their counts
    /// move, and a selection that followed one row down would scroll the worst out of view.
    private(set) var selection = ListSelection<Int>()
    /// The rows in view in the last frame.
    private(set) var inView = ListViewport(rows: 0..<0, selected: nil)

    private static func rows(in state: DashboardState) -> Range<Int> { state.handlers.rows.indices }

    func isShown(in state: DashboardState) -> Bool { state.handlers.hasRows }

    /// A title rule, column titles and up to ``listedRows`` rows.
    func height(screenHeight: Int, state: DashboardState) -> Int? {
        2 + min(Self.listedRows, max(1, state.handlers.rows.count))
    }

    /// On a short screen the pane keeps its title, whose note sums the handlers (failed, slow,
    /// late), so that the log keeps its lines; a row or two when there is room.
    func minimumHeight(screenHeight: Int, state: DashboardState) -> Int? { 1 }

    func contentRows(in area: Rect) -> Int { max(0, area.height - 2) }

    /// What ``draw(into:area:canvas:focusedPart:)`` reads.
    private struct DrawingInputs: Equatable {
        let tracker: HandlerTracker
        let inView: ListViewport
        let options: DashboardOptions
        let glyphs: Glyphs
    }

    func drawingInputs(canvas: PaneCanvas) -> PaneInputs? {
        PaneInputs(
            DrawingInputs(
                tracker: canvas.state.handlers, inView: inView, options: canvas.options, glyphs: canvas.glyphs
            ))
    }

    mutating func layOut(rows: Int, in context: PaneContext) {
        inView = selection.viewport(height: rows, of: Self.rows(in: context.state))
    }

    mutating func move(by delta: Int, rows: Int, in context: PaneContext) {
        selection.move(by: delta, of: Self.rows(in: context.state))
    }

    mutating func moveToFirst(in context: PaneContext) {
        move(by: Int.min / 2, rows: 0, in: context)
    }

    mutating func moveToLast(in context: PaneContext) {
        move(by: Int.max / 2, rows: 0, in: context)
    }

    mutating func open(in context: PaneContext) -> PaneEffect? {
        let rows = context.state.handlers.rows
        guard !rows.isEmpty else { return nil }
        let typeName = rows[min(selection.index, rows.count - 1)].eventTypeName
        return .filter(typeName == SubscriberLifecycleEvent.wildcardTypeName ? nil : LogFilter(typeName))
    }
}

extension HandlersPane {
    /// Column widths of the Handlers pane: the observer and the type share what the seven counts
    /// leave.
    private struct HandlerColumns {
        static let counts = [
            ("CALLS", 9), ("AVG", 10), ("MAX", 9), ("WAIT", 10), ("SLOW", 7), ("FAILED", 8), ("DROPPED", 9),
        ]
        /// Count columns left out, in turn, while the row is short of room, so that none is cut
        /// in half: DROPPED, WAIT and MAX, whose totals the title still gives (dropped, late) or
        /// that AVG and SLOW stand for.
        static let leftOutFirst = [6, 3, 2]
        /// Least room for the observer and type columns together.
        static let namesMinimum = 20
        /// Most room for each of the observer and type columns: in a wide window the counts
        /// stay near the names they count, not a hundred columns to their right.
        static let nameMaximum = 44

        let observer: Int
        let type: Int
        /// Indexes of ``counts`` shown, left to right.
        let shown: [Int]

        init(width: Int) {
            var shown = Array(Self.counts.indices)
            var needed = Self.counts.reduce(0) { $0 + $1.1 }
            for index in Self.leftOutFirst where Self.namesMinimum + needed > width {
                shown.removeAll { $0 == index }
                needed -= Self.counts[index].1
            }
            self.shown = shown
            let left = max(Self.namesMinimum, width - needed)
            observer = min(Self.nameMaximum, left / 2)
            type = min(Self.nameMaximum, left - left / 2)
        }
    }

    func draw(into grid: inout CellGrid, area: Rect, canvas: PaneCanvas, focusedPart: Int?) {
        let focused = focusedPart != nil
        guard area.height > 0 else { return }
        let tracker = canvas.state.handlers
        let title = focusTitles[0]
        canvas.drawRule(&grid, y: area.y, from: 0, to: grid.width, title: title, focused: focused)
        var notes: [String] = ["\(tracker.rows.count) \(tracker.rows.count == 1 ? "handler" : "handlers")"]
        // In the header's order.
        if tracker.failures > 0 { notes.append("\(TextFormat.grouped(tracker.failures)) failed") }
        if tracker.slowCalls > 0 { notes.append("\(TextFormat.grouped(tracker.slowCalls)) slow") }
        if tracker.slowDeliveries > 0 { notes.append("\(TextFormat.grouped(tracker.slowDeliveries)) late") }
        if tracker.dropped > 0 { notes.append("\(TextFormat.grouped(tracker.dropped)) dropped") }
        let trouble = tracker.slowCalls > 0 || tracker.slowDeliveries > 0 || tracker.failures > 0
        canvas.putRuleNote(
            &grid, notes.joined(separator: ", "), y: area.y, after: title,
            style: trouble ? canvas.warningStyle : canvas.style())
        guard area.height > 1 else { return }

        let columns = HandlerColumns(width: grid.width)
        let headerY = area.y + 1
        let headerStyle = canvas.style(bold: true)
        grid.put("OBSERVER", x: 0, y: headerY, style: headerStyle)
        grid.put("TYPE", x: columns.observer, y: headerY, style: headerStyle)
        var x = columns.observer + columns.type
        for index in columns.shown {
            let (text, width) = HandlerColumns.counts[index]
            grid.put(TextFormat.right(text, width: width), x: x, y: headerY, style: headerStyle)
            x += width
        }
        for (offset, index) in inView.rows.enumerated() {
            let row = tracker.rows[index]
            let y = area.y + 2 + offset
            guard y < area.maxY else { break }
            let base =
                row.failures > 0
                ? canvas.warningStyle
                : row.slowCalls > 0 ? canvas.style(bold: true, color: .yellow) : canvas.style()
            let observer = row.observerTypeName ?? "token"
            grid.put(
                TextFormat.truncate(observer, width: columns.observer - 1, ellipsis: canvas.glyphs.ellipsis),
                x: 0,
                y: y,
                style: row.observerTypeName == nil ? canvas.style(dim: true) : canvas.style(bold: true))
            let type =
                row.eventTypeName == SubscriberLifecycleEvent.wildcardTypeName
                ? "* any type" : row.eventTypeName
            grid.put(
                TextFormat.truncate(type, width: columns.type - 1, ellipsis: canvas.glyphs.ellipsis),
                x: columns.observer,
                y: y, style: canvas.style(color: .cyan))
            let cells: [(String, CellStyle)] = [
                (TextFormat.count(row.calls, width: 8), canvas.style()),
                (row.average.map(TextFormat.milliseconds) ?? "-", canvas.style()),
                (TextFormat.milliseconds(row.maximum), row.slowCalls > 0 ? base : canvas.style()),
                (
                    row.waits.count > 0 ? TextFormat.milliseconds(row.waits.p99) : "-",
                    row.waits.slowDeliveries > 0
                        ? canvas.style(bold: true, color: .yellow)
                        : row.waits.maximum > .zero ? canvas.style() : canvas.style(dim: true)
                ),
                (
                    TextFormat.count(row.slowCalls, width: 6),
                    row.slowCalls > 0 ? base : canvas.style(dim: true)
                ),
                (
                    TextFormat.count(row.failures, width: 7),
                    row.failures > 0 ? canvas.warningStyle : canvas.style(dim: true)
                ),
                (
                    TextFormat.count(row.dropped, width: 8),
                    row.dropped > 0 ? canvas.style(bold: true, color: .yellow) : canvas.style(dim: true)
                ),
            ]
            x = columns.observer + columns.type
            for index in columns.shown {
                let (text, cellStyle) = cells[index]
                let width = HandlerColumns.counts[index].1
                grid.put(TextFormat.right(text, width: width), x: x, y: y, style: cellStyle)
                x += width
            }
            if index == inView.selected, focused {
                grid.highlight(x: 0, y: y, count: grid.width)
            }
        }
    }
}
