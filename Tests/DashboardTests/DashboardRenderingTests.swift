import BusMonitor
import BusWire
import EventBus
import Foundation
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

@Suite("Dashboard rendering")
struct DashboardRenderingTests {
    /// A dashboard that has seen a few seconds of a small app: logins and data loads, then
    /// three UserLoggedInEvent subscribers dying and being reclaimed.
    private func scriptedDashboard(
        options: DashboardOptions = DashboardOptions()
    ) -> (
        SourceDashboard, ScriptedSource, Double
    ) {
        let source = ScriptedSource(title: "scripted app")
        let dashboard = SourceDashboard(source: source, options: options)
        var now = startTime
        dashboard.update(now: now)
        for second in 0..<5 {
            now += 1
            source.enqueue(
                SourceBatch(
                    events: [
                        login("ada\(second)", at: now - 0.5), dataLoaded(["inbox", "news"], at: now - 0.4),
                    ],
                    snapshot: BusSnapshot(
                        busName: "app",
                        eventTypes: [
                            statistics("DataLoadedEvent", live: 6, dead: 1, published: 1_000 + second),
                            statistics("UserLoggedInEvent", live: 5, published: 42 + second, unheard: 2),
                        ], wildcardObservers: 1)))
            dashboard.update(now: now)
        }
        now += 0.5
        source.enqueue(
            SourceBatch(
                lifecycle: [
                    FeedLifecycle(
                        time: now - 0.1,
                        change: .init(kind: .reclaimed, eventTypeName: "UserLoggedInEvent", count: 3))
                ],
                snapshot: BusSnapshot(
                    busName: "app",
                    eventTypes: [
                        statistics("DataLoadedEvent", live: 6, dead: 1, published: 1_004),
                        statistics("UserLoggedInEvent", live: 2, reclaimed: 3, published: 46, unheard: 2),
                    ], wildcardObservers: 1),
                status: "live"))
        dashboard.update(now: now)
        return (dashboard, source, now)
    }

    /// The row of `grid` holding `text`.
    private func line(_ grid: CellGrid, containing text: String) -> String? {
        (0..<grid.height).map(grid.row).first { $0.contains(text) }
    }

    @Test(arguments: [(80, 24), (120, 40)])
    func fullScreenShowsWhatAPersonNeeds(width: Int, height: Int) throws {
        let (dashboard, _, now) = scriptedDashboard()
        let grid = rendered(dashboard, width: width, height: height, now: now)
        let text = grid.text

        // Header
        #expect(grid.row(0).contains("scripted app"))
        #expect(grid.row(0).contains("bus app"))
        #expect(grid.row(0).contains("live"))
        #expect(grid.row(0).contains("up 00:00:05"))
        // Both event types with their counts, subscribers and the drop just seen
        let logins = try #require(line(grid, containing: "UserLoggedInEvent "))
        #expect(logins.contains(" 46 "))
        #expect(logins.contains("▼3"))
        let loads = try #require(line(grid, containing: "DataLoadedEvent "))
        #expect(loads.contains("1004"))
        #expect(text.contains("* any type"))
        #expect(text.contains("Event types"))
        #expect(text.contains("Subscribers"))
        // The log, with payloads and the reclaim line
        #expect(text.contains(#"{"userId":"id-ada4","userName":"ada4"}"#))
        #expect(text.contains("reclaimed 3 dead UserLoggedInEvent subscriptions"))
        #expect(text.contains("following"))
        // The key bar
        #expect(grid.row(height - 1).hasPrefix("q Quit"))
        // Every row fits its width
        #expect((0..<height).allSatisfy { grid.row($0).count <= width })
        if width >= 120 {
            #expect(text.contains("UNSUB"))
            #expect(grid.row(height - 1).contains("? Help"))
        }
    }

