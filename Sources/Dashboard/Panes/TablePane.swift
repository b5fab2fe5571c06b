/// The tables: event types (counts, rates, sparklines, unheard) beside their subscribers
/// (live, dead, reclaimed, changes), sharing rows and a selection; the last row is the
/// wildcard. Enter filters the log by the selected type.
struct TablePane: DashboardPane {
    let focusTitles = ["Event types", "Subscribers"]
    let name = "tables"
    let enterHelp = "filter by type"
    let columnHelp = [
        KeyHint(keys: "COUNT RATE/s", text: "events published (the bus's own count), per second over 2 s"),
        KeyHint(keys: "LAST Ns, HIST", text: "events in each of the last N seconds, newest on the right"),
        KeyHint(keys: "LIVE DEAD RECL", text: "live, dead awaiting cleanup, reclaimed subscriptions"),
        KeyHint(
            keys: "DEAD, dim",
            text: "cleaned up in the last 3 s; to watch cleanup, slow down with - or start with --rate 5"),
        KeyHint(keys: "UNSUB CANC DUP", text: "unsubscribed, cancelled, duplicate subscriptions"),
        KeyHint(keys: "UNHEARD", text: "events no typed subscriber received"),
        KeyHint(keys: "CHG", text: "change in live subscriptions over the last 3 s, up or down"),
    ]

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

    func draw(into grid: inout CellGrid, area: Rect, view: DashboardView, focusedPart: Int?) {
        view.drawTables(&grid, area: area, focusedPart: focusedPart)
    }

    func move(by delta: Int, rows: Int, in dashboard: DashboardController) {
        dashboard.tableSelection = max(0, min(dashboard.shown.rows.count, dashboard.tableSelection + delta))
    }

    func moveToFirst(in dashboard: DashboardController) {
        dashboard.tableSelection = 0
    }

    func moveToLast(in dashboard: DashboardController) {
        dashboard.tableSelection = dashboard.shown.rows.count
    }

    func open(in dashboard: DashboardController) -> PaneEffect? {
        let rows = dashboard.shown.rows
        return .filter(
            dashboard.tableSelection < rows.count ? LogFilter(rows[dashboard.tableSelection].name) : nil)
    }
}
