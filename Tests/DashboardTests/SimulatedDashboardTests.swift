import BusMonitor
import BusWire
import BusmonApp
import EventBus
import Foundation
import ScreenGrid
import Simulator
import TestSupport
import Testing

@testable import Dashboard

/// The whole pipeline: a simulated app, a local source capturing its bus, the dashboard.
@Suite("Dashboard on a simulated app")
struct SimulatedDashboardTests {
    private func wallClock() -> Double { Date().timeIntervalSince1970 }

    @Test func showsTheAppsTrafficAndItsCleanup() throws {
        let bus = EventBus(name: "simulated")
        let app = SimulatedApp(bus: bus, seed: 7, rate: 200, churn: 5)
        let source = LocalBusSource(
            bus: bus, title: "simulated app (seed 7)", snapshotInterval: 0,
            supportedCommands: SourceCommandDescription.simulatedApp
        ) { command in
            command == .destroyScreens ? "closed \(app.destroyScreens()) screens" : nil
        }
        let dashboard = SourceDashboard(source: source)

        for _ in 0..<20 {
            app.advance(by: 0.25)
            dashboard.update(now: wallClock())
        }
        _ = dashboard.handle(.character("c"))
        bus.reclaimDeadSubscriptions()
        dashboard.update(now: wallClock())

        var grid = CellGrid(width: 120, height: 40)
        dashboard.render(into: &grid, now: wallClock())
        let text = grid.text
        #expect(text.contains("simulated app (seed 7)"))
        #expect(text.contains("UserLoggedInEvent"))
        #expect(text.contains("DataLoadedEvent"))
        #expect(text.contains("closed 10 screens"))
        // The dashboard's counts are the bus's.
        let snapshot = bus.snapshot()
        let loads = try #require(snapshot["DataLoadedEvent"])
        let row = try #require(dashboard.live.rows.first { $0.name == "DataLoadedEvent" })
        #expect(row.published == loads.published)
        #expect(row.subscribers.counts.reclaimed == loads.reclaimedSubscribers)

        // Filtering the log shows the cleanup and the duplicate subscriptions.
        _ = dashboard.handle(.character("/"))
        for character in "reclaimed" { _ = dashboard.handle(.character(character)) }
        _ = dashboard.handle(.enter)
        dashboard.render(into: &grid, now: wallClock())
        // One line per object, whatever the number of types it heard.
        #expect(grid.text.contains("ViewController #"))
        #expect(grid.text.contains(" deallocated; "))
        #expect(grid.text.contains(" reclaimed by a publish of "))

        _ = dashboard.handle(.character("/"))
        for _ in 0..<9 { _ = dashboard.handle(.backspace) }
        for character in "duplicate" { _ = dashboard.handle(.character(character)) }
        _ = dashboard.handle(.enter)
        dashboard.render(into: &grid, now: wallClock())
        #expect(grid.text.contains("duplicate DataLoadedEvent subscription by NewsFeedViewController"))
    }

