import BusMonitor
import EventBus
import Testing

@testable import Dashboard

/// A frame is laid out once, keys use that layout, and drawing changes nothing.
@Suite("Dashboard layout")
struct DashboardLayoutTests {
    /// A dashboard with 100 log lines of two types.
    private func dashboard() -> DashboardController {
        let source = ScriptedSource()
        let dashboard = DashboardController(source: source)
        source.enqueue(
            SourceBatch(
                events: (0..<50).flatMap {
                    [login("u\($0)", at: startTime), dataLoaded(["d\($0)"], at: startTime)]
                }))
        dashboard.update(now: startTime)
        return dashboard
    }

    @Test func theLayoutSplitsTheScreenIntoRectangles() {
        let layout = DashboardLayout(width: 80, height: 24, typeRows: 2)
        #expect(!layout.isTooSmall)
        #expect(layout.header == Rect(x: 0, y: 0, width: 80, height: 1))
        // Two types and the wildcard row, under a title rule and a row of column titles.
        #expect(layout.table == Rect(x: 0, y: 1, width: 80, height: 5))
        #expect(layout.tableRows == 3)
        #expect(layout.log == Rect(x: 0, y: 6, width: 80, height: 17))
        #expect(layout.logRows == 16)
        #expect(layout.bar == Rect(x: 0, y: 23, width: 80, height: 1))
        #expect(DashboardLayout(width: 59, height: 24, typeRows: 2).isTooSmall)
    }

    @Test func keysUseTheLastFramesLayout() {
        let dashboard = dashboard()
        var grid = CellGrid(width: 80, height: 17)
        dashboard.render(into: &grid, now: startTime)
        #expect(dashboard.layout == DashboardLayout(width: 80, height: 17, typeRows: 2))
        let rows = dashboard.layout!.logRows
        _ = dashboard.handle(.pageUp)
        #expect(dashboard.selectedSequence == 99 - (rows - 1))

        // A taller screen pages further.
        grid = CellGrid(width: 80, height: 40)
        dashboard.render(into: &grid, now: startTime)
        let tallerRows = dashboard.layout!.logRows
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

    /// What a frame could disturb.
    private struct Scroll: Equatable {
        let selected: Int?
        let top: Int?
        let following: Bool
        let tableSelection: Int
        let tableTop: Int
        let layout: DashboardLayout?
        let frames: Int

        init(_ dashboard: DashboardController) {
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
