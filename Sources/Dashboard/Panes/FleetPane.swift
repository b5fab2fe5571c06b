internal import BusMonitor
internal import BusWire
internal import ScreenGrid

/// The processes of a fleet, one row each: who it is, whether it is heard from, its rate and
/// count of events, its bus's live subscriptions and leak suspects, and its bridge. Shown only
/// for a source that watches several processes; Enter filters the log to the selected app.
struct FleetPane: DashboardPane {
    let focusTitles = ["Fleet"]
    let name = "fleet"
    let enterHelp = "filter by app"
    let columnHelp = [
        KeyHint(
            keys: "Fleet",
            text: "per process: APP, HOST, PID, STATE (active; quiet, yellow: silent for a while; "
                + "gone, grey), EV/S and EVENTS received from it"),
        KeyHint(keys: "SUBS LEAKS", text: "live subscriptions and leak suspects on its own bus"),
        KeyHint(
            keys: "BRIDGE, red",
            text: "its bridge is not connected; dropped N: events it could not forward"),
    ]

    /// The selected member, so that it stays put when members come and go.
    private(set) var selection = ListSelection<EventOrigin>()
    /// The members in view in the last frame.
    private(set) var inView = ListViewport(rows: 0..<0, selected: nil)

    /// Rows of apps the pane asks for on a screen `screenHeight` rows high: one per member (one
    /// when there are none yet, to say so), at most a fifth of the screen's rows less every title
    /// and the bar (at least 2). `nil` when the source is not a fleet. The Observers pane gives
    /// these rows back from its share.
    static func appRows(screenHeight: Int, state: DashboardState) -> Int? {
        guard let fleet = state.fleet else { return nil }
        return max(1, min(fleet.rows.count, max(2, (screenHeight - 5) * 20 / 100)))
    }

    /// The members' identities, in the pane's order.
    private static func members(in state: DashboardState) -> [EventOrigin] {
        state.fleet?.rows.map(\.member.origin) ?? []
    }

    func isShown(in state: DashboardState) -> Bool { state.fleet != nil }

    /// A title rule, a row of column titles, and ``appRows(screenHeight:state:)``.
    func height(screenHeight: Int, state: DashboardState) -> Int? {
        Self.appRows(screenHeight: screenHeight, state: state).map { 2 + $0 }
    }

    /// On a short screen, one app row (the others scroll) before the log goes below three lines.
    func minimumHeight(screenHeight: Int, state: DashboardState) -> Int? { 3 }

    func contentRows(in area: Rect) -> Int { max(0, area.height - 2) }

    mutating func layOut(rows: Int, in context: PaneContext) {
        inView = selection.viewport(height: rows, of: Self.members(in: context.state))
    }

    mutating func move(by delta: Int, rows: Int, in context: PaneContext) {
        selection.move(by: delta, of: Self.members(in: context.state))
    }

    mutating func moveToFirst(in context: PaneContext) {
        selection.select(at: 0, of: Self.members(in: context.state))
    }

    mutating func moveToLast(in context: PaneContext) {
        selection.select(at: Int.max, of: Self.members(in: context.state))
    }

    mutating func open(in context: PaneContext) -> PaneEffect? {
        guard let fleet = context.state.fleet, !fleet.rows.isEmpty else { return nil }
        let origin = fleet.rows[min(selection.index, fleet.rows.count - 1)].member.origin
        return .filter(LogFilter.app(fleet.label(for: origin)))
    }
}

/// Column widths of the Fleet pane for one screen width; HOST and PID go first on a narrow
/// screen (the log and a filter still tell members of one app apart by `app@host:pid`).
struct FleetColumns: Equatable {
    let app: Int
    /// 0 when the screen is too narrow for the column.
    let host: Int
    /// 0 when the screen is too narrow for the column.
    let pid: Int
    let state: Int
    let rate: Int
    let events: Int
    let subscriptions: Int
    let leaks: Int
    /// The bridge's state, the rest of the row.
    let bridge: Int