    @Test func highRatesDropDetailButKeepExactTotals() throws {
        let bus = EventBus(name: "simulated")
        let app = SimulatedApp(bus: bus, seed: 1, rate: 100_000, churn: 0)
        let source = LocalBusSource(bus: bus, capacity: 10_000, snapshotInterval: 0)
        let dashboard = SourceDashboard(source: source)

        app.advance(by: 0.5)
        dashboard.update(now: wallClock())

        let published = bus.snapshot().totalPublished
        #expect(published >= 50_000)
        #expect(dashboard.live.totalPublished == published)
        #expect(dashboard.live.droppedEvents == published - 10_000)
        #expect(dashboard.live.log.count == DashboardState.logCapacity)
        var grid = CellGrid(width: 120, height: 24)
        dashboard.render(into: &grid, now: wallClock())
        #expect(grid.row(0).contains("\(TextFormat.grouped(published - 10_000)) dropped (too fast)"))
        // A narrower header says the count alone, beside the state and the failures
        var narrow = CellGrid(width: 80, height: 24)
        dashboard.render(into: &narrow, now: wallClock())
        #expect(
            narrow.row(0).contains("live  \(TextFormat.grouped(published - 10_000)) dropped  "),
            "\(narrow.row(0))")
    }

    @Test("lost lifecycle changes are named in the header apart from lost events")
    func lostLifecycleChangesInTheHeader() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        var grid = CellGrid(width: 120, height: 24)

        var changesOnly = SourceBatch(status: "attached")
        changesOnly.droppedLifecycle = 1
        source.enqueue(changesOnly)
        dashboard.update(now: wallClock())
        dashboard.render(into: &grid, now: wallClock())
        #expect(grid.row(0).contains("1 lifecycle change dropped (too fast)"))

        var both = SourceBatch(droppedEvents: 12_345, status: "attached")
        both.droppedLifecycle = 3
        source.enqueue(both)
        dashboard.update(now: wallClock())
        dashboard.render(into: &grid, now: wallClock())
        #expect(grid.row(0).contains("12,345 events, 3 lifecycle changes dropped (too fast)"))
    }

    @Test("a narrow header keeps a replay's cursor and the drops, in brief, before the rate")
    func narrowHeaderKeepsTheStateAndTheDrops() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        var batch = SourceBatch(droppedEvents: 12_345, status: "replay 00:03.0 / 00:05.1 [#####-----] paused")
        batch.briefStatus = "replay 00:03.0 paused"
        batch.droppedLifecycle = 3
        source.enqueue(batch)
        dashboard.update(now: wallClock())
        var grid = CellGrid(width: 60, height: 24)
        dashboard.render(into: &grid, now: wallClock())
        #expect(grid.row(0).contains("replay 00:03.0 paused  12,345 dropped"), "\(grid.row(0))")
        var wide = CellGrid(width: 160, height: 24)
        dashboard.render(into: &wide, now: wallClock())
        #expect(
            wide.row(0).contains(
                "replay 00:03.0 / 00:05.1 [#####-----] paused  12,345 events, 3 lifecycle changes dropped (too fast)"
            ),
            "\(wide.row(0))")
    }

    @Test("records of apps past a fleet's limit are named as such, not as dropped for being too fast")
    func appsPastTheLimitInTheHeader() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        var grid = CellGrid(width: 120, height: 24)
        var batch = SourceBatch(status: "listening")
        batch.droppedFromAppsPastTheLimit = 2_500
        source.enqueue(batch)
        dashboard.update(now: wallClock())
        dashboard.render(into: &grid, now: wallClock())
        #expect(grid.row(0).contains("2,500 records of apps past 1,000 dropped"), "\(grid.row(0))")
        #expect(!grid.row(0).contains("too fast"))
        // And the state line (`--at` with `--headless`) counts them apart too
        let state = dashboard.stateReport(cursor: nil, now: wallClock())
        #expect(
            state.contains(#""dropped":0,"#) && state.contains(#""droppedFromAppsPastTheLimit":2500"#),
            "\(state)")
    }

    @Test("the state line's log holds the lifecycle changes an object's reclaim line is made of")
    func reclaimsInTheStateLog() throws {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        let start = wallClock()
        // One object's subscriptions to two types reclaimed: one log line.
        source.enqueue(
            SourceBatch(
                lifecycle: ["UserLoggedInEvent", "UserLoggedOutEvent"].map { type in
                    FeedLifecycle(
                        time: start,
                        change: SubscriberLifecycleEvent(
                            kind: .reclaimed, eventTypeName: type, observerTypeName: "LoginScreen",
                            observerID: 41,
                            deadFor: .milliseconds(12),
                            reclaimedBy: .publish(eventTypeName: "DataLoadedEvent")))
                }))
        dashboard.update(now: start)
        #expect(dashboard.shown.log.sequences.count == 1)
        let line = dashboard.stateReport(cursor: nil, now: start)
        let state = try #require(
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let log = try #require(state["log"] as? [[String: Any]])
        #expect(log.count == 2, "\(log)")
        #expect(
            log.allSatisfy { $0["kind"] as? String == "lifecycle" && $0["change"] as? String == "reclaimed" },
            "\(log)")
        #expect(
            Set(log.compactMap { $0["eventTypeName"] as? String }) == [
                "UserLoggedInEvent", "UserLoggedOutEvent",
            ], "\(log)")
    }
}
