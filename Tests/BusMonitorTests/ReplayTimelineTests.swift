import BusMonitor
import BusWire
import EventBus
import Foundation
import TestSupport
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A replay moved through as a person does: paused, stepped, jumped back and forth.
@Suite("Replay timeline")
struct ReplayTimelineTests {
    /// The numbers of the events in `batches`, in order.
    static func numbers(_ batches: [SourceBatch]) -> [Int] {
        batches.flatMap(\.events).compactMap { Int($0.payload.text) }
    }

    @Test(
        "a new process's hello stamped after the record that follows it never makes a reading earlier than the one before",
        arguments: [false, true])
    func readingsGoForwardPastAHelloAhead(moving: Bool) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("h.jsonl")
        func tick(_ number: Int, at time: Double) -> String {
            FeedRecord.event(
                FeedEvent(
                    sequence: number, time: time, typeName: "T", payload: .description("t"), receivers: 1)
            ).encodeLine()
        }
        let start = 1_000.0
        // Ten events a second for 5 s, then a new process whose hello is stamped 20 ms after its
        // first event (clocks a few milliseconds apart), across a tenth of a second where a move
        // reads in tenths, across a whole second where playing reads in seconds
        let restart = moving ? 6.3 : 6.0
        var lines = [FeedRecord.hello(FeedHello(pid: 7, process: "app", bus: "b", time: start)).encodeLine()]
        lines += (0..<50).map { tick($0 + 1, at: start + Double($0) / 10) }
        lines.append(
            FeedRecord.hello(FeedHello(pid: 8, process: "app", bus: "b", time: start + restart + 0.01))
                .encodeLine())
        lines += (0..<30).map { tick($0 + 1, at: start + restart - 0.01 + Double($0) / 10) }
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        // When it plays as fast as it reads, or a move reads past it in tenths
        let replay = try ReplaySource(path: path, speed: moving ? 1 : 0)
        var batches: [SourceBatch] = []
        if moving {
            _ = replay.perform(.togglePlayback)
            _ = replay.drainBatches()
            _ = replay.perform(.goTo.with(value: "7"))
            batches = replay.drainBatches()
        } else {
            for _ in 0..<1_000 where !replay.isFinished { batches += replay.drainBatches() }
            batches += replay.drainBatches()
        }
        // Then each reading comes at or after the one before
        let clocks = batches.compactMap(\.sourceClock)
        #expect(clocks.count > 1)
        for (earlier, later) in zip(clocks, clocks.dropFirst()) {
            #expect(later >= earlier, "a reading at \(later - start) after one at \(earlier - start)")
        }
    }

    @Test("paused, the cursor stays; > reads on ten seconds, < reads again from before it")
    func jumpsMoveTheCursor() throws {
        let directory = TemporaryDirectory()
        let replay = try ReplaySource(path: TimelineRecording.write(seconds: 30, in: directory), speed: 1)
        #expect(replay.perform(.togglePlayback) == "paused at 00:00.0")
        let first = replay.drainBatches()
        #expect(Self.numbers(first) == [0])
        #expect(first.last?.status == "replay 00:00.0 / 00:29.9 [----------] paused")
        #expect(Self.numbers(replay.drainBatches()).isEmpty, "paused, nothing more plays")

        #expect(replay.perform(.jumpForward) == "at 00:10.0")
        let forward = replay.drainBatches()
        #expect(!forward.contains { $0.replacesState }, "a short jump on reads on")
        #expect(Self.numbers(forward) == Array(1...100))
        #expect(forward.last?.status == "replay 00:10.0 / 00:29.9 [###-------] paused")
        _ = replay.perform(.jumpForward)
        #expect(Self.numbers(replay.drainBatches()) == Array(101...200))

        #expect(replay.perform(.jumpBack) == "at 00:10.0")
        let back = replay.drainBatches()
        #expect(back.first?.replacesState == true)
        #expect(back.dropFirst().allSatisfy { !$0.replacesState })
        // Read again from the start (less than a minute before), a batch a second.
        #expect(Self.numbers(back) == Array(0...100))
        #expect(back.count >= 10)
        for batch in back {
            let seconds = Set(batch.events.map { Int(($0.time - 1_000).rounded(.down)) })
            #expect(seconds.count == 1, "one second of recording a batch")
        }
        #expect(back.last?.status == "replay 00:10.0 / 00:29.9 [###-------] paused")
    }

    @Test("a step back shows the bus before the last event; a step on brings it back")
    func stepsUndoEachOther() throws {
        let directory = TemporaryDirectory()
        let replay = try ReplaySource(path: TimelineRecording.write(seconds: 30, in: directory), speed: 1)
        _ = replay.perform(.togglePlayback)
        _ = replay.perform(.jumpForward)
        #expect(Self.numbers(replay.drainBatches()).last == 100)

        _ = replay.perform(.stepBack)
        let back = replay.drainBatches()
        #expect(back.first?.replacesState == true)
        #expect(Self.numbers(back) == Array(0...99))
        #expect(back.last?.status?.hasPrefix("replay 00:09.9 / ") == true, "\(back.last?.status ?? "")")

        _ = replay.perform(.stepForward)
        let on = replay.drainBatches()
        #expect(!on.contains { $0.replacesState })
        #expect(Self.numbers(on) == [100])
        _ = replay.perform(.stepForward)
        #expect(Self.numbers(replay.drainBatches()) == [101])
        #expect(replay.perform(.togglePlayback) == "playing from 00:10.1")
    }

    @Test("far into a long recording, a jump reads again from a minute before the cursor, not from the start")
    func jumpsReadAMinuteAtMost() throws {
        let directory = TemporaryDirectory()
        let replay = try ReplaySource(path: TimelineRecording.write(seconds: 200, in: directory), speed: 1)
        _ = replay.perform(.togglePlayback)
        for _ in 0..<19 { _ = replay.perform(.jumpForward) }
        #expect(Self.numbers(replay.drainBatches()).last == 1_900)
        for _ in 0..<4 { _ = replay.perform(.jumpBack) }
        let back = replay.drainBatches()
        let numbers = Self.numbers(back)
        #expect(back.first?.replacesState == true)
        #expect(numbers.last == 1_500)
        // From the checkpoint a minute before 150 s, give or take a second.
        let first = try #require(numbers.first)
        #expect((880...905).contains(first), "read again from event \(first)")
        #expect(numbers == Array(first...1_500))
    }

    @Test(
        "a jump just past a burst of records still reads the three seconds before the cursor, for the rates")
    func jumpsPastABurstReadTheRatesWindow() throws {
        let directory = TemporaryDirectory()
        // Ten a second for ten seconds, 70,000 in a third of a second, ten a second again.
        let before = (0..<100).map { Double($0) / 10 }
        let burst = (0..<70_000).map { 10 + Double($0) * 0.000_005 }
        let after = (105..<200).map { Double($0) / 10 }
        let path = try TimelineRecording.write(times: before + burst + after, in: directory)
        let replay = try ReplaySource(path: path, speed: 1)
        _ = replay.perform(.togglePlayback)
        #expect(replay.perform(.goTo.with(value: "19")) == "at 00:19.0")
        _ = replay.drainBatches()
        #expect(replay.perform(.goTo.with(value: "12")) == "at 00:12.0")
        let back = replay.drainBatches()
        #expect(back.first?.replacesState == true)
        let first = try #require(Self.numbers(back).first)
        // Event 91 was published at 9.1 s, the first after three seconds before the cursor.
        #expect(first <= 91, "read again from event \(first), inside the burst")
        #expect(Self.numbers(back).last == 100 + 70_000 + 15, "up to 12.0 s")
    }

    @Test("Space at the end plays the recording again from the start")
    func playAtTheEndStartsAgain() throws {
        let directory = TemporaryDirectory()
        let replay = try ReplaySource(path: TimelineRecording.write(seconds: 5, in: directory), speed: 1)
        _ = replay.perform(.togglePlayback)
        #expect(replay.perform(.goTo.with(value: "10")) == "at 00:04.9")
        #expect(Self.numbers(replay.drainBatches()).last == 49)
        #expect(replay.perform(.togglePlayback) == "playing from the start")
        let again = replay.drainBatches()
        #expect(again.first?.replacesState == true)
        #expect(replay.cursor < 1, "the cursor went back to the start")
        #expect(
            replay.perform(.togglePlayback)?.hasPrefix("paused at 00:0") == true,
            "and Space pauses it as before")
    }

    @Test("an attached app's silence is logged as the monitor said it live: quiet after 5 s, then back")
    func silencesAreLoggedAsWhenLive() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("quiet.jsonl")
        let start = 1_700_000_000.0
        func snapshot(at seconds: Double) -> String {
            FeedRecord.snapshot(
                FeedSnapshot(
                    time: start + seconds,
                    snapshot: BusSnapshot(busName: "b", eventTypes: [], wildcardObservers: 1))
            ).encodeLine()
        }
        // Snapshots every half second, a 4 s silence (too short), an 8 s one (said), and the
        // app's going away after a last silence, which says no "back".
        var lines = [FeedRecord.hello(FeedHello(pid: 7, process: "app", bus: "b", time: start)).encodeLine()]
        let times =
            Array(stride(from: 0.0, through: 3, by: 0.5)) + Array(stride(from: 7.0, through: 9, by: 0.5))
            + Array(stride(from: 17.0, through: 18, by: 0.5))
        lines += times.map { snapshot(at: $0) }
        lines.append(
            FeedRecord.detached(FeedDetached(time: start + 25, pid: 7, process: "app", bus: "b")).encodeLine()
        )
        // A new process attached 12 s later is not quiet: its silence counts from its hello.
        lines.append(
            FeedRecord.hello(FeedHello(pid: 8, process: "app", bus: "b", time: start + 37)).encodeLine())
        lines += [37.0, 37.5, 38].map { snapshot(at: $0) }
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)

        let replay = try ReplaySource(path: path, speed: 0)
        let batches = drainUntil(replay) { _ in replay.isFinished }
        let said = batches.flatMap(\.notices).map { ($0.time - start, $0.text) }
        #expect(
            said.map(\.1) == [
                "attached to app (pid 7)", "app (pid 7) is quiet: nothing from it for 5 s",
                "app (pid 7) is back",
                "app (pid 7) is quiet: nothing from it for 5 s", "detached from app (pid 7)",
                "attached to app (pid 8): a new process, counters restart",
            ], "\(said)")
        #expect(said.map(\.0).map { ($0 * 10).rounded() / 10 } == [0, 14, 17, 23, 25, 37], "\(said)")
    }

    @Test(
        "a move past a restart more than a minute after the old process went away says the detach and the attach, not a silence",
        arguments: [false, true])
    func movesPastALateRestartSayIt(finding: Bool) throws {
        let directory = TemporaryDirectory()
        // Given an app that went away at 10.05 s and came back as a new process at 100 s: the
        // minute a move reads again before its cursor ends in the silence between them
        let path = try TimelineRecording.writeRestartedApp(start: 1_800_000_000, backAt: 100, in: directory)
        let replay = try ReplaySource(path: path, speed: 1)
        if finding {
            // When the cursor stands in the silence and n goes to the next line, the new
            // process's first event
            #expect(replay.pause(at: 50) == nil)
            _ = replay.drainBatches()
            let everyLine: @Sendable (FeedRecord) -> Bool = { _ in true }
            #expect(replay.find(forward: true, matching: everyLine) == "found at 01:40.0")
        } else {
            // When the replay starts 1.5 s after that event, as `--at 1:41.5` starts it
            #expect(replay.pause(at: 101.5) == nil)
        }
        let batches = replay.drainBatches()
        // Then the log says what playing on to there says: the old process went away and a new
        // one was attached, not that the new one fell quiet at the old one's last event
        let said = batches.flatMap(\.notices).filter { !$0.isWarning }.map(\.text)
        #expect(
            said.suffix(2) == [
                "detached from simapp (pid 7)", "attached to simapp (pid 8): a new process, counters restart",
            ], "\(said)")
        #expect(!said.contains { $0.contains(" is quiet") || $0.hasSuffix(" is back") }, "\(said)")
    }

    @Test("a warning said before a move was read comes after what the recording says up to the cursor")
    func aWarningBeforeAMoveComesLast() throws {
        let directory = TemporaryDirectory()
        let path = try TimelineRecording.writeRestartedApp(start: 1_800_000_000, in: directory)
        // When the replay starts past its end (21.9 s) and says so, as `busmon --at 30` does
        let replay = try ReplaySource(path: path, speed: 1)
        #expect(replay.pause(at: 30) == nil)
        let warning = "--at 00:30.0 is past the recording's end, 00:21.9: the state is at its end"
        replay.warn(warning)
        let batches = replay.drainBatches()
        // Then the attaches and the detach come with the records around them, and the warning,
        // stamped at the end, after them: not the first attach after the warning, at the log's end
        #expect(
            batches.flatMap(\.notices).map(\.text) == [
                "attached to simapp (pid 7)", "detached from simapp (pid 7)",
                "attached to simapp (pid 8): a new process, counters restart", warning,
            ])
        #expect(batches.last?.notices.map(\.text) == [warning])
    }

    @Test("a recording cut short while it plays says so when playback reaches the cut")
    func aRecordingCutWhilePlayingSaysSo() throws {
        let directory = TemporaryDirectory()
        let path = try TimelineRecording.write(seconds: 30, in: directory)
        let replay = try ReplaySource(path: path, speed: 0)
        // Cut to a third, at a line's end, after the replay checked the whole file.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        try (lines.prefix(100).joined(separator: "\n") + "\n").write(
            toFile: path, atomically: false, encoding: .utf8)
        let batches = drainUntil(replay) { _ in replay.isFinished }
        #expect(Self.numbers(batches).count == 100)
        let warnings = batches.flatMap(\.notices).filter(\.isWarning).map(\.text)
        #expect(
            warnings == [
                "\(path): 200 of its 300 records could not be read again: the file changed while it played"
            ])
    }

    @Test("the timeline's keys are offered, and Space pauses the recording rather than the display")
    func commandsAreOffered() throws {
        let directory = TemporaryDirectory()
        let replay = try ReplaySource(path: TimelineRecording.write(seconds: 3, in: directory), speed: 0)
        #expect(
            replay.supportedCommands == [
                .replayPause(isPaused: false), .replayStep, .replayJump, .replayFind,
            ])
        _ = replay.perform(.togglePlayback)
        #expect(
            replay.supportedCommands == [.replayPause(isPaused: true), .replayStep, .replayJump, .replayFind])
        #expect(replay.supportedCommands.first?.barLabel == "Play")
    }

    @Test("t goes to a time typed as mm:ss, h:mm:ss or seconds; anything else is refused")
    func goToATypedTime() throws {
        let directory = TemporaryDirectory()
        let replay = try ReplaySource(path: TimelineRecording.write(seconds: 30, in: directory), speed: 1)
        _ = replay.perform(.togglePlayback)
        #expect(replay.perform(.goTo.with(value: "0:15")) == "at 00:15.0")
        #expect(Self.numbers(replay.drainBatches()).last == 150)
        #expect(replay.perform(.goTo.with(value: "4.5")) == "at 00:04.5")
        let back = replay.drainBatches()
        #expect(back.first?.replacesState == true)
        #expect(Self.numbers(back) == Array(0...45))
        // Past the end: the end.
        #expect(replay.perform(.goTo.with(value: "10:00")) == "at 00:29.9")
        #expect(
            replay.perform(.goTo.with(value: "soon\u{1B}[2J"))
                == "not a time: soon\\u{1B}[2J; type mm:ss, h:mm:ss or seconds")
        #expect(ReplaySource.seconds(parsing: "1:01:12") == 3_672)
        #expect(ReplaySource.seconds(parsing: " 72.4 ") == 72.4)
        for refused in ["", ":", "1:60", "-3", "1e3", "1:2:3:4", "nan", "0x10"] {
            #expect(ReplaySource.seconds(parsing: refused) == nil, "\(refused)")
        }
    }

    @Test("n and N go to the next and previous line the filter shows, read from the file")
    func findLines() throws {
        let directory = TemporaryDirectory()
        let replay = try ReplaySource(path: TimelineRecording.write(seconds: 200, in: directory), speed: 1)
        _ = replay.perform(.togglePlayback)
        #expect(Self.numbers(replay.drainBatches()) == [0])
        let sevens: @Sendable (FeedRecord) -> Bool = { record in
            guard case .event(let event) = record else { return false }
            return event.payload.text.hasSuffix("77")
        }
        #expect(replay.find(forward: true, matching: sevens) == "found at 00:07.7")
        #expect(Self.numbers(replay.drainBatches()) == Array(1...77))
        #expect(replay.find(forward: true, matching: sevens) == "found at 00:17.7")
        #expect(Self.numbers(replay.drainBatches()).last == 177)
        // Back: the previous match, the dashboard told to start over.
        #expect(replay.find(forward: false, matching: sevens) == "found at 00:07.7")
        let back = replay.drainBatches()
        #expect(back.first?.replacesState == true)
        #expect(Self.numbers(back) == Array(0...77))
        #expect(replay.find(forward: false, matching: sevens) == "no earlier line matches")
        // Far on, past the reading-on window: the cursor jumps, a minute of warm-up before it.
        let far: @Sendable (FeedRecord) -> Bool = { record in
            guard case .event(let event) = record else { return false }
            return event.payload.text == "1800"
        }
        #expect(replay.find(forward: true, matching: far) == "found at 03:00.0")
        let jumped = Self.numbers(replay.drainBatches())
        #expect(
            jumped.last == 1_800 && (1_180...1_210).contains(jumped.first ?? 0), "from \(jumped.first ?? 0)")
        #expect(replay.find(forward: true, matching: far) == "no later line matches")
    }

    @Test(
        "paused, nothing more arrives: not a record stamped as the cursor, nor the first event stepped back over"
    )
    func pausedMeansPaused() throws {
        let directory = TemporaryDirectory()
        let path = try TimelineRecording.write(times: [0, 0.1, 0.1, 0.2], in: directory)
        let replay = try ReplaySource(path: path, speed: 1)
        _ = replay.perform(.togglePlayback)
        #expect(Self.numbers(replay.drainBatches()) == [0])
        #expect(replay.perform(.stepForward) == "one event on")
        #expect(Self.numbers(replay.drainBatches()) == [1])
        #expect(
            Self.numbers(replay.drainBatches()).isEmpty, "event 2, stamped as the cursor, waits for a step")
        #expect(replay.perform(.stepForward) == "one event on")
        #expect(Self.numbers(replay.drainBatches()) == [2])
        _ = replay.perform(.stepBack)
        _ = replay.perform(.stepBack)
        let back = replay.drainBatches()
        #expect(back.first?.replacesState == true)
        #expect(Self.numbers(back) == [0])
        _ = replay.perform(.stepBack)
        #expect(Self.numbers(replay.drainBatches()).isEmpty)
        #expect(Self.numbers(replay.drainBatches()).isEmpty, "the first event does not come back by itself")
    }

    @Test("two keys within a frame move twice, the second from where the first left the cursor")
    func movesWithinAFrame() throws {
        let directory = TemporaryDirectory()
        let replay = try ReplaySource(path: TimelineRecording.write(seconds: 30, in: directory), speed: 1)
        _ = replay.perform(.togglePlayback)
        _ = replay.perform(.goTo.with(value: "20"))
        _ = replay.drainBatches()
        _ = replay.perform(.jumpBack)
        _ = replay.perform(.stepForward)
        let batches = replay.drainBatches()
        #expect(batches.first?.replacesState == true)
        #expect(Self.numbers(batches).last == 101)
    }

    @Test("after a move far on, a step back and a search back find the events before the minute read again")
    func stepBackPastTheWarmUp() throws {
        let directory = TemporaryDirectory()
        let times = (0..<50).map { Double($0) / 10 }
        let path = try TimelineRecording.write(times: times, quietUntil: 120, in: directory)
        let replay = try ReplaySource(path: path, speed: 1)
        _ = replay.perform(.togglePlayback)
        #expect(replay.perform(.goTo.with(value: "1:50")) == "at 01:50.0")
        #expect(Self.numbers(replay.drainBatches()).isEmpty, "only drop counts in the minute before")
        #expect(replay.perform(.stepBack) == "one event back")
        #expect(Self.numbers(replay.drainBatches()) == Array(0...48))
        _ = replay.perform(.goTo.with(value: "1:50"))
        _ = replay.drainBatches()
        let all: @Sendable (FeedRecord) -> Bool = { _ in true }
        #expect(replay.find(forward: false, matching: all) == "found at 00:04.8")
    }

    @Test("a move that reads again from a checkpoint keeps the losses the recording counted before it")
    func movesKeepEarlierLosses() throws {
        let directory = TemporaryDirectory()
        // Events ten a second for 200 s, and one `dropped` line, at 5 s: losses early, then none.
        let path = try TimelineRecording.write(seconds: 200, in: directory)
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let drops = FeedDrops(time: 1_005.05, events: 7, lifecycle: 2, calls: 3)
        lines.insert(String(FeedRecord.dropped(drops).encodeLine().dropLast()), at: 51)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 1)
        _ = replay.perform(.togglePlayback)

        #expect(replay.perform(.goTo.with(value: "3:10")) == "at 03:10.0")
        let far = replay.drainBatches()
        #expect(far.first?.replacesState == true, "read again from a checkpoint past the drops")
        #expect(far.last?.droppedEvents == 7)
        #expect(far.last?.droppedLifecycle == 2)
        #expect(far.last?.droppedCalls == 3)

        #expect(replay.perform(.goTo.with(value: "2:30")) == "at 02:30.0")
        let back = replay.drainBatches()
        #expect(back.first?.replacesState == true)
        #expect(
            back.last.map { ($0.droppedEvents, $0.droppedLifecycle, $0.droppedCalls) } ?? (0, 0, 0) == (
                7, 2, 3
            ))

        #expect(replay.perform(.goTo.with(value: "0:02")) == "at 00:02.0")
        let beforeTheDrops = replay.drainBatches()
        #expect(beforeTheDrops.last?.droppedEvents == 0, "the losses at 5 s had not happened yet")
    }

    @Test("at full speed, < at the end goes back from there, and Space there plays it again")
    func fullSpeedJumpsBackFromTheEnd() throws {
        let directory = TemporaryDirectory()
        let replay = try ReplaySource(path: TimelineRecording.write(seconds: 30, in: directory), speed: 0)
        #expect(Self.numbers(replay.drainBatches()).count == 300)
        #expect(replay.perform(.jumpBack) == "at 00:19.9")
        #expect(Self.numbers(replay.drainBatches()).last == 199)
        #expect(replay.perform(.jumpForward) == "at 00:29.9")
        #expect(Self.numbers(replay.drainBatches()).last == 299)
        #expect(replay.perform(.togglePlayback) == "playing from the start")
    }

    @Test("a replay that played to its end stays where a move takes it, paused, however short the recording")
    func movesAfterTheEndPause() throws {
        let directory = TemporaryDirectory()
        // Given a recording shorter than a jump, played to its end by itself
        let path = try TimelineRecording.write(times: [0, 0.1, 0.2, 0.3, 0.4], in: directory)
        let replay = try ReplaySource(path: path, speed: 10)
        let played = drainUntil(replay) { _ in replay.isFinished }
        #expect(Self.numbers(played) == [0, 1, 2, 3, 4])
        // When it jumps back, the cursor stays at the start: the rest does not play again at once
        #expect(replay.perform(.jumpBack) == "at 00:00.0")
        #expect(Self.numbers(replay.drainBatches()) == [0])
        usleep(100_000)
        #expect(Self.numbers(replay.drainBatches()).isEmpty)
        #expect(replay.cursor == 0)
        // And a time typed goes there and stays too
        #expect(replay.perform(SourceCommand.goTo.with(value: "0.22")) == "at 00:00.2")
        #expect(Self.numbers(replay.drainBatches()).suffix(2) == [1, 2])
        usleep(100_000)
        #expect(Self.numbers(replay.drainBatches()).isEmpty)
        // Until Space plays on from there
        #expect(replay.perform(.togglePlayback)?.hasPrefix("playing from") == true)
        let rest = drainUntil(replay) { _ in replay.isFinished }
        #expect(Self.numbers(rest) == [3, 4])
    }

    @Test("a search reads the copy of piped input at its own place: playback goes on whole")
    func searchingPipedInput() throws {
        let directory = TemporaryDirectory()
        let source = try TimelineRecording.write(seconds: 30, in: directory)
        let fifo = directory.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            let bytes = FileManager.default.contents(atPath: source) ?? Data()
            if let handle = FileHandle(forWritingAtPath: fifo) {
                handle.write(bytes)
                try? handle.close()
            }
        }
        writer.start()
        let replay = try ReplaySource(path: fifo, speed: 0)
        _ = replay.perform(.togglePlayback)
        let none: @Sendable (FeedRecord) -> Bool = { _ in false }
        #expect(replay.find(forward: true, matching: none) == "no later line matches")
        _ = replay.perform(.togglePlayback)
        var numbers: [Int] = []
        for _ in 0..<10 where !replay.isFinished { numbers += Self.numbers(replay.drainBatches()) }
        #expect(numbers == Array(0..<300))
    }

    @Test("under --graph, a replay moved back is graphed once")
    func graphCountsOnce() throws {
        let directory = TemporaryDirectory()
        let path = try TimelineRecording.write(
            times: (0..<300).map { Double($0) / 10 }, site: PublishSite(fileID: "App/A.swift", line: 7),
            in: directory)
        let graphing = try GraphingSource(
            wrapping: ReplaySource(path: path, speed: 1), path: directory.file("flow.dot"))
        _ = graphing.perform(.togglePlayback)
        _ = graphing.perform(.goTo.with(value: "20"))
        _ = graphing.drainBatches()
        _ = graphing.perform(.jumpBack)
        let back = graphing.drainBatches()
        #expect(back.first?.replacesState == true)
        _ = graphing.perform(.goTo.with(value: "25"))
        _ = graphing.drainBatches()
        #expect(graphing.graph.publishes.values.reduce(0, +) == 251)
    }

    @Test("minutes and seconds with tenths, and a bar of ten cells")
    func clockText() {
        #expect(ReplaySource.clockText(72.44) == "01:12.4")
        #expect(ReplaySource.clockText(300) == "05:00.0")
        #expect(ReplaySource.clockText(3_723.5) == "1:02:03.5")
        #expect(ReplaySource.bar(72.4, of: 300) == "[##--------]")
        #expect(ReplaySource.bar(300, of: 300) == "[##########]")
        #expect(ReplaySource.bar(0, of: 0) == "[##########]")
        // Past a tiny length, as when the recording changed while it played: full, not a crash.
        #expect(ReplaySource.bar(1, of: .leastNonzeroMagnitude) == "[##########]")
        #expect(ReplaySource.bar(.nan, of: 1) == "[----------]")
    }
}
