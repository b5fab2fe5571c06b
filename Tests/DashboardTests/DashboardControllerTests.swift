import BusMonitor
import BusWire
import BusmonApp
import EventBus
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

@Suite("DashboardController")
struct DashboardControllerTests {
    /// A dashboard fed `seconds` seconds of logins at `perSecond`, one batch every 100 ms.
    private func feedLogins(
        _ source: ScriptedSource, _ dashboard: SourceDashboard, from start: Double = startTime,
        seconds: Int, perSecond: Int
    ) -> Double {
        var now = start
        let perBatch = perSecond / 10
        for _ in 0..<(seconds * 10) {
            now += 0.1
            source.enqueue(SourceBatch(events: (0..<perBatch).map { login("u\($0)", at: now) }))
            dashboard.update(now: now)
        }
        return now
    }

    private func shownLines(_ dashboard: SourceDashboard) -> [String] {
        let lines = dashboard.visibleLines()
        return (0..<lines.count).compactMap { dashboard.shown.log[lines.sequence(at: $0)]?.detailText }
    }

    /// The log lines a 80x17 frame shows.
    private func log(_ dashboard: SourceDashboard) -> LogView {
        dashboard.layOut(width: 80, height: 17, now: startTime).log
    }

    private func type(_ text: String, into dashboard: SourceDashboard) {
        for character in text { _ = dashboard.handle(.character(character)) }
    }

    @Test func countsAndRatesFollowTheEvents() throws {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        dashboard.update(now: startTime)
        let now = feedLogins(source, dashboard, seconds: 5, perSecond: 40)

        let row = try #require(dashboard.live.rows.first { $0.name == "UserLoggedInEvent" })
        #expect(row.published == 200)
        #expect(abs(row.meter.rate(at: now) - 40) < 1)
        #expect(abs(dashboard.live.totalMeter.rate(at: now) - 40) < 1)
        #expect(row.meter.history(seconds: 4, at: now) == [40, 40, 40, 40])
    }

    @Test("one record stamped an hour ahead (another clock, a stranger's) does not stop the rates")
    func aStampFarAheadDoesNotHoldTheClock() throws {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        dashboard.update(now: startTime)
        var now = feedLogins(source, dashboard, seconds: 2, perSecond: 40)
        // Given one event from a clock an hour ahead among the others,
        now += 0.1
        source.enqueue(SourceBatch(events: [dataLoaded(["x"], at: now + 3600)]))
        dashboard.update(now: now)
        // when the others go on as before,
        now = feedLogins(source, dashboard, from: now, seconds: 3, perSecond: 40)
        // then their rate still reads what they send, on this clock.
        let row = try #require(dashboard.live.rows.first { $0.name == "UserLoggedInEvent" })
        let reading = dashboard.live.sourceTime(at: now)
        #expect(reading <= now)
        #expect(abs(row.meter.rate(at: reading) - 40) < 1)
        #expect(abs(dashboard.live.totalMeter.rate(at: reading) - 40) < 2)
    }

    @Test("a batch whose last record comes from a clock an hour behind still moves the reading on")
    func aStampFarBehindLastInABatchDoesNotHoldTheClock() throws {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        dashboard.update(now: startTime)
        var now = startTime
        for _ in 0..<50 {
            now += 0.1
            source.enqueue(
                SourceBatch(
                    events: (0..<4).map { login("u\($0)", at: now) } + [dataLoaded(["x"], at: now - 3600)]))
            dashboard.update(now: now)
        }
        let row = try #require(dashboard.live.rows.first { $0.name == "UserLoggedInEvent" })
        let reading = dashboard.live.sourceTime(at: now)
        #expect(abs(reading - now) < 0.2)
        #expect(abs(row.meter.rate(at: reading) - 40) < 1)
    }

    @Test func snapshotsGiveExactCountsAndFeedEventsAddToThem() throws {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        source.enqueue(
            SourceBatch(
                events: [login("ada", at: startTime)],
                snapshot: BusSnapshot(
                    busName: "app", eventTypes: [statistics("UserLoggedInEvent", live: 4, published: 1_000)],
                    wildcardObservers: 1)))
        dashboard.update(now: startTime)
        source.enqueue(
            SourceBatch(events: [login("bob", at: startTime + 0.1), login("cy", at: startTime + 0.1)]))
        dashboard.update(now: startTime + 0.1)

        let row = try #require(dashboard.live.rows.first)
        // The snapshot holds the batch it came with; two events came after it.
        #expect(row.published == 1_002)
        #expect(row.subscribers.counts.live == 4)
        #expect(dashboard.live.wildcard.counts.live == 1)
        #expect(dashboard.live.busName == "app")
    }

