import BusMonitor
import BusWire
import EventBus
import Foundation
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

/// The dashboard of a replay moved through: every pane shows the bus as it was at the cursor.
@Suite("Replay timeline on the dashboard")
struct ReplayTimelineDashboardTests {
    /// The count of `T` the dashboard shows, and the newest log line's event number.
    static func shown(_ dashboard: SourceDashboard) -> (count: Int?, newest: String?) {
        let count = dashboard.shown.rows.first { $0.name == "T" }?.published
        let newest = dashboard.shown.log.sequences.last.flatMap { sequence -> String? in
            if case .event(let event)? = dashboard.shown.log[sequence]?.content { return event.payload.text }
            return nil
        }
        return (count, newest)
    }

    @Test("a move to a moment in the recording's first second shows the rates it had there")
    func ratesRightAfterTheStart() throws {
        let directory = TemporaryDirectory()
        // A hundred events a second from the start.
        let path = try TimelineRecording.write(times: (0..<500).map { Double($0) / 100 }, in: directory)
        let replay = try ReplaySource(path: path, speed: 1)
        let dashboard = SourceDashboard(source: replay)
        var now = 1_700_000_000.0
        _ = dashboard.handle(.character(" "))
        now += 0.04
        dashboard.update(now: now)
        #expect(replay.perform(.goTo.with(value: "3")) == "at 00:03.0")
        now += 0.04
        dashboard.update(now: now)
        #expect(replay.perform(.goTo.with(value: "0.6")) == "at 00:00.6")
        now += 0.04
        dashboard.update(now: now)
        let state = dashboard.shown
        let rate = try #require(state.rows.first { $0.name == "T" }).meter.rate(at: state.sourceTime(at: now))
        #expect((80...120).contains(rate), "T at \(rate) a second")
    }

    /// A recording of an app's process 11 that goes away at 5 s, and of its process 12, attached
    /// at 7 s: each publishes four events a second apart, after a snapshot.
    static func restartRecording(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("restart.jsonl")
        let start = 1_700_000_000.0
        func snapshot(at time: Double) -> String {
            FeedRecord.snapshot(
                FeedSnapshot(
                    time: time, snapshot: BusSnapshot(busName: "b", eventTypes: [], wildcardObservers: 1))
            ).encodeLine()
        }
        func event(_ number: Int, at time: Double) -> String {
            FeedRecord.event(
                FeedEvent(
                    sequence: number, time: time, typeName: "T", payload: .description("\(number)"),
                    receivers: 1)
            ).encodeLine()
        }
        // The app's process 11 goes away at 5 s; process 12 is attached at 7 s.
        var lines = [FeedRecord.hello(FeedHello(pid: 11, process: "app", bus: "b", time: start)).encodeLine()]
        lines.append(snapshot(at: start))
        lines += (1...4).map { event($0, at: start + Double($0)) }
        lines.append(
            FeedRecord.detached(FeedDetached(time: start + 5, pid: 11, process: "app", bus: "b")).encodeLine()
        )
        lines.append(
            FeedRecord.hello(FeedHello(pid: 12, process: "app", bus: "b", time: start + 7)).encodeLine())
        lines.append(snapshot(at: start + 7))
        lines += (1...4).map { event($0, at: start + 7 + Double($0)) }
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    @Test("the header names the process whose records the panes show, stepping over a restart either way")
    func theHeaderNamesTheProcessAtTheCursor() throws {
        let directory = TemporaryDirectory()
        let path = try Self.restartRecording(in: directory)
        let dashboard = SourceDashboard(source: try ReplaySource(path: path, speed: 1))
        var now = 1_800_000_000.0
        func press(_ character: Character) {
            _ = dashboard.handle(.character(character))
            now += 0.04
            dashboard.update(now: now)
        }
        func header() -> String {
            var grid = CellGrid(width: 120, height: 30)
            dashboard.render(into: &grid, now: now)
            return grid.row(0)
        }
        press(" ")  // pause at the start
        for _ in 0..<4 { press(".") }
        #expect(header().contains("(pid 11)"), "\(header())")
        press(".")  // over the detach and the new process's hello, to its first event
        #expect(Self.shown(dashboard).newest == "1")
        #expect(
            header().contains("(pid 12)"), "the frame that shows process 12's event names it: \(header())")
        // Back to just before that event: process 12, attached before it, is the one watched
        // (the log's newest lines say process 11 went away and 12 was attached).
        press(",")
        #expect(header().contains("(pid 12)"), "\(header())")
        press(",")
        #expect(Self.shown(dashboard).newest == "3")
        #expect(header().contains("(pid 11)"), "\(header())")
        press(".")
        press(".")
        #expect(header().contains("(pid 12)"), "\(header())")
    }

