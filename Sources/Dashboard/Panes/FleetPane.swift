import BusMonitor

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

    /// Rows of apps the pane asks for on a screen `screenHeight` rows high: one per member (one
    /// when there are none yet, to say so), at most a fifth of the screen's rows less every title
    /// and the bar (at least 2). `nil` when the source is not a fleet. The Observers pane gives
    /// these rows back from its share.
    static func appRows(screenHeight: Int, state: DashboardState) -> Int? {
        guard let fleet = state.fleet else { return nil }
        return max(1, min(fleet.rows.count, max(2, (screenHeight - 5) * 20 / 100)))
    }

    func isShown(in state: DashboardState) -> Bool { state.fleet != nil }

    /// A title rule, a row of column titles, and ``appRows(screenHeight:state:)``.
    func height(screenHeight: Int, state: DashboardState) -> Int? {
        Self.appRows(screenHeight: screenHeight, state: state).map { 2 + $0 }
    }

    /// On a short screen, one app row (the others scroll) before the log goes below three lines.
    func minimumHeight(screenHeight: Int, state: DashboardState) -> Int? { 3 }

    func contentRows(in area: Rect) -> Int { max(0, area.height - 2) }

    func draw(into grid: inout CellGrid, area: Rect, view: DashboardView, focusedPart: Int?) {
        view.drawFleet(&grid, area: area, focused: focusedPart != nil)
    }

    func move(by delta: Int, rows: Int, in dashboard: DashboardController) {
        dashboard.moveFleetSelection(to: dashboard.fleetIndex + delta)
    }

    func moveToFirst(in dashboard: DashboardController) {
        dashboard.moveFleetSelection(to: 0)
    }

    func moveToLast(in dashboard: DashboardController) {
        dashboard.moveFleetSelection(to: Int.max)
    }

    func open(in dashboard: DashboardController) -> PaneEffect? {
        guard let fleet = dashboard.shown.fleet, !fleet.rows.isEmpty else { return nil }
        let origin = fleet.rows[min(dashboard.fleetIndex, fleet.rows.count - 1)].member.origin
        return .filter(LogFilter.app(fleet.label(for: origin)))
    }
}
