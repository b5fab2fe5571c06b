import BusMonitor
import BusWire
import EventBus
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

/// What the dashboard makes of a source's counters, clock and notices: baselines after
/// attaching, a replay's own time, restarts, and notices in the log.
@Suite("Dashboard state")
struct DashboardStateTests {
    private func render(
        _ dashboard: SourceDashboard, width: Int = 100, height: Int = 30, now: Double
    )
        -> CellGrid
    {
        var grid = CellGrid(width: width, height: height)
        dashboard.render(into: &grid, now: now)
        return grid
    }

    /// The words of the table row of `type`.
    private func row(_ grid: CellGrid, _ type: String) throws -> [Substring] {
        let line = try #require((0..<grid.height).map(grid.row).first { $0.hasPrefix(type + " ") })
        return line.split(separator: " ")
    }

    /// The rate shown for `type`.
    private func rate(_ grid: CellGrid, _ type: String) throws -> Double {
        try #require(Double(try row(grid, type)[2]))
    }

    /// The header's rate, all types.
    private func headerRate(_ grid: CellGrid) throws -> Double {
        let words = grid.row(0).split(separator: " ")
        let index = try #require(words.firstIndex(of: "ev/s"))
        return try #require(Double(words[index - 1]))
    }

    private func snapshot(published: Int, live: Int = 4) -> BusSnapshot {
        BusSnapshot(
            busName: "app", eventTypes: [statistics("DataLoadedEvent", live: live, published: published)],
            wildcardObservers: 1)
    }

    @Test func attachingToARunningAppTakesItsTotalsAsABaseline() throws {
        // Given an app that published 88,521 events before busmon attached, and now publishes
        // 20 a second; the first batches carry events, the first snapshot comes a second later
        let source = ScriptedSource(supportedCommands: [])
        let dashboard = SourceDashboard(source: source)
        var now = startTime
        var published = 88_521
        for tick in 1...40 {
            now += 0.1
            published += 2
            source.enqueue(
                SourceBatch(
                    events: [dataLoaded(["a"], at: now - 0.02), dataLoaded(["b"], at: now - 0.01)],
                    snapshot: tick >= 10 ? snapshot(published: published) : nil))
            dashboard.update(now: now)
        }

        // Then the count is the bus's exact total, the rate is the app's, and the sparkline
        // has no spike for the history from before
        let grid = render(dashboard, now: now)
        #expect(try row(grid, "DataLoadedEvent")[1] == "\(published)")
        #expect(try abs(rate(grid, "DataLoadedEvent") - 20) <= 2)
        #expect(try abs(headerRate(grid) - 20) <= 2)
        let meter = try #require(dashboard.live.rows.first).meter
        let history = meter.history(seconds: 3, at: now)
        #expect(history.allSatisfy { (18...22).contains($0) }, "history \(history)")
        #expect(dashboard.live.totalMeter.history(seconds: 3, at: now).allSatisfy { $0 <= 22 })
    }

    /// A recording of 200 events a second made a day before `startTime`, with a snapshot every
    /// second whose totals start at 3,635, played at `speed` from `startTime`.
    private func replay(speed: Double, seconds: Double) -> (SourceDashboard, Double) {
        let source = ScriptedSource(supportedCommands: [.replaySpeed])
        let dashboard = SourceDashboard(source: source)
        let recordedStart = startTime - 86_400
        let frame = 0.04
        var played = 0.0
        var published = 3_635
        var now = startTime
        var nextSnapshot = 1.0
        while now - startTime < seconds {
            now += frame
            let upTo = played + frame * speed
            // Events every 5 ms of the recording.
            var events: [FeedEvent] = []
            var time = (played / 0.005).rounded(.up) * 0.005
            while time < upTo {
                events.append(dataLoaded(["r"], at: recordedStart + time))
                time += 0.005
            }
            published += events.count
            var snapshot: BusSnapshot?
            if upTo >= nextSnapshot {
                snapshot = self.snapshot(published: published)
                nextSnapshot += 1
            }
            played = upTo
            source.enqueue(
                SourceBatch(
                    events: events, snapshot: snapshot, status: "replay \(played)/60.0 s"))
            dashboard.update(now: now)
        }
        return (dashboard, now)
    }

    @Test func aReplayShowsTheRecordingsRateFromTheStart() throws {
        // Given a recording made at 200 events a second, played in real time
        let (dashboard, now) = replay(speed: 1, seconds: 1.5)
        // Then the rate is about 200 from its first seconds, with no burst for the totals
        // the recording started with, and the subscribers the first snapshot finds are not
        // shown as a change
        let grid = render(dashboard, now: now)
        #expect(try abs(headerRate(grid) - 200) <= 20)
        #expect(try abs(rate(grid, "DataLoadedEvent") - 200) <= 20)
        let words = try row(grid, "DataLoadedEvent")
        #expect(!words.contains { $0.hasPrefix("▼") || $0.hasPrefix("▲") }, "row \(words)")
    }

