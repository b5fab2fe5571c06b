import BusMonitor
import EventBus
import Foundation
import TestSupport
import Testing

@testable import BusMonitor
@testable import BusTap
@testable import BusWire

@Suite("HeadlessRunner")
struct HeadlessRunnerTests {
    /// Runs `runner`-style output through a pipe and returns the lines written.
    static func lines(
        of body: (FileHandle) -> HeadlessRunner.Outcome
    ) throws -> (HeadlessRunner.Outcome, [String]) {
        let directory = TemporaryDirectory()
        let path = directory.file("out.jsonl")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let outcome = body(handle)
        try handle.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.isEmpty || text.hasSuffix("\n"))
        return (outcome, text.split(separator: "\n").map(String.init))
    }

    @Test("a replay's headless output holds the recording's hellos where they were, and replays alike")
    func replayedHellosStayInPlace() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("two.jsonl")
        let snapshot = { (time: Double) in RecordingTests.snapshotLine(at: time) }
        let first = FeedRecord.hello(FeedHello(pid: 1, process: "app", bus: "b", time: 1)).encodeLine()
        let second = FeedRecord.hello(FeedHello(pid: 2, process: "app", bus: "b", time: 3)).encodeLine()
        try [first, snapshot(1), snapshot(2), second, snapshot(3)].joined().write(
            toFile: path, atomically: false, encoding: .utf8)
        // When a replay at full speed is written as headless output
        let (_, lines) = try Self.lines { output in
            HeadlessRunner(
                source: try! ReplaySource(path: path, speed: 0), output: output, drainInterval: 0.01
            ).run()
        }
        // Then its records are the recording's, hellos in their places
        let records = lines.filter { !$0.hasPrefix(#"{"kind":"summary""#) }
        #expect(records.map { $0 + "\n" } == [first, snapshot(1), snapshot(2), second, snapshot(3)])
    }

    @Test("listening with no app yet writes nothing; the first app's hello comes first, then its fleet line")
    func firstLinesOfAFleet() throws {
        let origin = FeedOrigin(app: "shop", host: "h", pid: 1)
        let member = FleetMember(origin: origin, lastSeen: 1)
        let event = FeedEvent(
            sequence: 0, time: 1, typeName: "Tick", payload: .description("t"), receivers: 1, origin: origin)
        let batches = [
            SourceBatch(fleet: []), SourceBatch(fleet: [member]),
            SourceBatch(events: [event], fleet: [member]),
        ]
        let directory = TemporaryDirectory()
        let writer = try RecordingWriter(path: directory.file("fleet.jsonl"))
        let (_, lines) = try Self.lines { output in
            HeadlessRunner(
                source: RecordingSource(wrapping: ScriptedSource(batches), writer: writer), output: output,
                drainInterval: 0.01, summaryInterval: 1_000
            ).run()
        }
        writer.close()
        let kinds = lines.map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["kind"] as? String
                ?? "?"
        }
        #expect(Array(kinds.prefix(3)) == ["hello", "fleet", "event"], "\(lines)")
        // A fleet's bus is the fleet, as the header names it, whenever the hello is made.
        #expect(lines.first?.contains(#""bus":"fleet""#) == true, "\(lines)")
        // The recording holds the same lines (a fleet line stamped as each writer wrote it).
        let recorded = try String(contentsOfFile: writer.path, encoding: .utf8).split(separator: "\n")
        #expect(recorded.count == 3)
        #expect(recorded.first.map(String.init) == lines.first)
        #expect(recorded.last.map(String.init) == lines[2])
        #expect(recorded[1].hasPrefix(#"{"kind":"fleet""#))
    }

    @Test("fleet lines, whether a change or a summary wrote them, never go back in time")
    func fleetLinesGoForward() throws {
        // Given apps whose records are stamped behind busmon's clock (their clocks lag, or the
        // records waited), and a fleet that changes after a summary
        let origin = FeedOrigin(app: "shop", host: "h", pid: 1)
        let event = FeedEvent(
            sequence: 0, time: 1_000, typeName: "Tick", payload: .description("t"), receivers: 1,
            origin: origin)
        let batches = [
            SourceBatch(events: [event], fleet: [FleetMember(origin: origin, lastSeen: 1_000)]),
            SourceBatch(), SourceBatch(), SourceBatch(),
            SourceBatch(fleet: [FleetMember(origin: origin, presence: .quiet, lastSeen: 1_000)]),
        ]
        let (_, lines) = try Self.lines { output in
            HeadlessRunner(
                source: ScriptedSource(batches), output: output, drainInterval: 0.01, summaryInterval: 0.005
            ).run()
        }
        // Then each fleet line stands at or after the one before it
        let times = lines.compactMap { line -> Double? in
            guard line.hasPrefix(#"{"kind":"fleet""#) else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["time"]
                as? Double
        }
        #expect(times.count >= 3, "\(lines)")
        #expect(times == times.sorted(), "\(times)")
    }

    @Test("replaying to JSON Lines: every line parses, events and a final summary with totals")
    func replayToJSONLines() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("session.jsonl")
        let writer = try RecordingWriter(path: path)
        let recorder = RecordingSource(
            wrapping: ScriptedSource(RecordingTests.sampleBatches()), writer: writer)
        _ = recorder.drain()
        _ = recorder.drain()
        writer.close()

        let replay = try ReplaySource(path: path, speed: 0)
        let (outcome, lines) = try Self.lines { output in
            HeadlessRunner(source: replay, output: output, drainInterval: 0.01).run()
        }
        #expect(outcome == .sourceFinished)
        var kinds: [String] = []
        for line in lines {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)"
            )
            kinds.append(object["kind"] as? String ?? "?")
        }
        #expect(kinds.filter { $0 == "event" }.count == 3)
        #expect(kinds.filter { $0 == "lifecycle" }.count == 1)
        #expect(kinds.last == "summary")
        let lastLine = try #require(lines.last)
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(lastLine.utf8)) as? [String: Any])
        #expect(summary["events"] as? Int == 3)
        #expect(summary["dropped"] as? Int == 5)
        #expect(summary["lifecycleDropped"] as? Int == 2)
        #expect(summary["published"] as? Int == 3)
        #expect(summary["status"] as? String == "replay finished")
        #expect((summary["types"] as? [String: Int]) == ["Ping": 2, "Opaque": 1])
        // Event lines are wire records: the same decoder reads them.
        let events = lines.compactMap { try? FeedRecord.decode(line: $0) }.filter { $0.kind == "event" }
        #expect(events.count == 3)
    }

    @Test("a replay's dropped line is written where it stood, with its own time")
    func droppedLinesStayInPlace() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("drops.jsonl")
        let start = 1_800_000_000.0
        let event = { (sequence: Int, time: Double) in
            TimelineRecording.tick(sequence, at: time, after: start)
        }
        // Given events at 0.1, 0.4 and 1.0 s, and 5 lost events said at 0.95 s
        let recording =
            event(1, 0.1) + event(2, 0.4)
            + FeedRecord.dropped(FeedDrops(time: start + 0.95, events: 5)).encodeLine()
            + event(8, 1.0)
        try recording.write(toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 0)
        let (_, lines) = try Self.lines { output in
            HeadlessRunner(source: replay, output: output, drainInterval: 0.01).run()
        }
        // Then the output holds them in that order, the drop line stamped as it was
        let records = lines.compactMap { try? FeedRecord.decode(line: $0) }
        #expect(records.map(\.kind) == ["event", "event", "dropped", "event"], "\(lines)")
        #expect(
            records.compactMap(\.time).map { ($0 - start) * 100 }.map { $0.rounded() } == [10, 40, 95, 100])
    }

    @Test("the runner keeps what its source lost on the way, for busmon to say when it ends")
    func lossesAreKeptForTheEnd() throws {
        var batch = SourceBatch(droppedEvents: 1_200)
        batch.droppedLifecycle = 3
        batch.droppedFromAppsPastTheLimit = 1
        batch.droppedCalls = 40
        let runner = HeadlessRunner(
            source: ScriptedSource([batch]), output: FileHandle(forWritingAtPath: "/dev/null")!)
        #expect(runner.losses.phrase == nil)
        #expect(runner.run() == .sourceFinished)
        #expect(
            runner.losses
                == RecordLosses(events: 1_200, lifecycleChanges: 3, fromAppsPastTheLimit: 1, handlerCalls: 40)
        )
        #expect(
            runner.losses.phrase
                == "1200 events, 3 lifecycle changes and 40 handler calls dropped on the way; 1 record of apps past the "
                + "\(FleetState.maximumMembers) listed dropped")
        #expect(RecordLosses(lifecycleChanges: 1).phrase == "1 lifecycle change dropped on the way")
        #expect(
            RecordLosses(events: 5, lifecycleChanges: 1, handlerCalls: 2).phrase
                == "5 events, 1 lifecycle change and 2 handler calls dropped on the way")
        #expect(RecordLosses(handlerCalls: 1).phrase == "1 handler call dropped on the way")
        #expect(RecordLosses(fromAppsPastTheLimit: 2).phrase?.hasPrefix("2 records of apps past") == true)
    }

    @Test("stops after its duration, writing a summary at least every interval")
    func duration() throws {
        let source = ScriptedSource([])
        let never = NeverEnding(source)
        let (outcome, lines) = try Self.lines { output in
            HeadlessRunner(
                source: never, output: output, duration: 0.35, drainInterval: 0.02, summaryInterval: 0.1
            ).run()
        }
        #expect(outcome == .durationElapsed)
        #expect(lines.count >= 3, "summaries at 0.1, 0.2, 0.3 s and a final one")
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"kind":"summary""#) })
        #expect(lines.last?.contains(#""published":null"#) == true)
    }

    @Test("a summary lists the first 1,000 type names and counts the events of the rest")
    func typesPastTheLimitAreCountedNotListed() throws {
        let events = (0..<1_200).map { index in
            FeedEvent(
                sequence: index, time: 1, typeName: "T\(10_000 + index)", payload: .description("{}"),
                receivers: 1)
        }
        let (_, lines) = try Self.lines { output in
            HeadlessRunner(source: ScriptedSource([SourceBatch(events: events)]), output: output).run()
        }
        let summary = try #require(lines.last)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any])
        #expect((object["types"] as? [String: Int])?.count == 1_000)
        #expect(object["otherTypeEvents"] as? Int == 200)
        #expect(object["events"] as? Int == 1_200)
    }

    @Test("snapshots of apps past a fleet's limit, from a source with no fleet list, are counted, not kept")
    func snapshotsPastTheLimitAreCounted() throws {
        let snapshots = (0..<(FleetState.maximumMembers + 3)).map { pid in
            FeedRecord.snapshot(
                FeedSnapshot(
                    time: 1,
                    snapshot: BusSnapshot(
                        busName: "a", eventTypes: [EventTypeStatistics(typeName: "T", published: 1)],
                        wildcardObservers: 0),
                    origin: FeedOrigin(app: "a", host: "h", pid: pid)))
        }
        let (_, lines) = try Self.lines { output in
            HeadlessRunner(source: ScriptedSource([SourceBatch(records: snapshots)]), output: output).run()
        }
        let summary = try #require(lines.last)
        #expect(summary.contains(#""published":\#(FleetState.maximumMembers)"#), "\(summary)")
        #expect(summary.contains(#""snapshotsNotCounted":3"#), "\(summary)")
    }

    @Test("the summary of a fleet whose app went keeps what it published, not its leak suspects")
    func aGoneAppsTotalsStayInTheSummary() throws {
        let origin = FeedOrigin(app: "a", host: "h", pid: 1)
        let snapshot = FeedRecord.snapshot(
            FeedSnapshot(
                time: 1,
                snapshot: BusSnapshot(
                    busName: "a", eventTypes: [EventTypeStatistics(typeName: "T", published: 40)],
                    wildcardObservers: 0,
                    leakSuspects: [
                        LeakSuspect(
                            observerID: 3, className: "S", reason: "", overdue: .seconds(1), subscriptions: []
                        )
                    ]),
                origin: origin))
        let batches = [
            SourceBatch(
                records: [snapshot], fleet: [FleetMember(origin: origin, presence: .active, lastSeen: 1)]),
            SourceBatch(fleet: [FleetMember(origin: origin, presence: .gone, lastSeen: 1)]),
        ]
        let (_, lines) = try Self.lines { output in
            HeadlessRunner(source: ScriptedSource(batches), output: output).run()
        }
        let summary = try #require(lines.last)
        #expect(summary.contains(#""published":40"#), "\(summary)")
        #expect(summary.contains(#""leakSuspects":0"#), "\(summary)")
    }

    @Test("the summary of an app restarted behind one socket counts what each process published")
    func aRestartedAppsPublishesAddUp() throws {
        let batches = [
            SourceBatch(records: [
                .hello(FeedHello(pid: 11, process: "shop", bus: "main", time: 1)),
                Self.snapshot(published: 500, suspects: 2),
                // Attached again to the same process: its counters go on.
                .hello(FeedHello(pid: 11, process: "shop", bus: "main", time: 2)),
                Self.snapshot(published: 507, suspects: 2),
                .hello(FeedHello(pid: 12, process: "shop", bus: "main", time: 3)),
            ]),
            SourceBatch(records: [Self.snapshot(published: 450, suspects: 1)]),
        ]
        let (_, lines) = try Self.lines { output in
            HeadlessRunner(source: ScriptedSource(batches), output: output).run()
        }
        let summary = try #require(lines.last)
        #expect(summary.contains(#""published":957"#), "\(summary)")
        // The process that went has none alive any more.
        #expect(summary.contains(#""leakSuspects":1"#), "\(summary)")
    }

    /// A note that another process went says nothing of the app watched.
    @Test(
        "the summary of one attached app that went away keeps what it published, not its leak suspects",
        arguments: [([999], 2), ([999, 11], 0)])
    func aDetachedAppsTotalsStay(detachedPids: [Int], leakSuspects: Int) throws {
        let hello = FeedHello(pid: 11, process: "shop", bus: "main", time: 1)
        let detaches = detachedPids.enumerated().map { index, pid in
            SourceBatch(records: [
                .detached(FeedDetached(time: 2 + Double(index), pid: pid, process: "shop", bus: "main"))
            ])
        }
        let batches =
            [SourceBatch(records: [.hello(hello), Self.snapshot(published: 500, suspects: 2)])] + detaches
        let (_, lines) = try Self.lines { output in
            HeadlessRunner(source: ScriptedSource(batches), output: output).run()
        }
        let summary = try #require(lines.last)
        #expect(summary.contains(#""published":500"#), "\(summary)")
        #expect(summary.contains(#""leakSuspects":\#(leakSuspects)"#), "\(summary)")
    }

    /// A snapshot of bus `main`: `published` events of type T and `suspects` leak suspects.
    private static func snapshot(published: Int, suspects: Int) -> FeedRecord {
        .snapshot(
            FeedSnapshot(
                time: 1,
                snapshot: BusSnapshot(
                    busName: "main",
                    eventTypes: [EventTypeStatistics(typeName: "T", published: published)],
                    wildcardObservers: 0,
                    leakSuspects: (0..<suspects).map {
                        LeakSuspect(
                            observerID: UInt64($0), className: "S", reason: "", overdue: .seconds(1),
                            subscriptions: [])
                    })))
    }

    @Test("stop() ends a run from another thread")
    func stopFromAnotherThread() throws {
        let never = NeverEnding(ScriptedSource([]))
        let (outcome, _) = try Self.lines { output in
            let runner = HeadlessRunner(source: never, output: output, drainInterval: 0.05)
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { runner.stop() }
            return runner.run()
        }
        #expect(outcome == .stopped)
    }
}