    /// The wide subscriber columns come only where the sparklines keep 20 seconds beside them:
    /// at 110 columns they once cut the history to 11 s, against 33 s at 100.
    @Test func wideColumnsNeverSqueezeTheHistory() {
        for width in SourceDashboard.minimumWidth...220 {
            let columns = TableColumns(width: width)
            if columns.wide { #expect(columns.spark >= 20, "at \(width) columns") }
        }
        #expect(!TableColumns(width: 110).wide)
        #expect(TableColumns(width: 110).spark > TableColumns(width: 100).spark)
        #expect(TableColumns(width: 120).wide)
    }

    @Test func sparklineShowsTheRecentRate() throws {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        var now = startTime
        dashboard.update(now: now)
        for second in 1...8 {
            now = startTime + Double(second)
            source.enqueue(SourceBatch(events: (0..<(second * 5)).map { _ in login("ada", at: now) }))
            dashboard.update(now: now)
        }
        let grid = rendered(dashboard, width: 80, height: 24, now: now + 0.5)
        let row = try #require(line(grid, containing: "UserLoggedInEvent "))
        #expect(row.contains("▂▃▄▅▆▇█"))
    }

    @Test func tooSmallScreenSaysSoAndStillQuits() {
        let (dashboard, _, now) = scriptedDashboard()
        let grid = rendered(dashboard, width: 40, height: 10, now: now)
        #expect(grid.text.contains("Terminal too small"))
        #expect(grid.text.contains("40x10, need 60x16"))
        #expect(!dashboard.handle(.character("q")))
        // Degenerate sizes do not crash.
        _ = rendered(dashboard, width: 0, height: 0, now: now)
        _ = rendered(dashboard, width: 3, height: 1, now: now)
    }

    @Test func smallestFullSizeStillDrawsEveryPart() {
        let (dashboard, _, now) = scriptedDashboard()
        let grid = rendered(
            dashboard, width: SourceDashboard.minimumWidth, height: SourceDashboard.minimumHeight,
            now: now)
        #expect(grid.text.contains("Event types"))
        #expect(grid.text.contains("Log"))
        #expect(grid.row(grid.height - 1).hasPrefix("q Quit"))
        #expect(grid.text.contains("reclaimed 3 dead"))
    }

    @Test func pausedDisplayShowsTheBannerAndFrozenNumbers() throws {
        let (dashboard, source, now) = scriptedDashboard()
        _ = dashboard.handle(.character(" "))
        source.enqueue(
            SourceBatch(
                snapshot: BusSnapshot(
                    busName: "app", eventTypes: [statistics("UserLoggedInEvent", live: 2, published: 999)],
                    wildcardObservers: 1)))
        dashboard.update(now: now + 1)

        var grid = rendered(dashboard, width: 80, height: 24, now: now + 1)
        #expect(grid.row(0).contains("PAUSED"))
        #expect(grid.text.contains("PAUSED, space resumes"))
        let frozenRow = try #require(line(grid, containing: "UserLoggedInEvent "))
        #expect(frozenRow.contains(" 46 "))

        _ = dashboard.handle(.character(" "))
        grid = rendered(dashboard, width: 80, height: 24, now: now + 1)
        #expect(!grid.row(0).contains("PAUSED"))
        let liveRow = try #require(line(grid, containing: "UserLoggedInEvent "))
        #expect(liveRow.contains(" 999 "))
    }

    @Test func theLogOffersGOnlyWhileItHasTheFocus() throws {
        let (dashboard, _, now) = scriptedDashboard()
        _ = dashboard.handle(.up)
        var title = try #require(
            line(rendered(dashboard, width: 80, height: 24, now: now), containing: "─ Log "))
        #expect(title.contains("line 10/11, G follows"))

        // On another pane, G would act there, so the log only says it is not following.
        _ = dashboard.handle(.tab)
        title = try #require(line(rendered(dashboard, width: 80, height: 24, now: now), containing: "─ Log "))
        #expect(title.contains("line 10/11, not following"))
        #expect(!title.contains("G follows"))
    }