    @Test func aFasterReplayStillShowsTheRecordingsRate() throws {
        // Given the same recording played four times as fast
        let (dashboard, now) = replay(speed: 4, seconds: 2)
        // Then the rates are the recording's, on its own time stamps
        let grid = render(dashboard, now: now)
        #expect(try abs(headerRate(grid) - 200) <= 20)
        #expect(try abs(rate(grid, "DataLoadedEvent") - 200) <= 20)
        // and the sparkline's seconds are the recording's: seven or eight of them, all alike
        let sparkline = try row(grid, "DataLoadedEvent")[3]
        #expect(sparkline.count >= 7 && sparkline.allSatisfy { "▆▇█".contains($0) }, "\(sparkline)")
    }

    @Test func aNewProcessBehindTheSourceStartsFromABaseline() throws {
        // Given an app at 5,000 events, 20 a second, with 6 live subscribers
        let source = ScriptedSource(supportedCommands: [])
        let dashboard = SourceDashboard(source: source)
        var now = startTime
        var published = 5_000
        for _ in 1...30 {
            now += 0.1
            published += 2
            source.enqueue(
                SourceBatch(
                    events: [dataLoaded(["a"], at: now - 0.01), dataLoaded(["b"], at: now)],
                    snapshot: snapshot(published: published, live: 6)))
            dashboard.update(now: now)
        }
        // When a new process takes its place, at 10 events with 3 live subscribers, and goes
        // on at 20 a second
        let before = published
        published = 10
        for tick in 1...10 {
            now += 0.1
            published += 2
            source.enqueue(
                SourceBatch(
                    events: [dataLoaded(["a"], at: now - 0.01), dataLoaded(["b"], at: now)],
                    snapshot: snapshot(published: published, live: 3),
                    notices: tick == 1
                        ? [SourceNotice(time: now - 0.05, text: "attached to simapp (pid 13377)")] : [],
                    countersRestarted: tick == 1))
            dashboard.update(now: now)
        }

        // Then the two processes' totals show added up, as a fleet's apps' and the headless
        // summary's are, the rate goes on at 20 (no dip to zero, no spike), and the new
        // process's subscribers are not shown as a change
        let grid = render(dashboard, now: now)
        let words = try row(grid, "DataLoadedEvent")
        #expect(words[1] == "\(before + published)")
        #expect(try abs(rate(grid, "DataLoadedEvent") - 20) <= 3)
        #expect(try abs(headerRate(grid) - 20) <= 3)
        #expect(!words.contains { $0.hasPrefix("▼") || $0.hasPrefix("▲") }, "row \(words)")
        #expect(grid.text.contains("• attached to simapp (pid 13377)"))
    }

    @Test("after a new process, the header's failed and slow counts add up both processes', as its rows do")
    func handlerCountsRestartWithANewProcess() throws {
        func handlers(failures: Int, slow: Int) -> BusSnapshot {
            BusSnapshot(
                busName: "app", eventTypes: [statistics("DataLoadedEvent", live: 4, published: 10)],
                wildcardObservers: 1,
                handlers: [
                    HandlerStatistics(
                        observerTypeName: "PhotoCache", eventTypeName: "DataLoadedEvent", calls: 10,
                        slowCalls: slow, failures: failures)
                ])
        }
        func reports(failures: Int, slow: Int, at time: Double) -> [FeedLifecycle] {
            [
                FeedLifecycle(
                    time: time,
                    change: SubscriberLifecycleEvent(
                        kind: .handlerFailed, eventTypeName: "DataLoadedEvent", count: failures)),
                FeedLifecycle(
                    time: time,
                    change: SubscriberLifecycleEvent(
                        kind: .slowHandler, eventTypeName: "DataLoadedEvent", count: slow)),
            ]
        }
        // Given a process whose handlers failed 5 times and were slow 3 times
        let source = ScriptedSource(supportedCommands: [])
        let dashboard = SourceDashboard(source: source)
        let now = startTime + 1
        source.enqueue(
            SourceBatch(
                lifecycle: reports(failures: 5, slow: 3, at: now - 0.5),
                snapshot: handlers(failures: 5, slow: 3)))
        dashboard.update(now: now)
        #expect(render(dashboard, now: now).row(0).contains("5 failed"))
        // When a new process takes its place, whose handlers failed twice and were slow once
        source.enqueue(
            SourceBatch(
                lifecycle: reports(failures: 2, slow: 1, at: now + 0.5),
                snapshot: handlers(failures: 2, slow: 1),
                countersRestarted: true))
        dashboard.update(now: now + 1)
        // Then the header adds up both processes', as the Handlers pane does, and names the
        // one bus
        let header = render(dashboard, now: now + 1).row(0)
        #expect(header.contains("7 failed"), "\(header)")
        #expect(header.contains("4 slow"), "\(header)")
        #expect(!header.contains("fleet"), "\(header)")
    }

