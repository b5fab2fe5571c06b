import EventBus

/// The observer objects: one row per class (live, dead and reclaimed objects, their
/// subscriptions, leak suspects, and a sparkline of live objects), leak suspects in bold red.
/// Enter on a class lists its objects; Enter or Esc goes back to the classes.
struct ObserversPane: DashboardPane {
    let focusTitles = ["Observers"]
    let name = "observers"
    let enterHelp = "a class's objects (Enter or Esc goes back)"
    let columnHelp = [
        KeyHint(
            keys: "Observers",
            text: "per observer class: LIVE objects, DEAD ones (deallocated, subscriptions not yet "
                + "reclaimed), RECLAIMED ones (gone with all their subscriptions), SUBS of the live ones"),
        KeyHint(
            keys: "LEAKS, red",
            text: "objects still alive after the time the app gave them (expectDeallocation)"),
        KeyHint(keys: "objects, grey", text: "reclaimed or unsubscribed in the last 3 s"),
    ]

    /// A title rule and a line saying so when there is no observer data; else a title rule, a
    /// row of column titles, and a quarter of the screen's rows less every title and the bar (at
    /// least 2), whatever the number of classes, so that a class's objects have room when Enter
    /// lists them and the other panes do not move. Beside a Fleet pane the quarter is shared:
    /// the fleet's app rows come out of it (the 2 rows stay), so the log keeps its room.
    func height(screenHeight: Int, state: DashboardState) -> Int? {
        guard state.observers.hasData else { return 2 }
        let fleetRows = FleetPane.appRows(screenHeight: screenHeight, state: state) ?? 0
        return 2 + max(2, (screenHeight - 5) * 25 / 100 - fleetRows)
    }

    func contentRows(in area: Rect) -> Int { max(0, area.height - 2) }

    func draw(into grid: inout CellGrid, area: Rect, view: DashboardView, focusedPart: Int?) {
        view.drawObservers(&grid, area: area, focused: focusedPart != nil)
    }

    func move(by delta: Int, rows: Int, in dashboard: DashboardController) {
        if dashboard.openClass != nil {
            dashboard.moveObjectSelection(to: dashboard.objectIndex + delta)
        } else {
            dashboard.moveClassSelection(to: dashboard.classIndex + delta)
        }
    }

    func moveToFirst(in dashboard: DashboardController) {
        if dashboard.openClass != nil {
            dashboard.moveObjectSelection(to: 0)
        } else {
            dashboard.moveClassSelection(to: 0)
        }
    }

    func moveToLast(in dashboard: DashboardController) {
        if dashboard.openClass != nil {
            dashboard.moveObjectSelection(to: Int.max)
        } else {
            dashboard.moveClassSelection(to: Int.max)
        }
    }

    func open(in dashboard: DashboardController) -> PaneEffect? {
        if dashboard.openClass != nil { return .closeObjects }
        let classes = dashboard.shown.observers.classes
        guard !classes.isEmpty else { return nil }
        return .showObjects(classes[min(dashboard.classIndex, classes.count - 1)].className)
    }
}