    @Test(
        "a file that stopped is said in the header and the log, and never pushes out the state, drops or suspects"
    )
    func stoppedFilesKeepTheHeaderReadable() throws {
        let source = ScriptedSource(title: "simapp (pid 4527, bus simapp)")
        let dashboard = SourceDashboard(source: source)
        let stopped = [
            "recording to /dev/full stopped: No space left on device",
            "trace to /dev/full stopped: No space left on device",
        ]
        var batch = SourceBatch(
            events: [login("ada", at: startTime)],
            snapshot: BusSnapshot(
                busName: "simapp", eventTypes: [statistics("UserLoggedInEvent", live: 2, published: 1)],
                wildcardObservers: 1),
            droppedEvents: 3, status: "attached")
        var told = false
        for (brief, problem) in zip(["recording stopped", "trace stopped"], stopped) {
            batch.add(problem: SourceProblem(brief: brief, text: problem), told: &told)
        }
        source.enqueue(batch)
        dashboard.update(now: startTime)
        for width in [100, 120, 150] {
            let header = rendered(dashboard, width: width, height: 30, now: startTime + 1).row(0)
            #expect(header.contains("attached"), "\(width): \(header)")
            #expect(header.contains("3 dropped"), "\(width): \(header)")
            #expect(header.contains("ev/s"), "\(width): \(header)")
            // In a few words, or whole: never cut where the point is lost
            #expect(
                header.contains("! 2 files failed  ")
                    || header.contains("! " + stopped.joined(separator: "; ")), "\(width): \(header)")
        }
        // Wide enough, every word of both
        let wide = rendered(dashboard, width: 240, height: 30, now: startTime + 1).row(0)
        #expect(wide.contains("! " + stopped.joined(separator: "; ")), "\(wide)")
        // And the first of them is a warning line in the log
        let text = rendered(dashboard, width: 150, height: 30, now: startTime + 1).text
        #expect(text.contains(stopped[0]))
        // And a filter typed keeps its words beside them: the problem's whole text takes only
        // the room every other item left
        _ = dashboard.handle(.character("/"))
        for character in "UserLoggedInEvent" { _ = dashboard.handle(.character(character)) }
        _ = dashboard.handle(.enter)
        let filtered = rendered(dashboard, width: 130, height: 30, now: startTime + 1).row(0)
        #expect(filtered.contains("! 2 files failed  "), "\(filtered)")
        #expect(filtered.contains("filter: User"), "\(filtered)")
        #expect(filtered.contains("attached") && filtered.contains("3 dropped"), "\(filtered)")
        #expect(filtered.contains("ev/s"), "\(filtered)")
    }

    @Test func filterPromptAndIndicatorShow() {
        let (dashboard, _, now) = scriptedDashboard()
        _ = dashboard.handle(.character("/"))
        for character in "!Data" { _ = dashboard.handle(.character(character)) }
        var grid = rendered(dashboard, width: 80, height: 24, now: now)
        #expect(grid.row(23).hasPrefix("Filter: !Data"))

        _ = dashboard.handle(.enter)
        grid = rendered(dashboard, width: 80, height: 24, now: now)
        #expect(grid.row(0).contains("filter: !Data"))
        #expect(!grid.text.contains(#"{"data":["inbox","news"]}"#))
        #expect(grid.text.contains("ada4"))
    }

    @Test func overlaysDrawOverTheDashboard() {
        let (dashboard, _, now) = scriptedDashboard()
        _ = dashboard.handle(.character("?"))
        var grid = rendered(dashboard, width: 80, height: 24, now: now)
        #expect(grid.text.contains("Help"))
        #expect(grid.text.contains("pause or resume the display"))
        _ = dashboard.handle(.escape)

        // The newest event line is two up from the bottom: the reclaim line is newest.
        _ = dashboard.handle(.up)
        _ = dashboard.handle(.enter)
        grid = rendered(dashboard, width: 80, height: 24, now: now)
        #expect(grid.text.contains("Details (Esc closes)"))
        #expect(grid.text.contains("receivers 3"))
        _ = dashboard.handle(.escape)
        grid = rendered(dashboard, width: 80, height: 24, now: now)
        #expect(!grid.text.contains("receivers 3"))
    }

    @Test func aLongNameInTheDetailsEndsInAnEllipsisAtTheBoxEdge() throws {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        let name = String(repeating: "VeryLongTypeName", count: 20)
        source.enqueue(
            SourceBatch(events: [
                FeedEvent(
                    sequence: 1, time: startTime, typeName: name, payload: .description("x"), receivers: 1)
            ]))
        dashboard.update(now: startTime)
        _ = dashboard.handle(.up)
        _ = dashboard.handle(.enter)
        let grid = rendered(dashboard, width: 80, height: 24, now: startTime)
        #expect(grid.text.contains("Details (Esc closes)"))
        let row = try #require((0..<grid.height).map(grid.row).first { $0.contains("VeryLongTypeNameVery") })
        #expect(row.contains("…"), "cut with an ellipsis: \(row)")
    }

    @Test func commandMessagesShowInTheLogTitle() {
        let (dashboard, _, now) = scriptedDashboard()
        _ = dashboard.handle(.character("+"))
        let grid = rendered(dashboard, width: 80, height: 24, now: now)
        #expect(grid.text.contains("rate 500/s"))
    }

    @Test func asciiOptionDrawsOnlyASCII() {
        let (dashboard, _, now) = scriptedDashboard(options: DashboardOptions(ascii: true))
        _ = dashboard.handle(.character("?"))
        for (width, height) in [(80, 24), (120, 40)] {
            let text = rendered(dashboard, width: width, height: height, now: now).text
            #expect(text.unicodeScalars.allSatisfy { $0.isASCII })
            #expect(text.contains("Help"))
        }
        _ = dashboard.handle(.escape)
        for (width, height) in [(80, 24), (120, 40)] {
            let text = rendered(dashboard, width: width, height: height, now: now).text
            #expect(text.unicodeScalars.allSatisfy { $0.isASCII })
            #expect(text.contains("UserLoggedInEvent"))
            #expect(text.contains("-3"))
        }
    }

    @Test func noColorOptionLeavesColoursOut() {
        let (dashboard, _, now) = scriptedDashboard(options: DashboardOptions(color: false))
        let grid = rendered(dashboard, width: 80, height: 24, now: now)
        var styled = 0
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                #expect(grid[x, y].style.color == nil)
                if grid[x, y].style != .plain { styled += 1 }
            }
        }
        // Bold and reverse remain, so highlights still show.
        #expect(styled > 0)

        let colored = rendered(scriptedDashboard().0, width: 80, height: 24, now: now)
        #expect((0..<24).contains { y in (0..<80).contains { colored[$0, y].style.color != nil } })
    }

    @Test func framesAreCounted() {
        let (dashboard, _, now) = scriptedDashboard()
        _ = rendered(dashboard, width: 80, height: 24, now: now)
        _ = rendered(dashboard, width: 30, height: 5, now: now)
        #expect(dashboard.framesRendered == 2)
    }
}

