/// The log: time, type, payload and receivers of each line, following the newest unless the
/// person scrolls. Enter shows a line's full payload.
struct LogPane: DashboardPane {
    let focusTitles = ["Log"]
    let name = "log"
    let enterHelp = "the line's full payload"
    let takesFirstFocus = true

    func height(screenHeight: Int, state: DashboardState) -> Int? { nil }

    func contentRows(in area: Rect) -> Int { max(0, area.height - 1) }

    func draw(into grid: inout CellGrid, area: Rect, view: DashboardView, focusedPart: Int?) {
        view.drawLog(&grid, area: area, focused: focusedPart != nil)
    }

    func move(by delta: Int, rows: Int, in dashboard: DashboardController) {
        let lines = dashboard.visibleLines()
        guard !lines.isEmpty else { return }
        let current =
            dashboard.isFollowing
            ? lines.count - 1 : lines.index(atOrAfter: dashboard.selectedSequence ?? 0)
        let target = max(0, min(lines.count - 1, current + delta))
        if delta > 0, target == lines.count - 1 {
            dashboard.isFollowing = true
            return
        }
        if dashboard.isFollowing {
            // Leave the view where it is, so that stopping is not a jump.
            dashboard.topSequence = lines.sequence(at: max(0, lines.count - rows))
        }
        dashboard.isFollowing = false
        dashboard.selectedSequence = lines.sequence(at: target)
    }

    func moveToFirst(in dashboard: DashboardController) {
        let lines = dashboard.visibleLines()
        guard !lines.isEmpty else { return }
        dashboard.isFollowing = false
        dashboard.selectedSequence = lines.sequence(at: 0)
        dashboard.topSequence = dashboard.selectedSequence
    }

    func moveToLast(in dashboard: DashboardController) {
        dashboard.isFollowing = true
    }

    func open(in dashboard: DashboardController) -> PaneEffect? {
        let lines = dashboard.visibleLines()
        guard !lines.isEmpty else { return nil }
        let index =
            dashboard.isFollowing
            ? lines.count - 1 : lines.index(atOrAfter: dashboard.selectedSequence ?? 0)
        return dashboard.shown.log[lines.sequence(at: index)].map(PaneEffect.showDetail)
    }
}