    @Test func eventsAfterASnapshotInItsBatchAreAddedToIt() throws {
        // A tap's stream or a recording goes on after a snapshot: of the batch's three events,
        // the snapshot counts the first, and the two after it are added.
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        source.enqueue(SourceBatch(events: [login("ada", at: startTime)]))
        dashboard.update(now: startTime)
        source.enqueue(
            SourceBatch(
                events: ["bob", "cy", "dee"].map { login($0, at: startTime + 0.1) },
                snapshot: BusSnapshot(
                    busName: "app", eventTypes: [statistics("UserLoggedInEvent", live: 4, published: 2)],
                    wildcardObservers: 1),
                eventsAfterSnapshot: 2))
        dashboard.update(now: startTime + 0.1)

        let row = try #require(dashboard.live.rows.first)
        #expect(row.published == 4)
        #expect(dashboard.live.totalPublished == 4)
    }

    @Test func lifecycleChangesCountSubscribersWithoutSnapshots() throws {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        let changes: [SubscriberLifecycleEvent] = [
            .init(kind: .subscribed, eventTypeName: "DataLoadedEvent"),
            .init(kind: .subscribed, eventTypeName: "DataLoadedEvent"),
            .init(kind: .duplicateSubscription, eventTypeName: "DataLoadedEvent"),
            .init(kind: .reclaimed, eventTypeName: "DataLoadedEvent", count: 2),
            .init(kind: .subscribed, eventTypeName: "*"),
        ]
        source.enqueue(SourceBatch(lifecycle: changes.map { FeedLifecycle(time: startTime, change: $0) }))
        dashboard.update(now: startTime)

        let counts = try #require(dashboard.live.rows.first).subscribers.counts
        #expect(counts.live == 1)
        #expect(counts.reclaimed == 2)
        #expect(counts.duplicates == 1)
        #expect(dashboard.live.wildcard.counts.live == 1)
    }

    @Test func logIsBounded() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        source.enqueue(SourceBatch(events: (0..<7_000).map { login("u\($0)", at: startTime) }))
        dashboard.update(now: startTime)