@Suite("Dashboard commands of a source")
struct SourceCommandsTests {
    /// A replay of an empty recording.
    private func replay(speed: Double) throws -> ReplaySource {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "busmon-dashboard-\(UUID().uuidString).jsonl"
        ).path
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try ReplaySource(path: path, speed: speed)
    }

    private func screen(_ source: any DashboardSource, help: Bool) -> CellGrid {
        let dashboard = SourceDashboard(source: source)
        dashboard.update(now: startTime)
        if help { _ = dashboard.handle(.character("?")) }
        var grid = CellGrid(width: 120, height: 40)
        dashboard.render(into: &grid, now: startTime)
        return grid
    }

    @Test func theSimulatedAppOffersItsRateAndDestroyingScreens() {
        let grid = screen(ScriptedSource(), help: true)
        #expect(grid.row(39).contains("+/- Rate"))
        #expect(grid.row(39).contains("c Destroy"))
        #expect(grid.text.contains("publish faster / slower (simulated app)"))
        #expect(grid.text.contains("close a batch of screens at once"))
    }

    @Test func aReplayOffersItsSpeedAndNoSimulatorCommands() throws {
        let source = try replay(speed: 1)
        let grid = screen(source, help: true)
        let bar = grid.row(39)
        #expect(bar.hasPrefix("q Quit"))
        #expect(bar.contains("+/- Speed"))
        #expect(!bar.contains("Rate"))
        #expect(!bar.contains("c Destroy"))
        #expect(grid.text.contains("play the recording faster / slower"))
        #expect(!grid.text.contains("publish faster"))
        #expect(!grid.text.contains("close a batch of screens"))

        // A key the source does not take does nothing; one it takes answers.
        let dashboard = SourceDashboard(source: source)
        dashboard.update(now: startTime)
        _ = dashboard.handle(.character("c"))
        #expect(dashboard.currentMessage(at: startTime) == nil)
        _ = dashboard.handle(.character("+"))
        #expect(dashboard.currentMessage(at: startTime) == "replay speed 2.0x")
    }

    @Test func aSourceWithoutCommandsOffersNoCommandKeys() throws {
        // A replay at full speed, and a source such as an attached app, take no commands.
        for source: any DashboardSource in [try replay(speed: 0), ScriptedSource(supportedCommands: [])] {
            let grid = screen(source, help: true)
            #expect(!grid.row(39).contains("+/-"))
            #expect(!grid.row(39).contains("c Destroy"))
            #expect(grid.row(39).contains("Tab Pane"))
            #expect(!grid.text.contains("faster / slower"))
            #expect(!grid.text.contains("close a batch of screens"))
        }
    }
}

