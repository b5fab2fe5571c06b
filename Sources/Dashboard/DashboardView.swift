internal import BusMonitor
internal import BusWire
internal import EventBus
internal import ScreenGrid

/// Everything one frame shows, as values: the state drawn, the layout, which rows are in view,
/// the key bar. Drawing is a function of this alone; it changes nothing.
struct DashboardView {
    let layout: DashboardLayout
    /// What the panes draw with: the state shown, its time, glyphs, styles, and the frame's
    /// facts they show; the header, the bar and the overlays draw with it too.
    let canvas: PaneCanvas
    let title: String
    let prompt: String?
    /// The label of a prompt that asks for a value, or `nil` for the filter prompt.
    let promptLabel: String?
    let overlay: DashboardController.Overlay?
    let focus: PaneFocus
    /// The panes as the frame laid them out, in the order of ``DashboardController/panes``.
    let panes: [any DashboardPane]
    let keyMap: KeyMap

    /// A pane as a frame drew it, kept for the next frame to copy while its inputs stay.
    struct DrawnPane {
        let inputs: PaneInputs
        let area: Rect
        let focusedPart: Int?
        let width: Int
        /// The pane's rows, whole.
        let cells: [Cell]
    }

    /// Draws the whole screen; `grid` must be blank and of the layout's size.
    ///
    /// - Parameter drawn: Panes as the last frame drew them, by index: a pane whose inputs,
    ///   area, focus and width are the same is copied from there instead of drawn.
    /// - Returns: The panes with inputs as this frame drew them, for the next frame, and how
    ///   many of them were copied.
    @discardableResult
    func draw(
        into grid: inout CellGrid, reusing drawn: [Int: DrawnPane] = [:]
    ) -> (panes: [Int: DrawnPane], copied: Int) {
        guard !layout.isTooSmall else {
            drawTooSmall(&grid)
            return ([:], 0)
        }
        var copied = 0
        drawHeader(&grid)
        var kept: [Int: DrawnPane] = [:]
        for (index, pane) in panes.enumerated() {
            let area = layout.panes[index]
            let focusedPart = focus.pane == index ? focus.part : nil
            guard let inputs = pane.drawingInputs(canvas: canvas) else {
                pane.draw(into: &grid, area: area, canvas: canvas, focusedPart: focusedPart)
                continue
            }
            let rows = area.y..<area.maxY
            if let last = drawn[index], last.inputs == inputs, last.area == area,
                last.focusedPart == focusedPart,
                last.width == grid.width
            {
                grid.put(last.cells, inRows: rows)
                kept[index] = last
                copied += 1
            } else {
                pane.draw(into: &grid, area: area, canvas: canvas, focusedPart: focusedPart)
                kept[index] = DrawnPane(
                    inputs: inputs, area: area, focusedPart: focusedPart, width: grid.width,
                    cells: grid.cells(ofRows: rows))
            }
        }
        drawBottomBar(&grid)
        switch overlay {
        case .help(let scroll): drawHelp(&grid, scroll: scroll)
        case .detail(let entry, let scroll): drawDetail(&grid, entry: entry, scroll: scroll)
        case nil: break
        }
        return (kept, copied)
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
        /// A longer text to show instead when all of it fits in the room left once every item
        /// is placed.
        var whole: String?
    }

    /// The fewest columns a shortened header text keeps, its ellipsis included.
    static let shortestHeaderText = 8