    @Test func noticesJoinTheLogInTimeOrderAndWarningsShowInTheHeader() throws {
        // Given a batch with events, a detach between them, and a warning after them
        let source = ScriptedSource(supportedCommands: [])
        let dashboard = SourceDashboard(source: source)
        let now = startTime + 1
        source.enqueue(
            SourceBatch(
                events: [login("ada", at: now - 0.4), login("bob", at: now - 0.2)],
                status: "detached",
                notices: [
                    SourceNotice(time: now - 0.3, text: "detached from simapp (pid 12943)"),
                    SourceNotice(
                        time: now - 0.1, text: "recording.jsonl:17: last line cut short, skipped",
                        isWarning: true),
                ]))
        dashboard.update(now: now)

        // Then the log holds them in time order, and the header shows the warning
        var grid = render(dashboard, now: now)
        let lines = (0..<grid.height).map(grid.row)
        let ada = try #require(lines.firstIndex { $0.contains("ada") })
        let detached = try #require(lines.firstIndex { $0.contains("• detached from simapp (pid 12943)") })
        let bob = try #require(lines.firstIndex { $0.contains("bob") })
        let warning = try #require(
            lines.firstIndex { $0.contains("• recording.jsonl:17: last line cut short") })
        #expect(ada < detached && detached < bob && bob < warning)
        #expect(grid.row(0).contains("! recording.jsonl:17"))
        let warningRow = grid.row(warning)
        let column = try #require(warningRow.firstRange(of: "recording")).lowerBound
        #expect(
            grid[warningRow.distance(from: warningRow.startIndex, to: column), warning].style.color == .red)

        // When a later notice says the source moved on, the warning leaves the header
        source.enqueue(
            SourceBatch(notices: [SourceNotice(time: now + 0.5, text: "attached to simapp (pid 13377)")]))
        dashboard.update(now: now + 1)
        grid = render(dashboard, now: now + 1)
        #expect(!grid.row(0).contains("recording.jsonl"))
        #expect(grid.text.contains("• attached to simapp (pid 13377)"))

        // A warning and a notice of one moment (a replay's warning about its file and the
        // attach it starts with) leave the warning in the header
        source.enqueue(
            SourceBatch(notices: [
                SourceNotice(
                    time: now + 2, text: "other.jsonl:9: last line cut short, skipped", isWarning: true),
                SourceNotice(time: now + 2, text: "attached to simapp (pid 13378)"),
            ]))
        dashboard.update(now: now + 2)
        grid = render(dashboard, now: now + 2)
        #expect(grid.row(0).contains("! other.jsonl:9"), "\(grid.row(0))")
        // and so does a notice of that moment, or an older one, in a later batch
        source.enqueue(SourceBatch(notices: [SourceNotice(time: now + 2, text: "attached again to simapp")]))
        dashboard.update(now: now + 3)
        grid = render(dashboard, now: now + 3)
        #expect(grid.row(0).contains("! other.jsonl:9"), "\(grid.row(0))")
    }

    @Test(
        "a dead count kept on screen after a reclaim is what one step reclaimed, not the last seconds' steps added up"
    )
    func recentDeadIsOneStep() {
        var tracker = SubscriberTracker()
        var counts = SubscriberCounts()
        counts.live = 10
        tracker.takeSnapshot(counts)
        tracker.noteChanges(at: 100)
        // Given two sweeps a second apart, reclaiming 2 and then 3 subscriptions that no
        // snapshot caught dead
        counts.reclaimed = 2
        tracker.takeSnapshot(counts)
        tracker.noteChanges(at: 101)
        counts.reclaimed = 5
        tracker.takeSnapshot(counts)
        tracker.noteChanges(at: 102)
        // Then DEAD keeps 3 for a moment, the most that were dead at once, and RECL's change
        // counts all 5
        #expect(tracker.recentDead == RecentChange(delta: 3, time: 102))
        #expect(tracker.reclaimChange?.delta == 5)
    }
}