/// Pipes whose write end a test left blocked, kept open and reachable for the test process's
/// life: the write never resumes, nor fails with SIGPIPE, after its test.
private let pipesLeftBlocked = LockedValue<[Pipe]>([])

/// A source that never finishes, as a live one.
final class NeverEnding: DashboardSource {
    let inner: any DashboardSource
    init(_ inner: any DashboardSource) { self.inner = inner }
    var title: String { "live" }
    func drain() -> SourceBatch { inner.drain() }
    func perform(_ command: SourceCommand) -> String? { nil }
}

@Suite("HeadlessRunner output")
struct HeadlessRunnerOutputTests {
    @Test("a reader that closes the pipe ends the run as outputClosed, not as a failure")
    func closedPipe() throws {
        signal(SIGPIPE, SIG_IGN)
        let bus = EventBus()
        let source = LocalBusSource(bus: bus, title: "test")
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let runner = HeadlessRunner(
            source: source, output: pipe.fileHandleForWriting, duration: 30, drainInterval: 0.01,
            summaryInterval: 0.01)

        #expect(runner.run() == .outputClosed)
    }

    /// A pipe into a program that stopped reading: the run still ends at its duration, or soon
    /// after stop(), about a second later at most, and counts the lines it gave up on.
    @Test(
        "a reader that stops reading holds the run past its duration or a stop by a second at most",
        arguments: [false, true])
    func aStalledReaderDoesNotHoldTheRun(byStopping: Bool) throws {
        signal(SIGPIPE, SIG_IGN)
        let pipe = Pipe()
        pipesLeftBlocked.withLock { $0.append(pipe) }
        // Lines enough to fill a pipe (64 KiB) many times over, nobody reading them.
        let events = (0..<5_000).map { index in
            FeedEvent(
                sequence: index + 1, time: 1, typeName: "TickEvent",
                payload: .description(String(repeating: "x", count: 100)), receivers: 1)
        }
        let runner = HeadlessRunner(
            source: NeverEnding(ScriptedSource([SourceBatch(events: events)])),
            output: pipe.fileHandleForWriting, duration: byStopping ? nil : 0.3, drainInterval: 0.01)
        if byStopping { DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { runner.stop() } }
        let outcome = LockedValue<HeadlessRunner.Outcome?>(nil)
        let ended = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            outcome.withLock { $0 = runner.run() }
            ended.signal()
        }
        // 0.3 s, the grace of a second, and room for a loaded machine; a held run never ended.
        guard ended.wait(timeout: .now() + 0.3 + HeadlessOutput.grace + 5) == .success else {
            Issue.record("the run was still writing to a pipe nobody reads")
            try pipe.fileHandleForReading.close()  // frees it: its write fails with EPIPE
            ended.wait()
            return
        }
        #expect(outcome.current == (byStopping ? .stopped : .durationElapsed))
        let unwritten = runner.unwrittenOutput
        #expect(unwritten.lines > 0 && unwritten.bytes > 0)
    }
}
