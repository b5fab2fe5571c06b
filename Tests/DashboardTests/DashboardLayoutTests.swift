import BusMonitor
import EventBus
import ScreenGrid
import Testing

@testable import Dashboard

/// A frame is laid out once, keys use that layout, and drawing changes nothing.
@Suite("Dashboard layout")
struct DashboardLayoutTests {
    /// A dashboard with 100 log lines of two types.
    private func dashboard() -> SourceDashboard {
        dashboardWithHundredLogLines()
    }

    @Test func theLayoutStacksThePanesOfTheList() {
        let state = dashboard().shown
        let layout = DashboardLayout(width: 80, height: 24, state: state)
        #expect(!layout.isTooSmall)
        #expect(layout.header == Rect(x: 0, y: 0, width: 80, height: 1))
        #expect(layout.panes.count == DashboardController.panes.count)
        // The tables: two types and the wildcard row, under a title rule and column titles.
        #expect(layout.panes[DashboardController.tablePane] == Rect(x: 0, y: 1, width: 80, height: 5))
        #expect(layout.contentRows[DashboardController.tablePane] == 3)
        // The Observers pane, with no observer data, says so in a line under its title.
        #expect(layout.panes[DashboardController.observersPane] == Rect(x: 0, y: 6, width: 80, height: 2))
        // The log takes the rest.
        #expect(layout.panes[DashboardController.logPane] == Rect(x: 0, y: 8, width: 80, height: 15))
        #expect(layout.contentRows[DashboardController.logPane] == 14)
        #expect(layout.bar == Rect(x: 0, y: 23, width: 80, height: 1))
        #expect(DashboardLayout(width: 59, height: 24, state: state).isTooSmall)
    }

    @Test func aPaneAddedToTheListGetsItsRowsFocusAndHelp() {
        let panes: [any DashboardPane] =
            DashboardController.panes + [FixedPane(title: "Extra", rows: 4, titleRows: 1)]
        let layout = DashboardLayout(width: 80, height: 24, state: dashboard().shown, panes: panes)
        #expect(layout.panes.last == Rect(x: 0, y: 19, width: 80, height: 4))
        #expect(layout.panes[DashboardController.logPane] == Rect(x: 0, y: 8, width: 80, height: 11))
    }

    @Test("a pane that gives rows back keeps its title alone rather than titles over no line")
    func aShrunkTableKeepsItsTitleAlone() {
        // 18 rows between the header and the bar: 11 for the table, 4 for the filling pane's
        // minimum, so the 4-row table is 1 short and would keep 3; 2 short, it would keep 2,
        // its titles over no line, and keeps its title alone instead.
        let table = FixedPane(rows: 4, minimum: 1)
        let fill = FixedPane(rows: nil)
        let oneShort = DashboardLayout(
            width: 80, height: 20, state: dashboard().shown,
            panes: [FixedPane(rows: 11), table, fill])
        #expect(oneShort.panes.map(\.height) == [11, 3, 4])
        let twoShort = DashboardLayout(
            width: 80, height: 19, state: dashboard().shown,
            panes: [FixedPane(rows: 11), table, fill])
        #expect(twoShort.panes.map(\.height) == [11, 1, 5])
    }