    /// The title on the left; on the right, as room allows, the uptime, the rate, a fleet's size
    /// (`3 apps, 1 quiet`), the source's state, files that stopped, its newest warning, drops,
    /// leak suspects, the filter and PAUSED. When room is short the least needed go first (a
    /// long filter or warning is shortened, a stopped file is said in a few words), so the
    /// uptime, the state, the drops and the suspects stay while a filter is typed or applied.
    private func drawHeader(_ grid: inout CellGrid) {
        let state = canvas.state
        let now = canvas.now
        var items: [HeaderItem] = [
            HeaderItem(
                order: 1, priority: 4,
                text: TextFormat.rate(state.totalMeter.rate(at: state.sourceTime(at: now))) + " ev/s",
                style: canvas.style(bold: true))
        ]
        // A replay's place is its cursor, in the status; how long this dashboard has run, which
        // starts over at each jump, would only confuse it.
        if !state.hasSourceClock {
            items.append(
                HeaderItem(
                    order: 0, priority: 3, text: "up " + TextFormat.duration(now - (state.startTime ?? now)),
                    style: canvas.style()))
        }
        if let fleet = state.fleet {
            let trouble = fleet.quietCount + fleet.goneCount > 0
            items.append(
                HeaderItem(
                    order: 2, priority: 2, text: FleetPane.fleetSummary(fleet),
                    style: trouble ? canvas.style(bold: true, color: .yellow) : canvas.style(bold: true)))
        }
        if let status = state.status {
            // Briefly when there is a brief form (a replay's cursor without its length and bar),
            // whole when the room is left over: the state stays beside the drops.
            items.append(
                HeaderItem(
                    order: 3, priority: 2, text: state.briefStatus ?? status,
                    style: canvas.style(color: .green),
                    whole: state.briefStatus == nil ? nil : status))
        }
        if !state.problems.isEmpty {
            // A file that will not be whole: in the drops' red, in a few words; the whole of it
            // (which file, why) when the room is left over, and in the log.
            items.append(
                // After the state and the uptime, which stay first when the room is short.
                HeaderItem(
                    order: 4, priority: 3,
                    text: state.problems.count == 1
                        ? "! " + state.problems[0].brief : "! \(state.problems.count) files failed",
                    style: canvas.style(bold: true, reverse: true, color: .red),
                    whole: "! " + state.problems.map(\.text).joined(separator: "; ")))
        }
        // A warning the status or a problem already says is not said twice.
        if let warning = state.warning, warning.text != state.status,
            !state.problems.contains(where: { $0.text == warning.text })
        {
            items.append(
                HeaderItem(
                    order: 4, priority: 6, text: "! " + warning.text, style: canvas.warningStyle,
                    canShorten: true))
        }
        if state.droppedEvents > 0 || state.droppedLifecycle > 0 {
            // Lost lifecycle changes are named apart: each is a subscribe, a reclaim or a leak
            // report the log will never show.
            var dropped: [String] = []
            if state.droppedEvents > 0 {
                let events = state.droppedLifecycle > 0 ? " events," : ""
                dropped.append(TextFormat.grouped(state.droppedEvents) + events)
            }
            if state.droppedLifecycle > 0 {
                let changes = state.droppedLifecycle == 1 ? "change" : "changes"
                dropped.append("\(TextFormat.grouped(state.droppedLifecycle)) lifecycle \(changes)")
            }
            // In a narrow header the count alone, so that the drops stay beside the state.
            let brief =
                state.droppedEvents > 0
                ? TextFormat.grouped(state.droppedEvents) + " dropped"
                : TextFormat.grouped(state.droppedLifecycle)
                    + (state.droppedLifecycle == 1 ? " change dropped" : " changes dropped")
            items.append(
                HeaderItem(
                    order: 5, priority: 1, text: brief,
                    style: canvas.style(bold: true, reverse: true, color: .red),
                    // A fleet's losses may be a server's restart as well as a monitor too slow:
                    // the log says which.
                    whole: dropped.joined(separator: " ")
                        + (state.sourceListsFleet ? " dropped on the way" : " dropped (too fast)")))
        }
        if state.droppedFromAppsPastTheLimit > 0 {
            // Not too fast: too many apps. Said apart, so nobody slows an app down for it.
            let records = state.droppedFromAppsPastTheLimit == 1 ? "record" : "records"
            items.append(
                HeaderItem(
                    order: 5, priority: 1,
                    text: "\(TextFormat.grouped(state.droppedFromAppsPastTheLimit)) \(records) of apps past "
                        + "\(TextFormat.grouped(FleetState.maximumMembers)) dropped",
                    style: canvas.style(bold: true, reverse: true, color: .red)))
        }
        if state.snapshotsRefused > 0 {
            // The counters leave those apps out: said as loudly as drops.
            items.append(
                HeaderItem(
                    order: 5, priority: 1,
                    text: "apps past \(TextFormat.grouped(FleetState.maximumMembers)) not counted",
                    style: canvas.style(bold: true, reverse: true, color: .red)))
        }
        let suspects = state.observers.suspectCount
        if suspects > 0 {
            items.append(
                HeaderItem(
                    order: 6, priority: 1,
                    text: "\(suspects) leak \(suspects == 1 ? "suspect" : "suspects")",
                    style: canvas.style(bold: true, reverse: true, color: .red)))
        }
        // Like leaks, what went wrong in handlers asks for attention.
        let handlers = state.handlers
        if handlers.cascadesStopped > 0 {
            let count = handlers.cascadesStopped
            items.append(
                HeaderItem(
                    order: 6, priority: 1, text: "\(count) \(count == 1 ? "cascade" : "cascades") stopped",
                    style: canvas.style(bold: true, reverse: true, color: .red)))
        }
        if handlers.failures > 0 {
            items.append(
                // Below the filter: a narrow header keeps what the person typed.
                HeaderItem(
                    order: 6, priority: 6, text: "\(TextFormat.grouped(handlers.failures)) failed",
                    style: canvas.style(bold: true, color: .red)))
        }
        if handlers.slowCalls > 0 {
            items.append(
                HeaderItem(
                    order: 6, priority: 6, text: "\(TextFormat.grouped(handlers.slowCalls)) slow",
                    style: canvas.style(bold: true, color: .yellow)))
        }
        if handlers.slowDeliveries > 0 {
            items.append(
                HeaderItem(
                    order: 6, priority: 6, text: "\(TextFormat.grouped(handlers.slowDeliveries)) late",
                    style: canvas.style(bold: true, color: .yellow)))
        }
        if handlers.dropped > 0 {
            // Events a slow stream let go in the app, unlike the monitor's own drops above.
            items.append(
                HeaderItem(
                    order: 6, priority: 6, text: "\(TextFormat.grouped(handlers.dropped)) missed by streams",
                    style: canvas.style(bold: true, color: .yellow)))
        }
        if let filter = canvas.filter {
            items.append(
                HeaderItem(
                    order: 7, priority: 5, text: "filter: " + filter.expression,
                    style: canvas.style(bold: true, color: .yellow),
                    canShorten: true))
        }
        if canvas.isPaused {
            items.append(
                HeaderItem(
                    order: 8, priority: 0, text: " PAUSED ",
                    style: canvas.style(bold: true, reverse: true, color: .yellow)))
        }

        // Keep at least 20 columns for the title; each item takes two columns of space before it.
        // Items of one order or priority keep the order they were listed in (failed, slow, late,
        // as the Handlers pane says them), whatever the sort, frame after frame.
        var room = grid.width - 20
        var kept: [(position: Int, item: HeaderItem)] = []
        let byPriority = items.enumerated().sorted {
            ($0.element.priority, $0.offset) < ($1.element.priority, $1.offset)
        }
        for (position, var item) in byPriority {
            let needed = item.text.count + 2
            if needed <= room {
                room -= needed
                kept.append((position, item))
            } else if item.canShorten, room - 2 >= Self.shortestHeaderText {
                item.text = TextFormat.truncate(item.text, width: room - 2, ellipsis: canvas.glyphs.ellipsis)
                room -= item.text.count + 2
                kept.append((position, item))
            }
        }
        // The room every item left: a brief text is said whole when all of it fits there, so
        // that it never pushes out what comes after it, nor loses its point to an ellipsis.
        for index in kept.indices {
            guard let whole = kept[index].item.whole else { continue }
            let extra = whole.count - kept[index].item.text.count
            guard extra > 0, extra <= room else { continue }
            kept[index].item.text = whole
            room -= extra
        }
        var x = grid.width
        var rightStart = grid.width
        // Laid out from the right: the last listed first.
        let rightToLeft = kept.sorted { ($0.item.order, $0.position) > ($1.item.order, $1.position) }.map(
            \.item)
        for (index, item) in rightToLeft.enumerated() {
            x -= item.text.count + (index == 0 ? 0 : 2)
            grid.put(item.text, x: x, y: 0, style: item.style)
            if index > 0 { grid.put("  ", x: x + item.text.count, y: 0) }
            rightStart = x
        }
        let titleEnd = grid.put(
            Self.shortenedTitle(title, width: rightStart - 2, ellipsis: canvas.glyphs.ellipsis), x: 0, y: 0,
            style: canvas.style(bold: true, color: .cyan))
        if let busName = state.busName, title != busName, !TextFormat.text(title, contains: "bus " + busName)
        {
            let room = rightStart - 2 - titleEnd - 2
            if room >= 6 {
                grid.put(
                    TextFormat.truncate("bus " + busName, width: room, ellipsis: canvas.glyphs.ellipsis),
                    x: titleEnd + 2,
                    y: 0)
            }
        }
    }