@Suite("A lifecycle line's details")
struct LifecycleDetailsTests {
    @Test("say what changed in words, the count in its kind's unit, and no raw kind names")
    func changesReadAsWords() {
        func text(_ kind: SubscriberLifecycleEvent.Kind, count: Int = 1) -> String {
            DashboardView.changeText(SubscriberLifecycleEvent(kind: kind, eventTypeName: "T", count: count))
        }
        #expect(text(.leakSuspected) == "leak suspected")
        #expect(text(.cascadeStopped, count: 10_000) == "cascade stopped, 10000 events set off")
        #expect(text(.unsubscribed, count: 2) == "unsubscribed, 2 subscriptions")
        #expect(text(.reclaimed) == "reclaimed, 1 subscription")
        #expect(text(.slowHandler, count: 3) == "slow handler, 3 slow calls")
    }
}

@Suite("The header's title, short of room")
struct ShortenedTitleTests {
    @Test("loses its parenthetical whole rather than cut a number in it")
    func aParentheticalGoesWhole() {
        #expect(
            DashboardView.shortenedTitle("simulated app (seed 11)", width: 23, ellipsis: "…")
                == "simulated app (seed 11)")
        #expect(
            DashboardView.shortenedTitle("simulated app (seed 11)", width: 22, ellipsis: "…")
                == "simulated app…")
        #expect(
            DashboardView.shortenedTitle("simapp (pid 4737, bus simapp)", width: 12, ellipsis: "…")
                == "simapp…")
        #expect(
            DashboardView.shortenedTitle("simulated app (seed 11)", width: 8, ellipsis: "…") == "simulat…")
        #expect(
            DashboardView.shortenedTitle("a replay of session.jsonl", width: 12, ellipsis: "…")
                == "a replay of…")
    }
}
