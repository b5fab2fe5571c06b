import BusMonitor
import BusWire
import EventBus
import Foundation
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

/// What busmon says of why: the Handlers pane, the header's stopped cascades, failures and slow
/// calls, and an event's call site, causes and effects in its detail view.
@Suite("Why: handlers, causes and call sites")
struct WhyTests {
    static let site = PublishSite(fileID: "App/LoginService.swift", line: 42)

    static func traced(
        _ event: FeedEvent, id: UInt64, cause: UInt64? = nil, site: PublishSite? = WhyTests.site
    ) -> FeedEvent {
        FeedEvent(
            sequence: 0, time: event.time, typeName: event.typeName, payload: event.payload,
            receivers: event.receivers,
            origin: event.origin, trace: PublishTrace(eventID: id, causeID: cause, site: site))
    }

    static func snapshot() -> BusSnapshot {
        BusSnapshot(
            busName: "app", eventTypes: [statistics("DataLoadedEvent", live: 3, published: 20)],
            wildcardObservers: 1,
            handlers: [
                HandlerStatistics(
                    observerTypeName: "HomeViewController", eventTypeName: "DataLoadedEvent", calls: 20,
                    total: .milliseconds(64), maximum: .milliseconds(32), slowCalls: 2,
                    waits: DeliveryWaits(
                        count: 20, p50: .microseconds(100), p99: .milliseconds(12), maximum: .milliseconds(14)
                    )),
                HandlerStatistics(
                    observerTypeName: "PhotoCache", eventTypeName: "DataLoadedEvent", calls: 20,
                    total: .microseconds(80), maximum: .microseconds(9), failures: 3),
                HandlerStatistics(
                    observerTypeName: nil, eventTypeName: "UserLoggedInEvent", calls: 5,
                    total: .microseconds(5),
                    maximum: .microseconds(2)),
            ])
    }

    /// A dashboard that saw a login set off a data load, a stopped cascade, a failure and a
    /// slow call, and a snapshot with handler rows.
    static func dashboard() -> (SourceDashboard, ScriptedSource) {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        let login = traced(login("ada", at: startTime), id: 10)
        let load = traced(
            dataLoaded(["session:ada"], at: startTime + 0.1), id: 11, cause: 10,
            site: PublishSite(fileID: "App/SessionStore.swift", line: 7))
        let changes = [
            SubscriberLifecycleEvent(
                kind: .cascadeStopped, eventTypeName: "Ping", count: 10_000,
                reason:
                    "Ping → Pong → Ping (Pong at Loop.swift:3, Ping at Loop.swift:9), stopped after 10000 events"
            ),
            SubscriberLifecycleEvent(
                kind: .handlerFailed, eventTypeName: "DataLoadedEvent", observerTypeName: "PhotoCache",
                observerID: 4, reason: "cache entry for photos is corrupt"),
            SubscriberLifecycleEvent(
                kind: .slowHandler, eventTypeName: "DataLoadedEvent", observerTypeName: "HomeViewController",
                observerID: 2, duration: .milliseconds(32)),
        ].map { FeedLifecycle(time: startTime + 0.2, change: $0) }
        source.enqueue(SourceBatch(events: [login, load], lifecycle: changes, snapshot: snapshot()))
        dashboard.update(now: startTime + 1)
        return (dashboard, source)
    }