    init(width: Int) {
        if width >= 110 {
            (app, host, pid, state, rate, events, subscriptions, leaks) = (18, 16, 8, 8, 8, 10, 6, 6)
        } else if width >= 90 {
            (app, host, pid, state, rate, events, subscriptions, leaks) = (14, 12, 7, 7, 7, 9, 6, 6)
        } else {
            (app, host, pid, state, rate, events, subscriptions, leaks) = (12, 0, 0, 7, 7, 8, 5, 6)
        }
        bridge = max(0, width - app - host - pid - state - rate - events - subscriptions - leaks)
    }

    /// Where the bridge column starts.
    var bridgeX: Int { app + host + pid + state + rate + events + subscriptions + leaks }
}

extension FleetPane {
    /// Draws the Fleet pane into `area`: a title rule with the members' count, column titles,
    /// then one row per member.
    func draw(into grid: inout CellGrid, area: Rect, canvas: PaneCanvas, focusedPart: Int?) {
        let focused = focusedPart != nil
        guard area.height > 0, let tracker = canvas.state.fleet else { return }
        let title = focusTitles[0]
        canvas.drawRule(&grid, y: area.y, from: 0, to: grid.width, title: title, focused: focused)
        let trouble = tracker.rows.contains { $0.member.presence != .active || $0.bridgeIsDown }
        canvas.putRuleNote(
            &grid, Self.fleetSummary(tracker), y: area.y, after: title,
            style: trouble ? canvas.style(bold: true, color: .yellow) : canvas.style())
        guard area.height > 1 else { return }

        let columns = FleetColumns(width: grid.width)
        let headerY = area.y + 1
        let headerStyle = canvas.style(bold: true)
        var x = 0
        for (text, width, isNumber) in [
            ("APP", columns.app, false), ("HOST", columns.host, false), ("PID", columns.pid, true),
            (" STATE", columns.state, false), ("EV/S", columns.rate, true), ("EVENTS", columns.events, true),
            ("SUBS", columns.subscriptions, true), ("LEAKS", columns.leaks, true),
        ] where width > 0 {
            let shown = isNumber ? TextFormat.right(text, width: width) : text
            grid.put(shown, x: x, y: headerY, style: headerStyle, maxWidth: width)
            x += width
        }
        grid.put(
            "BRIDGE", x: columns.bridgeX + 1, y: headerY, style: headerStyle, maxWidth: columns.bridge - 1)

        let sourceNow = canvas.state.sourceTime(at: canvas.now)
        for (offset, index) in inView.rows.enumerated() {
            drawFleetRow(
                &grid, canvas: canvas, row: tracker.rows[index], tracker: tracker, y: area.y + 2 + offset,
                now: sourceNow)
            if index == inView.selected, focused {
                grid.highlight(x: 0, y: area.y + 2 + offset, count: grid.width)
            }
        }
        if tracker.rows.isEmpty, area.height > 2 {
            grid.put(
                "waiting for apps" + canvas.glyphs.ellipsis, x: 1, y: area.y + 2,
                style: canvas.style(dim: true))
        }
    }

    /// `3 apps, 1 quiet, 1 gone`, as the header and the pane's title rule say it.
    static func fleetSummary(_ tracker: FleetTracker) -> String {
        let count = tracker.rows.count
        var text = "\(count) \(count == 1 ? "app" : "apps")"
        // "1 app, gone", not "1 app, 1 gone", which reads as two.
        func part(_ members: Int, _ state: String) -> String {
            guard members == count else { return ", \(members) \(state)" }
            return count == 1 ? ", \(state)" : ", all \(state)"
        }
        if tracker.quietCount > 0 { text += part(tracker.quietCount, "quiet") }
        if tracker.goneCount > 0 { text += part(tracker.goneCount, "gone") }
        return text
    }

