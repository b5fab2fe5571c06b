import BusMonitor
import BusWire
import EventBus

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

    init(width: Int) {
        wide = width >= 110
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

/// The log lines one frame shows, and where they stand in the log.
struct LogView {
    /// Sequence numbers of the lines shown, top first.
    let sequences: [Int]
    /// The selected line, unless following.
    let selected: Int?
    /// The selected line's position among the matching lines, from 1; 0 when none.
    let position: Int
    /// Lines that pass the filter.
    let matching: Int
    /// Lines the filter left unchecked because they came too fast.
    let unchecked: Int
    /// Whether the log shows its newest lines as they come.
    let isFollowing: Bool
}

/// Everything one frame shows, as values: the state drawn, the layout, which rows are in view,
/// the key bar. Drawing is a function of this alone; it changes nothing.
struct DashboardView {
    let layout: DashboardLayout
    /// The state drawn: the frozen copy while paused.
    let state: DashboardState
    let title: String
    let options: DashboardOptions
    let glyphs: Glyphs
    let isPaused: Bool
    /// The time the tables are drawn for: the moment of pausing while paused.
    let shownNow: Double
    let filter: LogFilter?
    let prompt: String?
    let overlay: DashboardController.Overlay?
    /// The source's recent message, if any.
    let message: String?
    let focus: PaneFocus
    let tableSelection: Int
    /// Rows of the tables shown (the last index is the wildcard row).
    let tableRows: Range<Int>
    /// The members of the Fleet pane in view.
    let fleet: FleetView
    /// The classes or objects of the Observers pane in view.
    let observers: ObserversView
    let log: LogView
    let keyMap: KeyMap

    /// Draws the whole screen; `grid` must be blank and of the layout's size.
    func draw(into grid: inout CellGrid) {
        guard !layout.isTooSmall else {
            drawTooSmall(&grid)
            return
        }
        drawHeader(&grid, state: state, now: shownNow)
        for (index, pane) in DashboardController.panes.enumerated() {
            pane.draw(
                into: &grid, area: layout.panes[index], view: self,
                focusedPart: focus.pane == index ? focus.part : nil)
        }
        drawBottomBar(&grid)
        switch overlay {
        case .help(let scroll): drawHelp(&grid, scroll: scroll)
        case .detail(let entry, let scroll): drawDetail(&grid, entry: entry, scroll: scroll)
        case nil: break
        }
    }

    // MARK: - Styles

    func style(
        bold: Bool = false, reverse: Bool = false, dim: Bool = false, color: CellStyle.Color? = nil
    ) -> CellStyle {
        CellStyle(bold: bold, reverse: reverse, dim: dim, color: options.color ? color : nil)
    }

    // MARK: - Header

    /// One item of the header's right side.
    private struct HeaderItem {
        /// Left to right on screen.
        let order: Int
        /// Lower is kept first when the row is short of room.
        let priority: Int
        var text: String
        let style: CellStyle
        /// Whether the text may be shortened (to no less than 8 characters) rather than left out.
        var canShorten = false
    }

    /// The title on the left; on the right, as room allows, the uptime, the rate, a fleet's size
    /// (`3 apps, 1 quiet`), the source's state, its newest warning, drops, leak suspects, the
    /// filter and PAUSED. When room is short the least needed go first (a long filter or warning
    /// is shortened), so the uptime, the state, the drops and the suspects stay while a filter is
    /// typed or applied.
    private func drawHeader(_ grid: inout CellGrid, state: DashboardState, now: Double) {
        var items: [HeaderItem] = [
            HeaderItem(
                order: 0, priority: 3, text: "up " + TextFormat.duration(now - (state.startTime ?? now)),
                style: style()),
            HeaderItem(
                order: 1, priority: 4,
                text: TextFormat.rate(state.totalMeter.rate(at: state.sourceTime(at: now))) + " ev/s",
                style: style(bold: true)),
        ]
        if let fleet = state.fleet {
            let trouble = fleet.quietCount + fleet.goneCount > 0
            items.append(
                HeaderItem(
                    order: 2, priority: 2, text: Self.fleetSummary(fleet),
                    style: trouble ? style(bold: true, color: .yellow) : style(bold: true)))
        }
        if let status = state.status {
            items.append(HeaderItem(order: 3, priority: 2, text: status, style: style(color: .green)))
        }
        if let warning = state.warning {
            items.append(
                HeaderItem(
                    order: 4, priority: 6, text: "! " + warning.text, style: warningStyle, canShorten: true))
        }
        if state.droppedEvents > 0 {
            items.append(
                HeaderItem(
                    order: 5, priority: 1,
                    text: TextFormat.grouped(state.droppedEvents) + " dropped (too fast)",
                    style: style(bold: true, reverse: true, color: .red)))
        }
        let suspects = state.observers.suspectCount
        if suspects > 0 {
            items.append(
                HeaderItem(
                    order: 6, priority: 1,
                    text: "\(suspects) leak \(suspects == 1 ? "suspect" : "suspects")",
                    style: style(bold: true, reverse: true, color: .red)))
        }
        if let filter {
            items.append(
                HeaderItem(
                    order: 7, priority: 5, text: "filter: " + filter.expression,
                    style: style(bold: true, color: .yellow),
                    canShorten: true))
        }
        if isPaused {
            items.append(
                HeaderItem(
                    order: 8, priority: 0, text: " PAUSED ",
                    style: style(bold: true, reverse: true, color: .yellow)))
        }

        // Keep at least 20 columns for the title; each item takes two columns of space before it.
        var room = grid.width - 20
        var kept: [HeaderItem] = []
        for var item in items.sorted(by: { $0.priority < $1.priority }) {
            let needed = item.text.count + 2
            if needed <= room {
                room -= needed
                kept.append(item)
            } else if item.canShorten, room - 2 >= 8 {
                item.text = TextFormat.truncate(item.text, width: room - 2, ellipsis: glyphs.ellipsis)
                room -= item.text.count + 2
                kept.append(item)
            }
        }
        var x = grid.width
        var rightStart = grid.width
        for (index, item) in kept.sorted(by: { $0.order > $1.order }).enumerated() {
            x -= item.text.count + (index == 0 ? 0 : 2)
            grid.put(item.text, x: x, y: 0, style: item.style)
            if index > 0 { grid.put("  ", x: x + item.text.count, y: 0) }
            rightStart = x
        }
        let titleEnd = grid.put(
            TextFormat.truncate(title, width: rightStart - 2, ellipsis: glyphs.ellipsis), x: 0, y: 0,
            style: style(bold: true, color: .cyan))
        if let busName = state.busName, title != busName, !title.contains("bus " + busName) {
            let room = rightStart - 2 - titleEnd - 2
            if room >= 6 {
                grid.put(
                    TextFormat.truncate("bus " + busName, width: room, ellipsis: glyphs.ellipsis),
                    x: titleEnd + 2,
                    y: 0)
            }
        }
    }

    // MARK: - Tables

    /// Draws the tables into `area`: a title rule, column titles, then rows.
    func drawTables(_ grid: inout CellGrid, area: Rect, focusedPart: Int?) {
        let columns = layout.columns
        let now = shownNow
        let paneTitles = DashboardController.panes[DashboardController.tablePane].focusTitles
        let sx = columns.subscribersX
        let ruleY = area.y
        drawRule(&grid, y: ruleY, from: 0, to: sx, title: paneTitles[0], focused: focusedPart == 0)
        grid.put(String(glyphs.teeDown), x: sx, y: ruleY, style: style(dim: true))
        drawRule(
            &grid, y: ruleY, from: sx + 1, to: grid.width, title: paneTitles[1], focused: focusedPart == 1)

        let headerStyle = style(bold: true)
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
        grid.put(String(glyphs.vertical), x: sx, y: area.y + 1, style: style(dim: true))
        let titles =
            columns.wide
            ? ["LIVE", "DEAD", "RECL", "UNSUB", "CANC", "DUP", "CHG"] : ["LIVE", "DEAD", "RECL", "CHG"]
        let widths = columns.wide ? TableColumns.wideSubscriberWidths : TableColumns.narrowSubscriberWidths
        x = sx + 1
        for (title, width) in zip(titles, widths) {
            grid.put(TextFormat.right(title, width: width), x: x, y: area.y + 1, style: headerStyle)
            x += width
        }

        for (offset, index) in tableRows.enumerated() {
            let y = area.y + 2 + offset
            if index < state.rows.count {
                let row = state.rows[index]
                drawTypeRow(
                    &grid, y: y, name: row.name, published: row.published, meter: row.meter,
                    unheard: row.unheard, columns: columns, now: now, isWildcard: false)
                drawSubscriberRow(&grid, y: y, tracker: row.subscribers, columns: columns, now: now)
            } else {
                drawTypeRow(
                    &grid, y: y, name: "* any type", published: state.totalPublished, meter: state.totalMeter,
                    unheard: state.totalUnheard, columns: columns, now: now, isWildcard: true)
                drawSubscriberRow(&grid, y: y, tracker: state.wildcard, columns: columns, now: now)
            }
            grid.put(String(glyphs.vertical), x: sx, y: y, style: style(dim: true))
            if index == tableSelection {
                switch focusedPart {
                case 0: grid.style(x: 0, y: y, count: sx, style(reverse: true))
                case 1: grid.style(x: sx + 1, y: y, count: grid.width - sx - 1, style(reverse: true))
                default: break
                }
            }
        }
        if state.rows.isEmpty {
            grid.put("waiting for events" + glyphs.ellipsis, x: 0, y: area.y + 2, style: style(dim: true))
        }
    }

    private func drawTypeRow(
        _ grid: inout CellGrid, y: Int, name: String, published: Int, meter: RateMeter, unheard: Int,
        columns: TableColumns, now: Double, isWildcard: Bool
    ) {
        var x = 0
        let nameStyle = isWildcard ? style(bold: true, dim: false) : style()
        grid.put(
            TextFormat.truncate(name, width: columns.name - 1, ellipsis: glyphs.ellipsis), x: x, y: y,
            style: nameStyle)
        x += columns.name
        grid.put(
            TextFormat.right(TextFormat.count(published, width: columns.count - 1), width: columns.count),
            x: x, y: y, style: isWildcard ? style(bold: true) : style())
        x += columns.count
        // Rates run on the source's clock: a replay shows the recording's.
        let sourceNow = state.sourceTime(at: now)
        grid.put(
            TextFormat.right(TextFormat.rate(meter.rate(at: sourceNow)), width: columns.rate), x: x, y: y)
        x += columns.rate + 1
        grid.put(
            glyphs.sparkline(meter.history(seconds: columns.spark, at: sourceNow)), x: x, y: y,
            style: style(color: isWildcard ? .magenta : .cyan))
        x += columns.spark + 1
        if columns.unheard > 0 {
            grid.put(
                TextFormat.right(
                    TextFormat.count(unheard, width: columns.unheard - 1), width: columns.unheard),
                x: x, y: y, style: unheard > 0 ? style(color: .yellow) : style(dim: true))
        }
    }

    private func drawSubscriberRow(
        _ grid: inout CellGrid, y: Int, tracker: SubscriberTracker, columns: TableColumns, now: Double
    ) {
        let counts = tracker.counts
        let liveChange = tracker.liveChange.flatMap { $0.isRecent(at: now) ? $0 : nil }
        let reclaimed = tracker.reclaimChange.map { $0.isRecent(at: now) } ?? false
        var cells: [(String, CellStyle)] = []
        var liveStyle = style(bold: true)
        if let liveChange {
            liveStyle =
                liveChange.delta < 0
                ? style(bold: true, reverse: true, color: .red) : style(bold: true, color: .green)
        }
        cells.append((String(counts.live), liveStyle))
        if counts.dead > 0 {
            cells.append((String(counts.dead), style(bold: true, color: .yellow)))
        } else if let recent = tracker.recentDead, recent.isRecent(at: now) {
            // Cleaned up a moment ago: the count seen last, dim.
            cells.append((String(recent.delta), style(dim: true, color: .yellow)))
        } else {
            cells.append(("0", style(dim: true)))
        }
        cells.append(
            (String(counts.reclaimed), reclaimed ? style(bold: true, reverse: true, color: .yellow) : style())
        )
        if columns.wide {
            cells.append((String(counts.unsubscribed), style()))
            cells.append((String(counts.cancelled), style()))
            cells.append(
                (String(counts.duplicates), counts.duplicates > 0 ? style(color: .magenta) : style()))
        }
        if let liveChange {
            let marker = (liveChange.delta < 0 ? glyphs.drop : glyphs.rise) + String(abs(liveChange.delta))
            cells.append((marker, style(bold: true, color: liveChange.delta < 0 ? .red : .green)))
        } else {
            cells.append(("", style()))
        }
        let widths = columns.wide ? TableColumns.wideSubscriberWidths : TableColumns.narrowSubscriberWidths
        var x = columns.subscribersX + 1
        for ((text, cellStyle), width) in zip(cells, widths) {
            let shown = TextFormat.right(text, width: width - 1)
            grid.put(" " + shown, x: x, y: y)
            grid.style(
                x: x + 1 + shown.count - text.count, y: y, count: min(text.count, width - 1), cellStyle)
            x += width
        }
    }

    /// A horizontal line with a title, the title reversed when its pane has focus.
    func drawRule(
        _ grid: inout CellGrid, y: Int, from start: Int, to end: Int, title: String, focused: Bool
    ) {
        guard end > start else { return }
        grid.put(
            String(repeating: glyphs.horizontal, count: end - start), x: start, y: y, style: style(dim: true))
        grid.put(
            " " + title + " ", x: start + 1, y: y,
            style: focused ? style(bold: true, reverse: true, color: .cyan) : style(bold: true),
            maxWidth: end - start - 1)
    }

    // MARK: - Log

    /// Draws the log into `area`: a title rule with the log's state, then lines.
    func drawLog(_ grid: inout CellGrid, area: Rect, focused: Bool) {
        let columns = layout.columns
        let titleRow = area.y
        let sequences = log.sequences
        let selected = log.selected
        let title = DashboardController.panes[DashboardController.logPane].focusTitles[0]

        drawRule(&grid, y: titleRow, from: 0, to: grid.width, title: title, focused: focused)
        var info: String
        if isPaused {
            info = "PAUSED, space resumes"
        } else if log.isFollowing {
            info = "following"
        } else {
            // `G` acts on the focused pane, so it is offered only while the log has the focus.
            info = "line \(log.position)/\(log.matching), " + (focused ? "G follows" : "not following")
        }
        if filter != nil {
            info += ", \(log.matching) of \(state.log.count) match"
            if log.unchecked > 0 { info += ", \(log.unchecked) too fast to check" }
        }
        let infoX = 7
        let infoEnd = grid.put(
            " " + info + " ", x: infoX, y: titleRow,
            style: isPaused ? style(bold: true, color: .yellow) : style(dim: false),
            maxWidth: grid.width - infoX - 1)
        if let text = message {
            let room = grid.width - infoEnd - 3
            if room > 4 {
                let shown = " " + TextFormat.truncate(text, width: room - 2, ellipsis: glyphs.ellipsis) + " "
                grid.put(
                    shown, x: grid.width - 1 - shown.count, y: titleRow,
                    style: style(bold: true, color: .green))
            }
        }

        let timeWidth = 12
        let appX = timeWidth + 1
        let typeX = appX + layout.logAppWidth
        let detailX = typeX + columns.name
        let receiversWidth = 4
        for (offset, sequence) in sequences.enumerated() {
            guard let entry = state.log[sequence] else { continue }
            let y = titleRow + 1 + offset
            grid.put(TextFormat.clock(entry.time), x: 0, y: y, style: style(dim: true))
            switch entry.content {
            case .event(let event):
                if layout.logAppWidth > 0, let origin = event.origin {
                    let label = state.fleet?.label(for: origin) ?? origin.app
                    grid.put(
                        TextFormat.truncate(label, width: layout.logAppWidth - 1, ellipsis: glyphs.ellipsis),
                        x: appX, y: y, style: style(color: .magenta))
                }
                grid.put(
                    TextFormat.truncate(event.typeName, width: columns.name - 1, ellipsis: glyphs.ellipsis),
                    x: typeX, y: y, style: style(color: .cyan))
                let detailWidth = grid.width - detailX - receiversWidth - 1
                grid.put(
                    TextFormat.truncate(event.payloadText, width: detailWidth, ellipsis: glyphs.ellipsis),
                    x: detailX, y: y)
                grid.put(
                    TextFormat.right(String(event.receivers), width: receiversWidth),
                    x: grid.width - receiversWidth,
                    y: y, style: event.receivers == 0 ? style(color: .yellow) : style(dim: true))
            case .lifecycle(let change):
                let text = glyphs.bullet + " " + change.description
                grid.put(
                    TextFormat.truncate(text, width: grid.width - appX, ellipsis: glyphs.ellipsis), x: appX,
                    y: y,
                    style: lifecycleStyle(change.kind))
            case .reclaim(let reclaim):
                let text = glyphs.bullet + " " + reclaim.description
                grid.put(
                    TextFormat.truncate(text, width: grid.width - appX, ellipsis: glyphs.ellipsis), x: appX,
                    y: y, style: lifecycleStyle(.reclaimed))
            case .notice(let notice):
                let text = glyphs.bullet + " " + notice.text
                grid.put(
                    TextFormat.truncate(text, width: grid.width - appX, ellipsis: glyphs.ellipsis), x: appX,
                    y: y, style: noticeStyle(notice))
            }
            if sequence == selected, focused {
                grid.style(x: 0, y: y, count: grid.width, style(reverse: true))
            }
        }
        if sequences.isEmpty {
            let text = filter == nil ? "no events yet" : "no lines match the filter"
            grid.put(text, x: typeX, y: titleRow + 1, style: style(dim: true))
        }
    }

    /// A warning from the source in bold red; other notices in bold.
    private func noticeStyle(_ notice: SourceNotice) -> CellStyle {
        notice.isWarning ? warningStyle : style(bold: true)
    }

    /// What needs the person's attention: drops, a source's warnings.
    var warningStyle: CellStyle { style(bold: true, color: .red) }

    private func lifecycleStyle(_ kind: SubscriberLifecycleEvent.Kind) -> CellStyle {
        switch kind {
        case .subscribed: return style(color: .green)
        case .duplicateSubscription: return style(bold: true, color: .magenta)
        case .unsubscribed, .cancelled: return style(color: .blue)
        case .reclaimed: return style(bold: true, color: .yellow)
        case .leakSuspected: return style(bold: true, color: .red)
        case .leakCleared: return style(color: .green)
        }
    }

    // MARK: - Bottom bar

    private func drawBottomBar(_ grid: inout CellGrid) {
        let y = grid.height - 1
        if let prompt {
            let end = grid.put("Filter: ", x: 0, y: y, style: style(bold: true, color: .yellow))
            // A filter longer than the line shows its end, where the cursor is.
            let room = max(0, grid.width - end - 1)
            let shown =
                prompt.count <= room ? prompt : glyphs.ellipsis + String(prompt.suffix(max(0, room - 1)))
            let cursor = grid.put(shown, x: end, y: y, maxWidth: room)
            grid.put(" ", x: cursor, y: y, style: style(reverse: true))
            let hint = "Enter apply  Esc cancel  !text hides"
            if cursor + 3 + hint.count <= grid.width {
                grid.put(hint, x: grid.width - hint.count, y: y, style: style(dim: true))
            }
            return
        }
        // Most needed first: a narrow screen shows as many as fit, and help lists them all.
        let items = keyMap.bar.map { ($0.keys, $0.text) }
        var x = 0
        for (key, label) in items {
            let width = key.count + label.count + 2
            guard x + width <= grid.width else { break }
            x = grid.put(key, x: x, y: y, style: style(bold: true))
            x = grid.put(" " + label + " ", x: x, y: y, style: style(reverse: true, color: .cyan))
        }
    }

    // MARK: - Overlays

    /// A framed box centred on the screen.
    ///
    /// - Returns: The inside of the box: its first column, first row, width and height.
    private func drawBox(
        _ grid: inout CellGrid, title: String, width innerWidth: Int, height innerHeight: Int
    ) -> (x: Int, y: Int, width: Int, height: Int) {
        // Two columns of padding inside the frame on each side; one row of frame above and below.
        let width = min(grid.width - 2, innerWidth + 4)
        let height = min(grid.height - 2, max(0, innerHeight) + 2)
        let left = (grid.width - width) / 2
        let top = (grid.height - height) / 2
        let border = style(bold: true, color: .cyan)
        for y in top..<(top + height) {
            grid.put(String(repeating: " ", count: width), x: left, y: y)
        }
        let horizontal = String(repeating: glyphs.horizontal, count: width - 2)
        grid.put(
            String(glyphs.topLeft) + horizontal + String(glyphs.topRight), x: left, y: top, style: border)
        grid.put(
            String(glyphs.bottomLeft) + horizontal + String(glyphs.bottomRight), x: left, y: top + height - 1,
            style: border)
        for y in (top + 1)..<(top + height - 1) {
            grid.put(String(glyphs.vertical), x: left, y: y, style: border)
            grid.put(String(glyphs.vertical), x: left + width - 1, y: y, style: border)
        }
        grid.put(" " + title + " ", x: left + 2, y: top, style: style(bold: true), maxWidth: width - 4)
        return (left + 2, top + 1, width - 4, height - 2)
    }

    /// The help's rows for this screen: the keys, then the panes' column notes.
    /// The help's rows for this screen: the keys, then the column notes of the panes shown for
    /// `state`.
    static func helpText(keyMap: KeyMap, state: DashboardState, width: Int, height: Int) -> HelpText {
        HelpText(
            keys: keyMap.help, notes: DashboardController.shownPanes(in: state).flatMap(\.columnHelp),
            screenWidth: width, screenHeight: height)
    }

    private func drawHelp(_ grid: inout CellGrid, scroll: Int) {
        let help = Self.helpText(keyMap: keyMap, state: state, width: grid.width, height: grid.height)
        let first = max(0, min(scroll, help.maximumScroll))
        let title = help.scrolls ? "Help \(first + help.visibleRows)/\(help.rows.count)" : "Help"
        let box = drawBox(&grid, title: title, width: help.width, height: help.visibleRows)
        for (index, row) in help.rows.dropFirst(first).prefix(box.height).enumerated() {
            grid.put(
                row.keys, x: box.x, y: box.y + index, style: style(bold: true, color: .yellow),
                maxWidth: HelpText.keyWidth - 1)
            grid.put(
                row.text, x: box.x + HelpText.keyWidth, y: box.y + index,
                maxWidth: box.width - HelpText.keyWidth)
        }
        if help.scrolls {
            // Said on the bottom of the frame, so it costs no row.
            let hint = " " + glyphs.upDown + " scroll, Esc closes "
            grid.put(
                hint, x: box.x + box.width - hint.count, y: box.y + box.height, style: style(bold: true),
                maxWidth: box.width)
        }
    }

    private func drawDetail(_ grid: inout CellGrid, entry: LogEntry, scroll: Int) {
        // The inside of the box: the screen less frame and padding, at most a comfortable line.
        let width = min(grid.width - 6, 90)
        var lines: [(String, CellStyle)] = [
            ("time      " + TextFormat.clock(entry.time), style())
        ]
        switch entry.content {
        case .event(let event):
            lines.append(("type      " + event.typeName, style(bold: true, color: .cyan)))
            if let origin = event.origin {
                lines.append(("origin    app \(origin.app), host \(origin.host), pid \(origin.pid)", style()))
            }
            lines.append(("receivers \(event.receivers)", style()))
            lines.append(("", style()))
            for line in TextFormat.wrap(event.payloadText, width: width) { lines.append((line, style())) }
        case .lifecycle(let change):
            lines.append(("type      " + change.eventTypeName, style(bold: true, color: .cyan)))
            lines.append(("change    " + change.kind.rawValue + ", \(change.count)", style()))
            if let observer = change.observerTypeName { lines.append(("observer  " + observer, style())) }
            lines.append(("", style()))
            for line in TextFormat.wrap(change.description, width: width) {
                lines.append((line, lifecycleStyle(change.kind)))
            }
        case .reclaim(let reclaim):
            lines.append(("change    reclaimed, \(reclaim.count)", style(bold: true, color: .cyan)))
            lines.append(("", style()))
            for line in TextFormat.wrap(reclaim.description, width: width) {
                lines.append((line, lifecycleStyle(.reclaimed)))
            }
            lines.append(("", style()))
            for change in reclaim.changes {
                let plural = change.count == 1 ? "subscription" : "subscriptions"
                lines.append(("  \(change.count) \(change.eventTypeName) \(plural)", style()))
            }
        case .notice(let notice):
            lines.append(("source    " + title, style(bold: true, color: .cyan)))
            lines.append(("", style()))
            for line in TextFormat.wrap(notice.text, width: width) {
                lines.append((line, noticeStyle(notice)))
            }
        }
        let box = drawBox(&grid, title: "Details (Esc closes)", width: width, height: lines.count)
        let first = max(0, min(scroll, lines.count - box.height))
        for (index, (text, lineStyle)) in lines.dropFirst(first).prefix(box.height).enumerated() {
            grid.put(text, x: box.x, y: box.y + index, style: lineStyle, maxWidth: box.width)
        }
    }

    // MARK: - Too small

    private func drawTooSmall(_ grid: inout CellGrid) {
        let lines = [
            "Terminal too small",
            "\(grid.width)x\(grid.height), need \(DashboardController.minimumWidth)x\(DashboardController.minimumHeight)",
            "q quits",
        ]
        let top = max(0, (grid.height - lines.count) / 2)
        for (index, line) in lines.enumerated() {
            let text = TextFormat.truncate(line, width: grid.width, ellipsis: glyphs.ellipsis)
            grid.put(
                text, x: max(0, (grid.width - text.count) / 2), y: top + index,
                style: index == 0 ? style(bold: true, color: .yellow) : style())
        }
    }
}