    @Test("the header counts stopped cascades, failures and slow calls; the log says what they were")
    func headerAndLog() {
        let (dashboard, _) = Self.dashboard()
        let grid = rendered(dashboard, width: 120, height: 30, now: startTime + 1)
        let header = grid.row(0)
        #expect(header.contains("1 cascade stopped"), "\(header)")
        // In the Handlers pane's order, frame after frame.
        #expect(header.contains("3 failed  2 slow"), "\(header)")
        #expect(grid.text.contains("cascade stopped: Ping → Pong → Ping"))
        #expect(
            grid.text.contains("PhotoCache #4 failed on DataLoadedEvent: cache entry for photos is corrupt"))
        #expect(grid.text.contains("slow handler: HomeViewController #2 took 32 ms on DataLoadedEvent"))
    }

    @Test("on small screens the Handlers pane leaves out whole columns and gives the log its lines")
    func handlersOnSmallScreens() throws {
        let (dashboard, _) = Self.dashboard()
        for (width, height, shown, leftOut) in [
            (100, 30, "SLOW  FAILED  DROPPED", ""), (80, 24, "WAIT   SLOW  FAILED", "DROPPED"),
            (70, 20, "MAX   SLOW  FAILED", "WAIT"), (60, 16, "AVG   SLOW  FAILED", "MAX"),
        ] {
            let grid = rendered(dashboard, width: width, height: height, now: startTime + 1)
            let lines = grid.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let title = try #require(
                lines.firstIndex { $0.hasPrefix("─ Handlers ─ 3 handlers") }, "\(grid.text)")
            #expect(lines[title + 1].hasSuffix(shown), "\(width)x\(height): \(lines[title + 1])")
            #expect(lines[title + 2].hasPrefix("PhotoCache") || lines[title + 2].hasPrefix("HomeView"))
            if !leftOut.isEmpty { #expect(!grid.text.contains(leftOut), "\(width)x\(height)") }
            // The log keeps at least two lines of its own.
            let log = try #require(lines.firstIndex { $0.hasPrefix("─ Log") })
            #expect(height - 1 - (log + 1) >= 2, "\(width)x\(height)\n\(grid.text)")
        }
    }

    @Test("in a wide window the Handlers pane's counts stay near the names they count")
    func handlersInAWideWindow() throws {
        let (dashboard, _) = Self.dashboard()
        let grid = rendered(dashboard, width: 250, height: 50, now: startTime + 1)
        let lines = grid.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let title = try #require(lines.firstIndex { $0.hasPrefix("─ Handlers ─ 3 handlers") }, "\(grid.text)")
        let header = lines[title + 1]
        let dropped = try #require(header.range(of: "DROPPED"))
        #expect(header.distance(from: header.startIndex, to: dropped.upperBound) <= 2 * 44 + 62, "\(header)")
        #expect(
            header.distance(from: header.startIndex, to: try #require(header.range(of: "TYPE")).lowerBound)
                == 44)
    }

    @Test("the Handlers pane lists calls, times, slow calls and failures, worst first")
    func handlersPane() throws {
        let (dashboard, _) = Self.dashboard()
        let grid = rendered(dashboard, width: 100, height: 30, now: startTime + 1)
        let lines = grid.text.split(separator: "\n").map(String.init)
        let title = try #require(
            lines.firstIndex { $0.hasPrefix("─ Handlers ─ 3 handlers, 3 failed, 2 slow") })
        #expect(lines[title + 1].hasPrefix("OBSERVER"))
        #expect(lines[title + 1].hasSuffix("CALLS       AVG      MAX      WAIT   SLOW  FAILED  DROPPED"))
        // Worst first: the most slow calls and failures.
        #expect(lines[title + 2].hasPrefix("PhotoCache"))
        #expect(lines[title + 2].hasSuffix("20  0.004 ms 0.009 ms         -      0       3        0"))
        #expect(lines[title + 3].hasPrefix("HomeViewController"))
        #expect(lines[title + 3].hasSuffix("20    3.2 ms    32 ms     12 ms      2       0        0"))
        #expect(lines[title + 4].hasPrefix("token"))
        #expect(lines[title + 4].contains("UserLoggedInEvent"))
    }

    @Test("deliveries that waited past the threshold are counted in the header and the pane, and logged")
    func lateDeliveries() throws {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        let snapshot = BusSnapshot(
            busName: "app", eventTypes: [statistics("DataLoadedEvent", live: 1, published: 40)],
            wildcardObservers: 0,
            handlers: [
                HandlerStatistics(
                    observerTypeName: "HomeViewController", eventTypeName: "DataLoadedEvent", calls: 40,
                    total: .milliseconds(4), maximum: .microseconds(400),
                    waits: DeliveryWaits(
                        count: 40, p50: .milliseconds(1), p99: .milliseconds(30), maximum: .milliseconds(28),
                        slowDeliveries: 3))
            ])
        let late = SubscriberLifecycleEvent(
            kind: .slowDelivery, eventTypeName: "DataLoadedEvent", count: 3,
            observerTypeName: "HomeViewController",
            observerID: 2, duration: .milliseconds(28))
        source.enqueue(
            SourceBatch(
                events: [], lifecycle: [FeedLifecycle(time: startTime + 0.2, change: late)],
                snapshot: snapshot))
        dashboard.update(now: startTime + 1)
        let grid = rendered(dashboard, width: 120, height: 30, now: startTime + 1)
        #expect(grid.row(0).contains("3 late"), "\(grid.row(0))")
        let lines = grid.text.split(separator: "\n").map(String.init)
        let title = try #require(lines.firstIndex { $0.hasPrefix("─ Handlers ─ 1 handler, 3 late") })
        #expect(lines[title + 2].contains("    30 ms "))
        #expect(
            grid.text.contains(
                "slow delivery: DataLoadedEvent to HomeViewController #2 waited 28 ms to start"))
    }

    @Test("Enter on a handler filters the log by its type")
    func enterFilters() {
        let (dashboard, _) = Self.dashboard()
        _ = rendered(dashboard, width: 100, height: 30, now: startTime + 1)
        let handlers = DashboardController.focusOrder.firstIndex {
            $0.pane == DashboardController.handlersPane
        }!
        while dashboard.focusIndex != handlers { _ = dashboard.handle(.tab) }
        _ = dashboard.handle(.enter)
        let grid = rendered(dashboard, width: 100, height: 30, now: startTime + 1)
        #expect(grid.row(0).contains("filter: DataLoade"))
        #expect(grid.text.contains("DataLoadedEvent ") && !grid.text.contains("id-ada"))
    }

    @Test(
        "an event's detail names its call site, its causes up to the top-level publish, what it set off and its handlers"
    )
    func detailView() {
        let (dashboard, _) = Self.dashboard()
        _ = rendered(dashboard, width: 100, height: 40, now: startTime + 1)
        // The log: the login, the load, then three lifecycle lines; following selects the last.
        for _ in 0..<3 { _ = dashboard.handle(.up) }
        _ = dashboard.handle(.enter)
        var grid = rendered(dashboard, width: 100, height: 40, now: startTime + 1)
        #expect(grid.text.contains("type      DataLoadedEvent"))
        #expect(grid.text.contains("event     #11"))
        #expect(grid.text.contains("site      SessionStore.swift:7"))
        #expect(grid.text.contains("cause     #10 UserLoggedInEvent at LoginService.swift:42"))
        #expect(grid.text.contains("(top-level publish)"))
        #expect(grid.text.contains("handlers  PhotoCache: 20 calls, avg 0.004 ms, max 0.009 ms, 3 failed"))
        #expect(grid.text.contains("HomeViewController: 20 calls, avg 3.2 ms, max 32 ms, 2 slow"))
        #expect(grid.text.contains("  waited p50 0.10 ms, p99 12 ms, max 14 ms"))

        _ = dashboard.handle(.escape)
        _ = dashboard.handle(.up)
        _ = dashboard.handle(.enter)
        grid = rendered(dashboard, width: 100, height: 40, now: startTime + 1)
        #expect(grid.text.contains("type      UserLoggedInEvent"))
        #expect(grid.text.contains("cause     none: published outside any handler"))
        #expect(grid.text.contains("set off   #11 DataLoadedEvent at SessionStore.swift:7"))
    }

    @Test("without handler rows there is no Handlers pane, and old events show no lineage")
    func nothingToShow() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        source.enqueue(SourceBatch(events: [login("ada", at: startTime)]))
        dashboard.update(now: startTime)
        let grid = rendered(dashboard, width: 100, height: 30, now: startTime)
        #expect(!grid.text.contains("Handlers"))
        _ = dashboard.handle(.enter)
        let detail = rendered(dashboard, width: 100, height: 30, now: startTime)
        #expect(detail.text.contains("Details (Esc closes)"))
        #expect(!detail.text.contains("cause "))
    }
}