    private func drawFleetRow(
        _ grid: inout CellGrid, canvas: PaneCanvas, row: FleetRow, tracker: FleetTracker, y: Int, now: Double
    ) {
        let columns = FleetColumns(width: grid.width)
        let member = row.member
        // A gone process is greyed from end to end: what it last said is history.
        let isGone = member.presence == .gone
        func styled(_ normal: CellStyle) -> CellStyle { isGone ? canvas.style(dim: true) : normal }

        // Without the HOST and PID columns, members of one app are told apart by their pid, kept
        // whole while the name gives way.
        var name = TextFormat.truncate(
            member.origin.app, width: columns.app - 1, ellipsis: canvas.glyphs.ellipsis)
        if columns.pid == 0, tracker.sharedAppNames.contains(member.origin.app) {
            let pid = ":\(member.origin.pid)"
            name =
                TextFormat.truncate(
                    member.origin.app, width: max(1, columns.app - 1 - pid.count),
                    ellipsis: canvas.glyphs.ellipsis)
                + pid
        }
        var x = 0
        grid.put(name, x: x, y: y, style: styled(canvas.style(bold: true)), maxWidth: columns.app - 1)
        x += columns.app
        if columns.host > 0 {
            grid.put(
                TextFormat.truncate(
                    member.origin.host, width: columns.host - 1, ellipsis: canvas.glyphs.ellipsis),
                x: x, y: y, style: styled(canvas.style()))
            x += columns.host
        }
        if columns.pid > 0 {
            grid.put(
                TextFormat.right(
                    TextFormat.truncate(
                        String(member.origin.pid), width: columns.pid, ellipsis: canvas.glyphs.ellipsis),
                    width: columns.pid), x: x, y: y,
                style: styled(canvas.style(dim: true)))
            x += columns.pid
        }
        // After a number, so a space first.
        let presenceStyle: CellStyle
        switch member.presence {
        case .active: presenceStyle = canvas.style(color: .green)
        case .quiet: presenceStyle = canvas.style(bold: true, color: .yellow)
        case .gone: presenceStyle = canvas.style(dim: true)
        }
        grid.put(
            " " + member.presence.rawValue, x: x, y: y, style: presenceStyle, maxWidth: columns.state)
        x += columns.state

        let numbers: [(String, Int, CellStyle)] = [
            (TextFormat.rate(row.meter.rate(at: now)), columns.rate, canvas.style()),
            (
                TextFormat.count(member.eventsReceived, width: columns.events - 1), columns.events,
                canvas.style()
            ),
            (
                row.liveSubscriptions.map { TextFormat.count($0, width: columns.subscriptions - 1) } ?? "-",
                columns.subscriptions, canvas.style()
            ),
            (
                row.leakSuspects.map { TextFormat.count($0, width: columns.leaks - 1) } ?? "-", columns.leaks,
                (row.leakSuspects ?? 0) > 0 ? canvas.warningStyle : canvas.style(dim: true)
            ),
        ]
        for (text, width, cellStyle) in numbers {
            grid.put(TextFormat.right(text, width: width), x: x, y: y, style: styled(cellStyle))
            x += width
        }

        guard columns.bridge > 1 else { return }
        x += 1
        let end = x + columns.bridge - 1
        // A gone app's bridge said last that it was connected (or reconnecting): it was killed,
        // or its last report was lost, and says nothing now.
        let stale = member.presence == .gone && member.bridgeState != FleetLinkReport.closedState
        let bridgeText = member.bridgeState.map { stale ? "was \($0)" : $0 } ?? "-"
        let bridgeStyle =
            member.bridgeState == nil || stale
            ? canvas.style(dim: true) : row.bridgeIsDown ? canvas.warningStyle : canvas.style(color: .green)
        x = grid.put(
            TextFormat.truncate(bridgeText, width: end - x, ellipsis: canvas.glyphs.ellipsis), x: x, y: y,
            style: styled(bridgeStyle))
        if member.bridgeDropped > 0, end - x > 2 {
            let dropped = ", dropped " + TextFormat.grouped(member.bridgeDropped)
            grid.put(
                TextFormat.truncate(dropped, width: end - x, ellipsis: canvas.glyphs.ellipsis), x: x, y: y,
                style: styled(canvas.warningStyle))
        }
    }
}