    @Test("the log's first line says which app was attached, after a move back to the start too")
    func theFirstAttachIsLoggedAfterAMoveBack() throws {
        let directory = TemporaryDirectory()
        let dashboard = SourceDashboard(
            source: try ReplaySource(path: Self.restartRecording(in: directory), speed: 1))
        var now = 1_800_000_000.0
        func press(_ character: Character) {
            _ = dashboard.handle(.character(character))
            now += 0.04
            dashboard.update(now: now)
        }
        func attachLines() -> [String] {
            dashboard.shown.log.sequences.compactMap { sequence -> String? in
                guard case .notice(let notice)? = dashboard.shown.log[sequence]?.content,
                    notice.text.hasPrefix("attached to app (pid 11)")
                else { return nil }
                return notice.text
            }
        }
        press(" ")  // pause at the start
        press(".")
        #expect(attachLines().count == 1)
        press(">")
        press("<")
        #expect(Self.shown(dashboard).newest == "1", "back at the first event, read again from the start")
        #expect(attachLines().count == 1, "the log as it read when the replay played from the start")
        press(".")
        #expect(attachLines().count == 1)
    }

    @Test(
        "after a jump, only the changes of the seconds before the cursor are highlighted, as when it played")
    func highlightsAfterAJumpAreTheRecordings() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("reclaims.jsonl")
        let start = 1_700_000_000.0
        // A snapshot a second for 20 s, and one subscriber of T reclaimed every fourth second
        // (at 1, 5, 9, 13 and 17 s): each a change of its own, since a change stays marked 3 s
        var lines = [FeedRecord.hello(FeedHello(pid: 1, process: "app", bus: "b", time: start)).encodeLine()]
        for second in 0...20 {
            let reclaimed = (second + 3) / 4
            let statistics = EventTypeStatistics(
                typeName: "T", liveSubscribers: 30 - reclaimed, reclaimedSubscribers: reclaimed,
                published: second)
            lines.append(
                FeedRecord.snapshot(
                    FeedSnapshot(
                        time: start + Double(second),
                        snapshot: BusSnapshot(busName: "b", eventTypes: [statistics], wildcardObservers: 1))
                ).encodeLine())
        }
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        // When the cursor jumps to 15 s, reading the 15 s before it in one frame: in a replay
        // already shown, and in one that starts there (`--at`)
        for startsThere in [false, true] {
            let replay = try ReplaySource(path: path, speed: 1)
            let dashboard = SourceDashboard(source: replay)
            var now = 1_800_000_000.0
            if startsThere {
                #expect(replay.pause(at: 15) == nil)
            } else {
                _ = dashboard.handle(.character(" "))
                dashboard.update(now: now)
                #expect(replay.perform(.goTo.with(value: "15")) == "at 00:15.0")
            }
            now += 0.04
            dashboard.update(now: now)
            // Then what shows is the reclaim at 13 s, as when it played: not the four since 0
            let state = dashboard.shown
            let tracker = try #require(state.rows.first { $0.name == "T" }).subscribers
            let highlightNow = state.highlightTime(now: now)
            let live = try #require(tracker.liveChange)
            #expect(live.isRecent(at: highlightNow), "starts there: \(startsThere)")
            #expect(live.delta == -1, "\(live), starts there: \(startsThere)")
            #expect(
                tracker.recentDead?.delta == 1,
                "\(String(describing: tracker.recentDead)), starts there: \(startsThere)")
        }
    }

    @Test(
        "after a jump to a whole second, a sparse type's rate is read over the two seconds before it, as played"
    )
    func sparseRatesAfterAJump() throws {
        let directory = TemporaryDirectory()
        // One, two or three events a second in turn (at .0, .3 and .6), for 30 s
        let times = (0..<30).flatMap { second in
            [0.0, 0.3, 0.6].prefix(second % 3 + 1).map { Double(second) + $0 }
        }
        let (meter, at) = try meterOfT(afterJumpingTo: 11, times: times, in: directory)
        // Then the rate counts 9.0 to 11.0 (four events) over two seconds: a reading where
        // second 9 began, not at 8.6, the last event before it
        let rate = meter.rate(at: at)
        #expect(abs(rate - 2) < 0.01, "T at \(rate) a second")
        // And each second's events are in that second's column of the sparkline
        #expect(meter.history(seconds: 5, at: at) == [1, 2, 3, 1, 2])
    }

    /// The rate meter of type `T` once a replay of events at `times` jumped to `target`, and the
    /// time the dashboard reads it at.
    private func meterOfT(
        afterJumpingTo target: Double, times: [Double], in directory: TemporaryDirectory
    ) throws -> (meter: RateMeter, at: Double) {
        let replay = try ReplaySource(path: TimelineRecording.write(times: times, in: directory), speed: 1)
        let dashboard = SourceDashboard(source: replay)
        #expect(replay.pause(at: target) == nil)
        let now = 1_800_000_000.0
        dashboard.update(now: now)
        let state = dashboard.shown
        return (try #require(state.rows.first { $0.name == "T" }).meter, state.sourceTime(at: now))
    }

    @Test(
        "after a jump to a moment between two seconds, a sparse type's rate starts its window there, as played"
    )
    func sparseRatesAfterAJumpBetweenSeconds() throws {
        let directory = TemporaryDirectory()
        // An event at the start, then two a second, at .05 and .95, for 30 s
        let times: [Double] = [0] + (0..<30).flatMap { second in [0.05, 0.95].map { Double(second) + $0 } }
        let (meter, at) = try meterOfT(afterJumpingTo: 20.9, times: times, in: directory)
        // Then the rate counts 18.9 to 20.9 (four events) over two seconds, as playing reads it
        // frame by frame: not from the end of second 17, five events over 2.9 s
        let rate = meter.rate(at: at)
        #expect(abs(rate - 2) < 0.01, "T at \(rate) a second")
    }

    @Test("a move on from a silence across an app's restart reads the rates a move from anywhere else reads")
    func ratesAfterAMoveOnFromASilence() throws {
        let directory = TemporaryDirectory()
        // Ten events a second until 10 s, nothing until a new process at 12 s, ten a second
        // again
        let path = try TimelineRecording.writeRestartedApp(start: 1_800_000_000, in: directory)
        func rate(movingFrom start: Double?, to target: Double) throws -> Double {
            let replay = try ReplaySource(path: path, speed: 1)
            let dashboard = SourceDashboard(source: replay)
            var now = 1_700_000_000.0
            if let start {
                #expect(replay.pause(at: start) == nil)
                dashboard.update(now: now)
                now += 0.04
                _ = replay.perform(.goTo.with(value: "\(target)"))
            } else {
                #expect(replay.pause(at: target) == nil)
            }
            dashboard.update(now: now)
            let state = dashboard.shown
            return state.totalMeter.rate(at: state.sourceTime(at: now))
        }
        // When the cursor moves to 13.5 s (13.6 s on the recording's clock: the cursor counts from
        // the first event, at 0.1 s) from the start, from before the silence, and from within it
        // (a move that reads on from where the cursor stood)
        let rates = try [nil, 8, 11].map { try rate(movingFrom: $0, to: 13.5) }
        // Then each reads the 16 events from 12.1 s to 13.6 s over the two seconds before the
        // cursor, not over the 2.5 s since the cursor's last reading in the silence
        for rate in rates { #expect(abs(rate - 8) < 0.1, "rates \(rates)") }
    }

    @Test(
        "a move past a restart more than a minute after the old process went away reads the rates as played")
    func ratesAfterAMovePastALateRestart() throws {
        let directory = TemporaryDirectory()
        // Ten events a second until 10 s, nothing until a new process at 100 s, ten a second
        // again: the minute a move reads again before its cursor ends in the silence
        let path = try TimelineRecording.writeRestartedApp(start: 1_800_000_000, backAt: 100, in: directory)
        let replay = try ReplaySource(path: path, speed: 1)
        let dashboard = SourceDashboard(source: replay)
        // When the replay starts at 101.5 s (101.6 s on the recording's clock), as `--at` starts it
        #expect(replay.pause(at: 101.5) == nil)
        let now = 1_700_000_000.0
        dashboard.update(now: now)
        // Then the rate reads the 16 events from 100.1 s to 101.6 s over the two seconds before
        // the cursor, as playing on to there reads them: not over the 1.4 s since the first
        let state = dashboard.shown
        let rate = state.totalMeter.rate(at: state.sourceTime(at: now))
        #expect(abs(rate - 8) < 0.1, "rate \(rate)")
    }

    @Test("--at past the end: the log reads in time order, the warning that says so last")
    func pastTheEndIsSaidLast() throws {
        let directory = TemporaryDirectory()
        let replay = try ReplaySource(path: Self.restartRecording(in: directory), speed: 1)
        let dashboard = SourceDashboard(source: replay)
        // When the replay starts at 30 s, past the recording's end (11 s), and says so, as
        // `busmon --replay FILE --at 30` does
        #expect(replay.pause(at: 30) == nil)
        let warning = "--at 00:30.0 is past the recording's end, 00:11.0: the state is at its end"
        replay.warn(warning)
        dashboard.update(now: 1_800_000_000)
        // Then the attaches and the detach are among the events, and the warning, stamped at the
        // end, is the last line: not the first attach after it
        let state = dashboard.shown
        let entries = state.log.sequences.compactMap { state.log[$0] }
        let times = entries.map(\.time)
        #expect(times == times.sorted(), "\(entries.map(\.detailText))")
        #expect(entries.last?.detailText == warning, "\(entries.map(\.detailText))")
        let notices = entries.compactMap { entry -> SourceNotice? in
            guard case .notice(let notice) = entry.content else { return nil }
            return notice
        }
        #expect(notices.count == 4, "\(notices.map(\.text))")
    }

    @Test(
        "after playing, steps and a move back to where it paused show the sparklines and rates that playing showed"
    )
    func movesKeepThePlayedRates() throws {
        let directory = TemporaryDirectory()
        // Events at uneven times, more and more of them a second, for 12 s, the first 0.37 s past
        // a whole second of the recording's clock (the sparklines count the clock's seconds)
        var times: [Double] = []
        var time = 0.37
        while time < 12 {
            times.append(time)
            time += 0.37 / (1 + time / 3)
        }
        // Playback paced by a clock the frames move, 20 ms each, however busy the machine
        let playbackClock = LockedValue(0.0)
        let replay = try ReplaySource(
            path: TimelineRecording.write(times: times, in: directory), speed: 8,
            playbackClock: { playbackClock.current })
        let dashboard = SourceDashboard(source: replay)
        // Given the replay played, frame by frame, to about 9 s, and paused there
        var now = 1_700_000_000.0
        while replay.cursor < 9 {
            playbackClock.withLock { $0 += 0.02 }
            now += 0.04
            dashboard.update(now: now)
        }
        _ = dashboard.handle(.character(" "))
        now += 0.04
        dashboard.update(now: now)
        func readings() throws -> (rate: Double, history: [Int], second: Int) {
            let state = dashboard.shown
            let meter = try #require(state.rows.first { $0.name == "T" }).meter
            let at = state.sourceTime(at: now)
            return (
                (meter.rate(at: at) * 10).rounded() / 10, meter.history(seconds: 5, at: at),
                Int((at - 1_000).rounded(.down))
            )
        }
        let paused = replay.cursor
        let played = try readings()
        // Then each whole second's events are in that second's column, whatever frames they
        // came in (the sparkline ends with the last whole second)
        let perSecond = ((played.second - 5)..<played.second).map { second in
            times.filter { Int($0.rounded(.down)) == second }.count
        }
        #expect(played.history == perSecond, "at second \(played.second)")
        // When it steps one record on and one back, then moves to where it paused
        for key: Character in [".", ","] {
            _ = dashboard.handle(.character(key))
            now += 0.04
            dashboard.update(now: now)
        }
        _ = replay.perform(.goTo.with(value: String(format: "%.4f", paused)))
        now += 0.04
        dashboard.update(now: now)
        // Then the sparkline reads as it did, and the rate within 5% of itself: playing at eight
        // times the speed reads the rates every 0.32 s of the recording, a move every tenth of
        // a second in the three before its cursor, and the rate's two-second window starts
        // between two readings (10.1 and 10.0 a second here)
        let moved = try readings()
        #expect(moved.history == played.history, "played \(played), moved \(moved)")
        #expect(abs(moved.rate - played.rate) <= 0.05 * played.rate, "played \(played), moved \(moved)")
    }

    @Test(
        "after a move, each snapshot is its own reading of the subscribers: two cleanups in one second are not added up"
    )
    func snapshotsAfterAMoveAreReadOneByOne() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("cleanups.jsonl")
        // Given snapshots twice a second, and two of them in one second each reclaiming one
        // subscription that no snapshot caught dead
        let reclaimedAt: [Double: Int] = [8.0: 1, 8.5: 2]
        var reclaimed = 0
        let lines = stride(from: 0.0, through: 10, by: 0.5).map { time -> String in
            reclaimed = reclaimedAt.first { abs($0.key - time) < 0.2 }?.value ?? reclaimed
            return FeedRecord.snapshot(
                FeedSnapshot(
                    time: 1_000 + time,
                    snapshot: BusSnapshot(
                        busName: "b",
                        eventTypes: [
                            EventTypeStatistics(
                                typeName: "T", liveSubscribers: 5 - reclaimed, reclaimedSubscribers: reclaimed
                            )
                        ],
                        wildcardObservers: 1))
            ).encodeLine()
        }
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 1)
        let dashboard = SourceDashboard(source: replay)
        // When the replay moves to just after the second cleanup
        #expect(replay.pause(at: 9.0) == nil)
        dashboard.update(now: 1_700_000_000)
        // Then DEAD keeps the one that second cleanup reclaimed, as playing showed it, not two
        let tracker = try #require(dashboard.shown.rows.first { $0.name == "T" }).subscribers
        #expect(tracker.counts.reclaimed == 2)
        #expect(tracker.recentDead?.delta == 1, "\(String(describing: tracker.recentDead))")
    }

    @Test("stepping back undoes what stepping on did, and a jump back shows the bus as it was")
    func movesUndoEachOther() throws {
        let directory = TemporaryDirectory()
        let replay = try ReplaySource(path: TimelineRecording.write(seconds: 40, in: directory), speed: 1)
        let dashboard = SourceDashboard(source: replay)
        var now = 1_700_000_000.0
        func press(_ character: Character) {
            _ = dashboard.handle(.character(character))
            now += 0.04
            dashboard.update(now: now)
        }
        press(" ")  // pause at the start
        press(">")
        let atTen = Self.shown(dashboard)
        #expect(atTen.count == 101 && atTen.newest == "100")
        press(">")
        #expect(Self.shown(dashboard).count == 201)
        press("<")
        #expect(Self.shown(dashboard) == atTen)
        press(",")
        #expect(Self.shown(dashboard) == (100, "99"))
        press(".")
        #expect(Self.shown(dashboard) == atTen)

        // t asks for a time in the bottom line, and Enter goes there.
        press("t")
        var prompt = CellGrid(width: 120, height: 30)
        dashboard.render(into: &prompt, now: now)
        #expect(prompt.row(29).hasPrefix("Go to (mm:ss, h:mm:ss or seconds): "), "\(prompt.row(29))")
        for character in "0:25" { press(character) }
        _ = dashboard.handle(.enter)
        now += 0.04
        dashboard.update(now: now)
        #expect(Self.shown(dashboard) == (251, "250"), "\(dashboard.currentMessage(at: now) ?? "no message")")
        #expect(dashboard.currentMessage(at: now) == "at 00:25.0")
        press("<")
        #expect(Self.shown(dashboard) == (151, "150"))

        // n and N: the next and previous lines the filter shows.
        press("/")
        for character in "99" { press(character) }
        _ = dashboard.handle(.enter)
        press("n")
        #expect(Self.shown(dashboard) == (200, "199"), "\(dashboard.currentMessage(at: now) ?? "")")
        press("n")
        #expect(Self.shown(dashboard) == (300, "299"))
        press("N")
        #expect(Self.shown(dashboard) == (200, "199"))
        _ = dashboard.handle(.escape)
        press("<")
        #expect(Self.shown(dashboard) == (100, "99"))
        press(".")
        press(".")
        press(".")
        press(".")
        press(".")
        press(".")
        #expect(Self.shown(dashboard) == (106, "105"))
        for _ in 0..<9 { press(".") }
        #expect(Self.shown(dashboard) == (115, "114"))
        press(">")
        press(">")
        press(",")
        press("<")
        press("<")
        press(".")
        #expect(Self.shown(dashboard) == (115, "114"))

        // The header says where the cursor is, and that the replay is paused; Space is the
        // recording's, not the display's.
        var grid = CellGrid(width: 120, height: 30)
        dashboard.render(into: &grid, now: now)
        #expect(grid.row(0).contains("replay 00:11.4 / 00:39.9 [##--------] paused"), "\(grid.row(0))")
        // The cursor is the replay's place: no "up" clock, which would start over at each jump.
        #expect(!grid.row(0).contains(" up "), "\(grid.row(0))")
        #expect(grid.row(29).contains("Space Play"))
        #expect(!dashboard.isPaused, "the display itself is not frozen")
    }

    @Test("n finds a reclaim by the words of the log's line for it, as the filter shows it")
    func findsAReclaimByItsLogLine() throws {
        let directory = TemporaryDirectory()
        let path = try TimelineRecording.write(seconds: 30, in: directory)
        // At 20 s, ChatScreen #43's two subscriptions are reclaimed, in two reports of which the
        // log makes one line, "ChatScreen #43 deallocated; ...": neither report has the word.
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        // Each report stamped apart, microseconds after the one before, as a tap stamps them.
        func reclaims(of observer: UInt64, at time: Double) -> [String] {
            ["UserLoggedInEvent", "DataLoadedEvent"].enumerated().map { index, type in
                String(
                    FeedRecord.lifecycle(
                        FeedLifecycle(
                            time: time + Double(index) * 0.000_003 + Double(observer % 2) * 0.000_001,
                            change: SubscriberLifecycleEvent(
                                kind: .reclaimed, eventTypeName: type, observerTypeName: "ChatScreen",
                                observerID: observer, reclaimedBy: .publish(eventTypeName: type)))
                    ).encodeLine().dropLast())
            }
        }
        // And ChatScreen #44's at 25 s.
        lines.insert(contentsOf: reclaims(of: 43, at: 1_020.04), at: 201)
        lines.insert(contentsOf: reclaims(of: 44, at: 1_025.04), at: 253)
        // And at 22 s #45 and #46 at once, their reports interleaved, as a sweep makes them.
        let both = zip(reclaims(of: 45, at: 1_022.04), reclaims(of: 46, at: 1_022.04)).flatMap { [$0, $1] }
        lines.insert(contentsOf: both, at: 223)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)

        let dashboard = SourceDashboard(source: try ReplaySource(path: path, speed: 1))
        var now = 1_700_000_000.0
        func press(_ character: Character) {
            _ = dashboard.handle(.character(character))
            now += 0.04
            dashboard.update(now: now)
        }
        press(" ")
        press("/")
        for character in "deallocated" { press(character) }
        _ = dashboard.handle(.enter)
        press("n")
        #expect(
            dashboard.currentMessage(at: now) == "found at 00:20.0",
            "\(dashboard.currentMessage(at: now) ?? "")")
        var grid = CellGrid(width: 120, height: 30)
        dashboard.render(into: &grid, now: now)
        // The cursor stops after the object's last report: the log's line for it, whole.
        #expect(grid.text.contains("ChatScreen #43 deallocated; 2 subscriptions reclaimed"), "\(grid.text)")
        // Its second report is no line of its own, on or back: n goes to the next object's,
        // and N back from there to this one.
        press("n")
        #expect(dashboard.currentMessage(at: now) == "found at 00:22.0")
        // One stop for the moment: both objects' lines whole.
        grid = rendered(dashboard, width: 120, height: 30, now: now + 0.2)
        #expect(grid.text.contains("ChatScreen #45 deallocated; 2 subscriptions reclaimed"), "\(grid.text)")
        #expect(grid.text.contains("ChatScreen #46 deallocated; 2 subscriptions reclaimed"), "\(grid.text)")
        now += 0.2  // the clock of that frame
        press("n")
        #expect(dashboard.currentMessage(at: now) == "found at 00:25.0")
        // A frame later than the log's pacing of ten moves a second.
        grid = rendered(dashboard, width: 120, height: 30, now: now + 0.2)
        #expect(grid.text.contains("ChatScreen #44 deallocated; 2 subscriptions reclaimed"), "\(grid.text)")
        press("n")
        #expect(dashboard.currentMessage(at: now) == "no later line matches")
        press("N")
        #expect(dashboard.currentMessage(at: now) == "found at 00:22.0")
        press("N")
        #expect(dashboard.currentMessage(at: now) == "found at 00:20.0")
        press("N")
        #expect(dashboard.currentMessage(at: now) == "no earlier line matches")
    }
}
