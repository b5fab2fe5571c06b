import BusMonitor
import BusWire
import EventBus
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

/// Sticky events and the events slow streams dropped, as the dashboard shows them.
@Suite("Sticky events and dropped events on screen")
struct StickyAndDropsTests {
    /// A dashboard whose snapshot has a sticky login and a stream that dropped 7 data loads.
    static func dashboard() -> SourceDashboard {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        let snapshot = BusSnapshot(
            busName: "app",
            eventTypes: [
                statistics("DataLoadedEvent", live: 1, published: 10),
                statistics("UserLoggedInEvent", live: 1, published: 1),
            ],
            wildcardObservers: 1,
            handlers: [
                HandlerStatistics(
                    observerTypeName: nil, eventTypeName: "DataLoadedEvent", calls: 10, dropped: 7)
            ],
            stickyEvents: [
                StickyEvent(
                    typeName: "UserLoggedInEvent",
                    event: UserLoggedInEvent(userId: "id-ada", userName: "ada"),
                    version: 1)
            ])
        source.enqueue(SourceBatch(events: [login("ada", at: startTime)], snapshot: snapshot))
        dashboard.update(now: startTime + 1)
        return dashboard
    }

    @Test("a type with a sticky event is marked, in Unicode and in ASCII")
    func stickyMark() {
        let dashboard = Self.dashboard()
        let grid = rendered(dashboard, width: 100, height: 30, now: startTime + 1)
        let row = grid.text.split(separator: "\n").first { $0.hasPrefix("UserLoggedInEvent") }
        #expect(row?.hasPrefix("UserLoggedInEvent ◆") == true, "\(row ?? "no row")")
        let plain = grid.text.split(separator: "\n").first { $0.hasPrefix("DataLoadedEvent") }
        #expect(plain?.contains("◆") == false)
    }

    @Test("a line's details show its type's sticky event")
    func stickyValueInTheDetails() {
        let dashboard = Self.dashboard()
        _ = rendered(dashboard, width: 100, height: 30, now: startTime + 1)
        _ = dashboard.handle(.enter)
        let grid = rendered(dashboard, width: 100, height: 30, now: startTime + 1)
        let lines = grid.text.split(separator: "\n").filter { $0.contains("sticky") }
        #expect(
            lines.contains { $0.contains(#"sticky    {"userId":"id-ada","userName":"ada"}"#) }, "\(lines)")
    }

    @Test("events a stream dropped show in the header, the Handlers pane and the details")
    func drops() {
        let dashboard = Self.dashboard()
        let grid = rendered(dashboard, width: 120, height: 30, now: startTime + 1)
        #expect(grid.row(0).contains("7 missed by streams"), "\(grid.row(0))")
        let lines = grid.text.split(separator: "\n").map(String.init)
        let title = lines.firstIndex { $0.hasPrefix("─ Handlers ─") }
        #expect(title.map { lines[$0].contains("7 dropped") } == true)
        #expect(title.map { lines[$0 + 2].hasSuffix("7") } == true)
    }

    @Test("handler counts from an app too large to add up are shown as the largest, not a crash")
    func handlerTotalsThatWouldOverflow() {
        var tracker = HandlerTracker()
        let rows = (0..<3).map { index in
            HandlerStatistics(
                observerTypeName: "Screen\(index)", eventTypeName: "DataLoadedEvent", calls: .max,
                slowCalls: .max, failures: .max, dropped: .max)
        }
        tracker.take(BusSnapshot(busName: "app", eventTypes: [], wildcardObservers: 0, handlers: rows))
        #expect(tracker.failures == .max)
        #expect(tracker.slowCalls == .max)
        #expect(tracker.dropped == .max)
        tracker.take(BusSnapshot(busName: "app", eventTypes: [], wildcardObservers: 0, handlers: [rows[0]]))
        #expect(tracker.failures == .max)
        tracker.take(BusSnapshot(busName: "app", eventTypes: [], wildcardObservers: 0, handlers: []))
        #expect(tracker.failures == 0 && tracker.dropped == 0)
    }
}