    @Test func focusTabOrderAndHelpComeFromThePanes() {
        let titles = DashboardController.focusOrder.map {
            DashboardController.panes[$0.pane].focusTitles[$0.part]
        }
        #expect(titles == ["Fleet", "Event types", "Subscribers", "Observers", "Handlers", "Log"])
        let dashboard = dashboard()
        // A single app shows no Fleet pane, and its help says nothing of one.
        #expect(
            DashboardController.enterHelp(in: dashboard.shown)
                == "tables: filter by type; observers: a class's objects (Enter or Esc goes back); "
                + "log: the line's full payload")
        #expect(dashboard.focusTitle == "Log")
        _ = dashboard.handle(.character("?"))
        var grid = CellGrid(width: 100, height: 40)
        dashboard.render(into: &grid, now: startTime)
        for note in DashboardController.shownPanes(in: dashboard.shown).flatMap(\.columnHelp) {
            #expect(grid.text.contains(note.keys))
        }
        // The Enter line wraps in the box; its start and end are there.
        #expect(grid.text.contains("tables: filter by type"))
        #expect(grid.text.contains("log: the line's full payload"))
    }

    @Test func keysUseTheLastFramesLayout() {
        let dashboard = dashboard()
        var grid = CellGrid(width: 80, height: 17)
        dashboard.render(into: &grid, now: startTime)
        #expect(dashboard.layout == DashboardLayout(width: 80, height: 17, state: dashboard.shown))
        let rows = dashboard.logRows
        _ = dashboard.handle(.pageUp)
        #expect(dashboard.selectedSequence == 99 - (rows - 1))

        // A taller screen pages further.
        grid = CellGrid(width: 80, height: 40)
        dashboard.render(into: &grid, now: startTime)
        let tallerRows = dashboard.logRows
        #expect(tallerRows > rows)
        let before = dashboard.selectedSequence!
        _ = dashboard.handle(.pageUp)
        #expect(dashboard.selectedSequence == before - (tallerRows - 1))
    }

    @Test func drawingChangesNothing() {
        let dashboard = dashboard()
        // Scrolled and filtered, so that there is scroll state a draw could disturb.
        _ = dashboard.handle(.up)
        _ = dashboard.handle(.pageUp)
        _ = dashboard.handle(.character("/"))
        _ = dashboard.handle(.character("u"))
        _ = dashboard.handle(.enter)
        _ = dashboard.handle(.up)
        let view = dashboard.layOut(width: 80, height: 24, now: startTime)
        let before = Scroll(dashboard)

        var first = CellGrid(width: 80, height: 24)
        var second = CellGrid(width: 80, height: 24)
        view.draw(into: &first)
        view.draw(into: &second)
        #expect(first == second)
        #expect(Scroll(dashboard) == before)

        // render is the layout, then the same draw.
        var rendered = CellGrid(width: 80, height: 24)
        dashboard.render(into: &rendered, now: startTime)
        #expect(rendered == first)
        #expect(dashboard.framesRendered == before.frames + 1)
    }

    @Test("a pane draws itself from its own state, its area and the canvas, without the frame")
    func aPaneDrawsItself() {
        let dashboard = dashboard()
        let view = dashboard.layOut(width: 80, height: 24, now: startTime)
        var whole = CellGrid(width: 80, height: 24)
        view.draw(into: &whole)

        // The log pane as the frame laid it out, drawn alone into a blank grid, fills its
        // rectangle exactly as it does in the whole frame, and nothing outside it.
        let area = view.layout.panes[DashboardController.logPane]
        var alone = CellGrid(width: 80, height: 24)
        view.panes[DashboardController.logPane].draw(
            into: &alone, area: area, canvas: view.canvas, focusedPart: 0)
        for y in 0..<24 {
            if area.y <= y && y < area.y + area.height {
                #expect(alone.row(y) == whole.row(y), "row \(y)")
            } else {
                #expect(alone.row(y).allSatisfy { $0 == " " }, "row \(y)")
            }
        }
    }

    /// What a frame could disturb.
    private struct Scroll: Equatable {
        let selected: Int?
        let top: Int?
        let following: Bool
        let tableSelection: Int
        let tableTop: Int
        let layout: DashboardLayout?
        let frames: Int

        init(_ dashboard: SourceDashboard) {
            selected = dashboard.selectedSequence
            top = dashboard.topSequence
            following = dashboard.isFollowing
            tableSelection = dashboard.tableSelection
            tableTop = dashboard.tableTop
            layout = dashboard.layout
            frames = dashboard.framesRendered
        }
    }
}

/// A pane that asks for `rows` (all that is left when `nil`), gives rows back down to
/// `minimum`, and has `titleRows` rows above its lines.
private struct FixedPane: DashboardPane {
    let focusTitles: [String]
    let name = "fixed"
    let enterHelp = "nothing"
    let rows: Int?
    let minimum: Int?
    let titleRows: Int

    init(title: String = "Fixed", rows: Int?, minimum: Int? = nil, titleRows: Int = 2) {
        focusTitles = [title]
        self.rows = rows
        self.minimum = minimum
        self.titleRows = titleRows
    }

    func height(screenHeight: Int, state: DashboardState) -> Int? { rows }
    func minimumHeight(screenHeight: Int, state: DashboardState) -> Int? { minimum }
    func contentRows(in area: Rect) -> Int { max(0, area.height - titleRows) }
    mutating func layOut(rows: Int, in context: PaneContext) {}
    func draw(into grid: inout CellGrid, area: Rect, canvas: PaneCanvas, focusedPart: Int?) {}
    mutating func move(by delta: Int, rows: Int, in context: PaneContext) {}
    mutating func moveToFirst(in context: PaneContext) {}
    mutating func moveToLast(in context: PaneContext) {}
    mutating func open(in context: PaneContext) -> PaneEffect? { nil }
}