    // MARK: - Bottom bar

    private func drawBottomBar(_ grid: inout CellGrid) {
        let y = grid.height - 1
        if let prompt {
            // A full prompt takes no more keys: said where the eye is, not left to be found out.
            let full =
                prompt.count >= DashboardController.longestPrompt
                ? " (\(DashboardController.longestPrompt) characters at most)" : ""
            let label = (promptLabel ?? "Filter") + full + ": "
            let end = grid.put(label, x: 0, y: y, style: canvas.style(bold: true, color: .yellow))
            // A filter longer than the line shows its end, where the cursor is.
            let room = max(0, grid.width - end - 1)
            let shown =
                prompt.count <= room
                ? prompt : canvas.glyphs.ellipsis + String(prompt.suffix(max(0, room - 1)))
            let cursor = grid.put(shown, x: end, y: y, maxWidth: room)
            grid.put(" ", x: cursor, y: y, style: canvas.style(reverse: true))
            let hint = promptLabel == nil ? "Enter apply  Esc cancel  !text hides" : "Enter go  Esc cancel"
            if cursor + 3 + hint.count <= grid.width {
                grid.put(hint, x: grid.width - hint.count, y: y, style: canvas.style(dim: true))
            }
            return
        }
        // Most needed first: a narrow screen shows as many as fit, and help lists them all.
        let items = keyMap.bar.map { ($0.keys, $0.text) }
        var x = 0
        for (key, label) in items {
            let width = key.count + label.count + 2
            guard x + width <= grid.width else { break }
            x = grid.put(key, x: x, y: y, style: canvas.style(bold: true))
            x = grid.put(" " + label + " ", x: x, y: y, style: canvas.style(reverse: true, color: .cyan))
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
        let border = canvas.style(bold: true, color: .cyan)
        for y in top..<(top + height) {
            grid.put(String(repeating: " ", count: width), x: left, y: y)
        }
        let horizontal = String(repeating: canvas.glyphs.horizontal, count: width - 2)
        grid.put(
            String(canvas.glyphs.topLeft) + horizontal + String(canvas.glyphs.topRight), x: left, y: top,
            style: border)
        grid.put(
            String(canvas.glyphs.bottomLeft) + horizontal + String(canvas.glyphs.bottomRight), x: left,
            y: top + height - 1,
            style: border)
        for y in (top + 1)..<(top + height - 1) {
            grid.put(String(canvas.glyphs.vertical), x: left, y: y, style: border)
            grid.put(String(canvas.glyphs.vertical), x: left + width - 1, y: y, style: border)
        }
        grid.put(" " + title + " ", x: left + 2, y: top, style: canvas.style(bold: true), maxWidth: width - 4)
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
        let help = Self.helpText(keyMap: keyMap, state: canvas.state, width: grid.width, height: grid.height)
        let first = max(0, min(scroll, help.maximumScroll))
        // Which lines are shown, of all: "Help 1-9 of 40".
        let title =
            help.scrolls ? "Help \(first + 1)-\(first + help.visibleRows) of \(help.rows.count)" : "Help"
        let box = drawBox(&grid, title: title, width: help.width, height: help.visibleRows)
        for (index, row) in help.rows.dropFirst(first).prefix(box.height).enumerated() {
            grid.put(
                row.keys, x: box.x, y: box.y + index, style: canvas.style(bold: true, color: .yellow),
                maxWidth: HelpText.keyWidth - 1)
            grid.put(
                row.text, x: box.x + HelpText.keyWidth, y: box.y + index,
                maxWidth: box.width - HelpText.keyWidth)
        }
        if help.scrolls {
            // Said on the bottom of the frame, so it costs no row.
            let hint = " " + canvas.glyphs.upDown + " scroll, Esc closes "
            grid.put(
                hint, x: box.x + box.width - hint.count, y: box.y + box.height,
                style: canvas.style(bold: true),
                maxWidth: box.width)
        }
    }

    private func drawDetail(_ grid: inout CellGrid, entry: LogEntry, scroll: Int) {
        // The inside of the box: the screen less frame and padding, at most a comfortable line.
        let width = min(grid.width - 6, 90)
        var lines: [(String, CellStyle)] = [
            ("time      " + TextFormat.clock(entry.time), canvas.style())
        ]
        let originLine = entry.origin.map {
            ("origin    app \($0.app), host \($0.host), pid \($0.pid)", canvas.style())
        }
        switch entry.content {
        case .event(let event):
            lines.append(("type      " + event.typeName, canvas.style(bold: true, color: .cyan)))
            if let originLine { lines.append(originLine) }
            lines.append(("receivers \(event.receivers)", canvas.style()))
            lines += lineageLines(of: event, at: entry.sequence, width: width)
            lines.append(("", canvas.style()))
            for line in TextFormat.wrap(event.payload.text, width: width) {
                lines.append((line, canvas.style()))
            }
        case .lifecycle(let change):
            // The leak kinds are about an object, not a type: they have no type to name.
            if !change.eventTypeName.isEmpty {
                let type =
                    change.eventTypeName == SubscriberLifecycleEvent.wildcardTypeName
                    ? "* (wildcard)" : change.eventTypeName
                lines.append(("type      " + type, canvas.style(bold: true, color: .cyan)))
            }
            if let originLine { lines.append(originLine) }
            lines.append(("change    " + Self.changeText(change), canvas.style()))
            if let observer = change.observerName {
                lines.append(("observer  " + observer, canvas.style()))
            }
            lines.append(("", canvas.style()))
            for line in TextFormat.wrap(change.description, width: width) {
                lines.append((line, canvas.lifecycleStyle(change.kind)))
            }
        case .reclaim(let reclaim):
            lines.append(("change    reclaimed, \(reclaim.count)", canvas.style(bold: true, color: .cyan)))
            if let originLine { lines.append(originLine) }
            lines.append(("", canvas.style()))
            for line in TextFormat.wrap(reclaim.description, width: width) {
                lines.append((line, canvas.lifecycleStyle(.reclaimed)))
            }
            lines.append(("", canvas.style()))
            for change in reclaim.changes {
                let plural = change.count == 1 ? "subscription" : "subscriptions"
                lines.append(("  \(change.count) \(change.eventTypeName) \(plural)", canvas.style()))
            }
        case .notice(let notice):
            lines.append(("source    " + title, canvas.style(bold: true, color: .cyan)))
            lines.append(("", canvas.style()))
            for line in TextFormat.wrap(notice.text, width: width) {
                lines.append((line, canvas.noticeStyle(notice)))
            }
        }
        let box = drawBox(&grid, title: "Details (Esc closes)", width: width, height: lines.count)
        let first = max(0, min(scroll, lines.count - box.height))
        for (index, (text, lineStyle)) in lines.dropFirst(first).prefix(box.height).enumerated() {
            // A line past the box (a long type name) ends in an ellipsis, as a table row does.
            let shown = TextFormat.truncate(text, width: box.width, ellipsis: canvas.glyphs.ellipsis)
            grid.put(shown, x: box.x, y: box.y + index, style: lineStyle, maxWidth: box.width)
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
            let text = TextFormat.truncate(line, width: grid.width, ellipsis: canvas.glyphs.ellipsis)
            grid.put(
                text, x: max(0, (grid.width - text.count) / 2), y: top + index,
                style: index == 0 ? canvas.style(bold: true, color: .yellow) : canvas.style())
        }
    }
}

extension DashboardView {
    /// Where `event` was published, what led to it and what it set off, from the log, and the
    /// times of its type's handlers, from the newest snapshot: the lines of a detail view.
    func lineageLines(of event: FeedEvent, at sequence: Int?, width: Int) -> [(String, CellStyle)] {
        var lines: [(String, CellStyle)] = []
        let trace = event.trace
        if trace.eventID != 0 { lines.append(("event     #\(trace.eventID)", canvas.style())) }
        if let site = trace.site { lines.append(("site      \(site)", canvas.style(bold: true))) }
        // The type's sticky event now, which a screen opened later would receive.
        if let sticky = canvas.state.rows.first(where: { $0.name == event.typeName })?.sticky {
            lines.append(("sticky    " + sticky, canvas.style(color: .cyan)))
        }
        guard trace.eventID != 0 || trace.site != nil else { return lines }
        let lineage = EventLineage(of: event, at: sequence, in: canvas.state.log)
        func describe(_ other: FeedEvent) -> String {
            let site = other.trace.site.map { " at \($0)" } ?? ""
            return "#\(other.trace.eventID) \(other.typeName)\(site)"
        }
        if trace.causeID == nil {
            lines.append(("cause     none: published outside any handler", canvas.style()))
        } else {
            for (index, cause) in lineage.causes.enumerated() {
                lines.append(((index == 0 ? "cause     " : "          ") + describe(cause), canvas.style()))
            }
            let end =
                switch lineage.end {
                case .topLevel: "(top-level publish)"
                case .missing(let id): "#\(id), no longer in the log"
                case .notEarlier(let id): "#\(id), not an earlier event: the app's numbers disagree"
                case .limit: "and earlier causes"
                }
            lines.append(("          " + end, canvas.style(dim: true)))
        }
        if !lineage.setOff.isEmpty {
            let shown = lineage.setOff.prefix(10)
            for (index, effect) in shown.enumerated() {
                lines.append(((index == 0 ? "set off   " : "          ") + describe(effect), canvas.style()))
            }
            if lineage.setOff.count > shown.count {
                lines.append(
                    ("          and \(lineage.setOff.count - shown.count) more", canvas.style(dim: true)))
            }
        }
        let handlers = canvas.state.handlers.rows(for: event.typeName)
        for (index, handler) in handlers.prefix(8).enumerated() {
            let who = handler.observerTypeName ?? "token"
            let average = handler.average.map(TextFormat.milliseconds) ?? "-"
            var text =
                "\(who): \(handler.calls) calls, avg \(average), max \(TextFormat.milliseconds(handler.maximum))"
            let waits = handler.waits
            if handler.slowCalls > 0 { text += ", \(handler.slowCalls) slow" }
            if handler.failures > 0 { text += ", \(handler.failures) failed" }
            if handler.dropped > 0 { text += ", \(handler.dropped) dropped" }
            let trouble = handler.slowCalls > 0 || handler.failures > 0 || handler.dropped > 0
            lines.append(
                (
                    (index == 0 ? "handlers  " : "          ") + text,
                    trouble
                        ? canvas.style(bold: true, color: handler.failures > 0 ? .red : .yellow)
                        : canvas.style()
                ))
            // Deliveries that waited to start (a main-actor hop, a mailbox, a queue) get a line
            // of their own; handlers called in the publish never wait.
            guard waits.maximum > .zero else { continue }
            var waited =
                "  waited p50 \(TextFormat.milliseconds(waits.p50)), p99 \(TextFormat.milliseconds(waits.p99)),"
                + " max \(TextFormat.milliseconds(waits.maximum))"
            if waits.slowDeliveries > 0 { waited += ", \(waits.slowDeliveries) late" }
            lines.append(
                (
                    "          " + waited,
                    waits.slowDeliveries > 0 ? canvas.style(bold: true, color: .yellow) : canvas.style()
                ))
        }
        return lines
    }
}

extension DashboardView {
    /// The title in `width` columns: a closing parenthetical that does not fit goes whole, so
    /// that a shortened title never reads as another (`simulated app (seed 1…` of `(seed 11)`).
    static func shortenedTitle(_ title: String, width: Int, ellipsis: String) -> String {
        guard TextFormat.characterCount(title) > width else { return title }
        if title.hasSuffix(")"), let open = title.lastIndex(of: "("), open > title.startIndex,
            title[title.index(before: open)] == " "
        {
            let head = String(title[..<title.index(before: open)])
            if head.count + ellipsis.count <= width { return head + ellipsis }
        }
        return TextFormat.truncate(title, width: width, ellipsis: ellipsis)
    }

    /// What a lifecycle change was, with its count in the words of its kind: `unsubscribed, 2
    /// subscriptions`, `cascade stopped, 10000 events set off`, `leak suspected`.
    static func changeText(_ change: SubscriberLifecycleEvent) -> String {
        func counted(_ one: String, _ many: String) -> String {
            "\(change.count) \(change.count == 1 ? one : many)"
        }
        let words = change.kind.words
        switch change.kind {
        case .subscribed, .unsubscribed, .cancelled, .reclaimed:
            return "\(words), \(counted("subscription", "subscriptions"))"
        case .duplicateSubscription, .leakSuspected, .leakCleared: return words
        case .cascadeStopped: return "\(words), \(counted("event", "events")) set off"
        case .handlerFailed: return "\(words), \(counted("failure", "failures"))"
        case .slowHandler: return "\(words), \(counted("slow call", "slow calls"))"
        case .slowDelivery: return "\(words), \(counted("slow delivery", "slow deliveries"))"
        }
    }
}