        #expect(dashboard.live.log.count == DashboardState.logCapacity)
        // The newest lines are the ones kept, and every event is still counted.
        #expect(shownLines(dashboard).last?.contains("u6999") == true)
        #expect(dashboard.live.rows.first?.published == 7_000)
    }

    @Test func filterShowsMatchingLinesAndBangHidesThem() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        source.enqueue(
            SourceBatch(events: [
                login("ada", at: startTime), dataLoaded(["inbox"], at: startTime),
                login("grace", at: startTime),
            ]))
        dashboard.update(now: startTime)

        #expect(dashboard.handle(.character("/")))
        type("Grace", into: dashboard)
        #expect(dashboard.prompt == "Grace")
        _ = dashboard.handle(.enter)
        #expect(shownLines(dashboard) == [#"{"userId":"id-grace","userName":"grace"}"#])

        // Ctrl-W erases a word and the spaces before it, Ctrl-U the line; a paste is text,
        // cut to the prompt's length.
        _ = dashboard.handle(.character("/"))
        _ = dashboard.handle(.paste("Grace hopper  "))
        #expect(dashboard.prompt == "GraceGrace hopper  ")
        _ = dashboard.handle(.eraseWord)
        #expect(dashboard.prompt == "GraceGrace ")
        _ = dashboard.handle(.eraseLine)
        #expect(dashboard.prompt == "")
        _ = dashboard.handle(.paste(String(repeating: "x", count: 500)))
        #expect(dashboard.prompt?.count == DashboardController.longestPrompt)
        _ = dashboard.handle(.eraseLine)
        type("Grace", into: dashboard)
        _ = dashboard.handle(.enter)

        // Editing: reopen, erase, type an inverted type filter.
        _ = dashboard.handle(.character("/"))
        for _ in 0..<5 { _ = dashboard.handle(.backspace) }
        type("!userlogged", into: dashboard)
        _ = dashboard.handle(.enter)
        #expect(shownLines(dashboard) == [#"{"data":["inbox"]}"#])

        // Lines arriving later are filtered too.
        source.enqueue(SourceBatch(events: [dataLoaded(["news"], at: startTime + 1)]))
        dashboard.update(now: startTime + 1)
        #expect(shownLines(dashboard).count == 2)

        // Esc in the prompt keeps the filter; Esc outside clears it.
        _ = dashboard.handle(.character("/"))
        type("zzz", into: dashboard)
        _ = dashboard.handle(.escape)
        #expect(dashboard.filter?.expression == "!userlogged")
        _ = dashboard.handle(.escape)
        #expect(dashboard.filter == nil)
        #expect(shownLines(dashboard).count == 4)
    }

    @Test func qTypedIntoThePromptDoesNotQuit() {
        let dashboard = SourceDashboard(source: ScriptedSource())
        _ = dashboard.handle(.character("/"))
        #expect(dashboard.handle(.character("q")))
        #expect(dashboard.prompt == "q")
        #expect(!dashboard.handle(.interrupt))
    }

    @Test func quitKeys() {
        let dashboard = SourceDashboard(source: ScriptedSource())
        #expect(!dashboard.handle(.character("q")))
        #expect(!dashboard.handle(.interrupt))
        #expect(dashboard.handle(.character("x")))
        _ = dashboard.handle(.character("?"))
        #expect(!dashboard.handle(.character("q")))
    }

    @Test func scrollingUpStopsFollowingAndGResumes() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        source.enqueue(SourceBatch(events: (0..<100).map { login("u\($0)", at: startTime) }))
        dashboard.update(now: startTime)
        // 80x17 leaves the log 8 rows (the Observers pane says it has no data in 2).
        #expect(log(dashboard).sequences.count == 8)
        #expect(dashboard.logRows == 8)
        #expect(dashboard.isFollowing)

        _ = dashboard.handle(.up)
        #expect(!dashboard.isFollowing)
        #expect(dashboard.selectedSequence == 98)
        _ = dashboard.handle(.pageUp)
        #expect(dashboard.selectedSequence == 91)

        // New lines do not move the selection while not following.
        source.enqueue(SourceBatch(events: (100..<150).map { login("u\($0)", at: startTime + 1) }))
        dashboard.update(now: startTime + 1)
        let viewport = log(dashboard)
        #expect(viewport.selected == 91)
        #expect(viewport.sequences.contains(91))

        _ = dashboard.handle(.character("g"))
        #expect(dashboard.selectedSequence == 0)
        #expect(log(dashboard).sequences.first == 0)

        _ = dashboard.handle(.character("G"))
        #expect(dashboard.isFollowing)
        #expect(log(dashboard).sequences.last == 149)

        // Down onto the newest line follows again.
        _ = dashboard.handle(.up)
        _ = dashboard.handle(.down)
        #expect(dashboard.isFollowing)
    }

    @Test func pauseFreezesTheDisplayWhileCountingGoesOn() throws {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        source.enqueue(SourceBatch(events: [login("ada", at: startTime)]))
        dashboard.update(now: startTime)

        _ = dashboard.handle(.character(" "))
        #expect(dashboard.isPaused)
        source.enqueue(
            SourceBatch(events: [login("bob", at: startTime + 1), login("cy", at: startTime + 1)]))
        dashboard.update(now: startTime + 1)

        // The model counted; the display did not move.
        #expect(dashboard.live.rows.first?.published == 3)
        #expect(dashboard.shown.rows.first?.published == 1)
        #expect(shownLines(dashboard).count == 1)

        _ = dashboard.handle(.character(" "))
        #expect(!dashboard.isPaused)
        #expect(dashboard.shown.rows.first?.published == 3)
        #expect(shownLines(dashboard).count == 3)
    }

    @Test func rateKeysSendCommandsAndShowTheAnswer() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        dashboard.update(now: startTime)
        _ = dashboard.handle(.character("+"))
        _ = dashboard.handle(.character("-"))
        _ = dashboard.handle(.character("c"))
        #expect(source.performed == [.increaseRate, .decreaseRate, .destroyScreens])
        // The scripted source does not destroy screens, and the dashboard says so.
        #expect(dashboard.currentMessage(at: startTime + 1) == "this source does not take that command")
        #expect(dashboard.currentMessage(at: startTime + 10) == nil)
        _ = dashboard.handle(.character("+"))
        #expect(dashboard.currentMessage(at: startTime) == "rate 500/s")
    }

    @Test func enterOpensTheSelectedLineAndEscClosesIt() throws {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        source.enqueue(
            SourceBatch(events: [login("ada", at: startTime), dataLoaded(["inbox"], at: startTime)]))
        dashboard.update(now: startTime)

        _ = dashboard.handle(.up)
        _ = dashboard.handle(.enter)
        guard case .detail(let entry, _) = dashboard.overlay else {
            Issue.record("Enter did not open the line")
            return
        }
        #expect(entry.detailText.contains("ada"))
        _ = dashboard.handle(.escape)
        #expect(dashboard.overlay == nil)
    }

    @Test func tabMovesFocusAndEnterOnATypeFiltersByIt() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        source.enqueue(
            SourceBatch(events: [login("ada", at: startTime), dataLoaded(["inbox"], at: startTime)]))
        dashboard.update(now: startTime)

        #expect(dashboard.focusTitle == "Log")
        _ = dashboard.handle(.tab)
        #expect(dashboard.focusTitle == "Event types")
        // Types are sorted by name: DataLoadedEvent, UserLoggedInEvent, then the wildcard row.
        _ = dashboard.handle(.down)
        #expect(dashboard.tableSelection == 1)
        _ = dashboard.handle(.enter)
        #expect(dashboard.filter?.expression == "UserLoggedInEvent")
        _ = dashboard.handle(.tab)
        _ = dashboard.handle(.tab)
        #expect(dashboard.focusTitle == "Observers")
        _ = dashboard.handle(.tab)
        #expect(dashboard.focusTitle == "Log")
    }
}
