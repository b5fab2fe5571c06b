import BusMonitor
import BusWire
import EventBus
import Foundation
import TestSupport
import Testing

@testable import BusMonitor
@testable import BusTap
@testable import BusWire

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A source that hands over prepared batches, one per drain, then empty ones.
final class ScriptedSource: FiniteSource {
    private let batches: LockedValue<[SourceBatch]>
    init(_ batches: [SourceBatch]) { self.batches = LockedValue(batches) }
    var title: String { "scripted" }
    var isFinished: Bool { batches.withLock(\.isEmpty) }
    func drain() -> SourceBatch {
        batches.withLock { $0.isEmpty ? SourceBatch() : $0.removeFirst() }
    }
    func perform(_ command: SourceCommand) -> String? { nil }
}

@Suite("Recording and replay")
struct RecordingTests {
    /// A snapshot line of a bus `b` stamped `time`, with one type `Tick` published `published`
    /// times when given.
    static func snapshotLine(at time: Double, published: Int? = nil) -> String {
        FeedRecord.snapshot(
            FeedSnapshot(
                time: time,
                snapshot: BusSnapshot(
                    busName: "b",
                    eventTypes: published.map { [EventTypeStatistics(typeName: "Tick", published: $0)] }
                        ?? [],
                    wildcardObservers: 1))
        ).encodeLine()
    }

    static func sampleBatches(start: Double = 1_700_000_000) -> [SourceBatch] {
        let snapshot = BusSnapshot(
            busName: "shared",
            eventTypes: [EventTypeStatistics(typeName: "Ping", published: 3, delivered: 6)],
            wildcardObservers: 1)
        var batches = [
            SourceBatch(
                events: [
                    FeedEvent(
                        time: start, typeName: "Ping",
                        value: (Ping(number: 1, note: "a \"quoted\"\nline")),
                        receivers: 2),
                    FeedEvent(
                        time: start + 0.1, typeName: "Opaque", value: (Opaque(number: 2)),
                        receivers: 0),
                ],
                lifecycle: [
                    FeedLifecycle(
                        time: start + 0.05,
                        change: SubscriberLifecycleEvent(
                            kind: .subscribed, eventTypeName: "Ping", observerTypeName: "Screen"))
                ], snapshot: snapshot, droppedEvents: 0, status: "attached"),
            SourceBatch(
                events: [
                    FeedEvent(
                        sequence: 0, time: start + 0.2, typeName: "Ping",
                        payload: .description("☕️ plain text"),
                        receivers: 1)
                ], droppedEvents: 5, status: "attached"),
        ]
        // The app's tap also lost two lifecycle changes by then.
        batches[1].droppedLifecycle = 2
        return batches
    }

    @Test("recording a source and replaying the file gives the same events, changes, counters and drops")
    func recordThenReplay() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("session.jsonl")
        let original = Self.sampleBatches()
        let writer = try RecordingWriter(path: path)
        let recording = RecordingSource(wrapping: ScriptedSource(original), writer: writer)
        let passedOn = [recording.drain(), recording.drain()]
        #expect(passedOn.map(\.events.count) == [2, 1], "the batches pass through unchanged")
        #expect(recording.isFinished)
        writer.close()
        #expect(writer.error == nil)

        let replay = try ReplaySource(path: path, speed: 0)
        #expect(replay.warnings.isEmpty)
        #expect(replay.hello?.process == "scripted")
        #expect(replay.eventCount == 3)
        let replayed = drainUntil(replay) { _ in replay.isFinished }
        let events = replayed.flatMap(\.events)
        #expect(events.map(\.typeName) == ["Ping", "Opaque", "Ping"])
        #expect(events.map(\.payload.text) == original.flatMap(\.events).map(\.payload.text))
        #expect(events.map(\.receivers) == [2, 0, 1])
        #expect(events.map(\.time) == original.flatMap(\.events).map(\.time))
        #expect(replayed.flatMap(\.lifecycle).map(\.change) == original.flatMap(\.lifecycle).map(\.change))
        #expect(replayed.compactMap(\.snapshot).last == original[0].snapshot)
        // The snapshot holds its own batch's events, not the one recorded after it.
        let records = replayed.flatMap(\.records)
        let snapshotIndex = try #require(records.firstIndex { $0.kind == "snapshot" })
        #expect(records[..<snapshotIndex].filter { $0.kind == "event" }.count == 2)
        #expect(replayed.last?.droppedEvents == 5)
        #expect(replayed.last?.droppedLifecycle == 2)
        #expect(replayed.last?.status == "replay finished")
    }

    @Test(
        "a fleet's apps replay active or gone as the monitor that recorded saw them, not as long silence tells"
    )
    func fleetPresenceIsRecorded() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("fleet.jsonl")
        let start = 1_800_000_000.0
        let (shop, cart) = (TwoApps.shop, TwoApps.cart)
        func fleet(shop presence: FleetMember.Presence, at time: Double) -> [FleetMember] {
            TwoApps.fleet(shop: presence, seen: start, cartSeen: time)
        }
        // Given a monitor of two apps that saw shop leave a second in, while cart went on
        let batches = [
            SourceBatch(
                events: [TwoApps.tick(from: shop, at: start), TwoApps.tick(from: cart, at: start)],
                fleet: fleet(shop: .active, at: start)),
            SourceBatch(
                events: [TwoApps.tick(from: cart, at: start + 1)], fleet: fleet(shop: .gone, at: start + 1)),
            SourceBatch(
                events: [TwoApps.tick(from: cart, at: start + 2)], fleet: fleet(shop: .gone, at: start + 2)),
        ]
        let writer = try RecordingWriter(path: path)
        let recording = RecordingSource(wrapping: ScriptedSource(batches), writer: writer)
        for _ in batches { _ = recording.drain() }
        writer.close()
        // Then the recording holds a fleet line where the fleet changed, not one per batch
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix(#"{"kind":"fleet""#) }.count == 2)

        // And a replay shows shop gone from then on, with cart's events counted
        let replay = try ReplaySource(path: path, speed: 0)
        #expect(replay.warnings.isEmpty)
        let replayed = drainUntil(replay) { _ in replay.isFinished }
        let last = try #require(replayed.last?.fleet)
        #expect(last.first { $0.origin == shop }?.presence == .gone)
        #expect(last.first { $0.origin == cart }?.presence == .active)
        #expect(last.first { $0.origin == cart }?.eventsReceived == 3)
        // And its log says who joined and who went, as the live monitor's did
        #expect(
            replayed.flatMap(\.notices).map(\.text).filter { $0.hasPrefix("shop") || $0.hasPrefix("cart") }
                == ["\(shop) joined", "\(cart) joined", "\(shop) is gone: nothing from it for 1 s"])
        // And where the cursor is before shop left, shop is active again
        _ = replay.pause(at: 0.5)
        let before = try #require(replay.drain().fleet)
        #expect(before.first { $0.origin == shop }?.presence == .active)
    }

    @Test("a recording's hello, its first line, is stamped no later than the records it goes before")
    func helloIsNoLaterThanWhatFollows() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("dialled.jsonl")
        // Given apps whose first records were gathered a minute before the monitor wrote them,
        // as an app that dials in sends what it kept
        let gathered = (WallClock.now() - 60).rounded()
        let batches = [
            SourceBatch(
                events: [
                    TwoApps.tick(from: TwoApps.cart, at: gathered + 1),
                    TwoApps.tick(from: TwoApps.shop, at: gathered),
                ],
                fleet: TwoApps.fleet(shop: .active, seen: gathered, cartSeen: gathered + 1)),
            SourceBatch(events: [TwoApps.tick(from: TwoApps.shop, at: gathered + 2)]),
        ]
        let writer = try RecordingWriter(path: path)
        let recording = RecordingSource(wrapping: ScriptedSource(batches), writer: writer)
        for _ in batches { _ = recording.drain() }
        writer.close()
        // Then the hello comes first and is stamped with the earliest record's time, not the
        // moment it was written
        let records = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix(#"{"kind":"fleet""#) }  // the recording's own, not a record
            .map { try FeedRecord.decode(line: String($0)) }
        guard case .hello(let hello) = try #require(records.first) else {
            Issue.record("the recording begins with \(String(describing: records.first))")
            return
        }
        #expect(hello.time == gathered)
        #expect(records.compactMap(\.time).allSatisfy { $0 >= hello.time })
    }

    @Test("an app's going and coming back are handed over in the order they happened, the warning too")
    func presenceNoticesKeepTheirOrder() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("back.jsonl")
        let start = 1_800_000_000.0
        let (shop, cart) = (TwoApps.shop, TwoApps.cart)
        func fleet(shop presence: FleetMember.Presence, at time: Double) -> [FleetMember] {
            TwoApps.fleet(shop: presence, seen: time, cartSeen: time)
        }
        // Given shop gone a second in and back at 2.5 s, with cart's events every half second
        var batches = [
            SourceBatch(
                events: [TwoApps.tick(from: shop, at: start), TwoApps.tick(from: cart, at: start)],
                fleet: fleet(shop: .active, at: start))
        ]
        for step in 1...8 {
            let time = start + Double(step) / 2
            let presence: FleetMember.Presence = step >= 2 && step < 5 ? .gone : .active
            var events = [TwoApps.tick(from: cart, at: time)]
            if step >= 5 { events.append(TwoApps.tick(from: shop, at: time)) }
            batches.append(SourceBatch(events: events, fleet: fleet(shop: presence, at: time)))
        }
        let writer = try RecordingWriter(path: path)
        let recording = RecordingSource(wrapping: ScriptedSource(batches), writer: writer)
        for _ in batches { _ = recording.drain() }
        writer.close()
        // When a replay at full speed hands it over, one batch a second
        let replay = try ReplaySource(path: path, speed: 0)
        var replayed: [SourceBatch] = []
        while !replay.isFinished { replayed += replay.drainBatches() }
        // Then its notices come in the order they were said, the warning among them
        let said = replayed.flatMap(\.notices).filter { $0.text.hasPrefix("shop") }
        #expect(
            said.map { $0.text.components(separatedBy: ": ")[0] } == [
                "\(shop) joined", "\(shop) is gone", "\(shop) is back",
            ],
            "\(said.map(\.text))")
        #expect(said.map(\.isWarning) == [false, true, false])
        #expect(said.map(\.time) == said.map(\.time).sorted())
    }

    @Test("a fleet line after the last record, as an app that fell silent turns gone, ends the recording")
    func aTrailingFleetLineEndsTheRecording() throws {
        let directory = TemporaryDirectory()
        let start = 1_800_000_000.0
        let shop = FeedOrigin(app: "shop", host: "h", pid: 1)
        func fleet(_ presence: FleetMember.Presence, at time: Double) -> String {
            var writer = JSONLineWriter()
            FleetLine.write(
                [FleetMember(origin: shop, presence: presence, lastSeen: start + 2, eventsReceived: 3)],
                time: time,
                into: &writer)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        func tick(at time: Double) -> String {
            FeedRecord.event(
                FeedEvent(
                    sequence: 1, time: time, typeName: "T", payload: .description("{}"), receivers: 1,
                    origin: shop)
            ).encodeLine()
        }
        let path = directory.file("fleet.jsonl")
        try
            ([fleet(.active, at: start)] + (0...2).map { tick(at: start + Double($0)) } + [
                fleet(.gone, at: start + 32)
            ])
            .joined().write(toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 0)
        #expect(replay.duration == 32, "the recording lasts until the monitor said the app was gone")
        _ = replay.pause(at: 20)
        let atTwenty = replay.drain()
        #expect(
            atTwenty.fleet?.first?.presence == .active, "\(atTwenty.fleet as Any) \(atTwenty.status as Any)")
        _ = replay.pause(at: 32)
        #expect(try #require(replay.drain().fleet).first?.presence == .gone)

        // A line stamped far ahead (a clock never set) extends it by a long pause at most.
        let far = directory.file("far.jsonl")
        try ((0...2).map { tick(at: start + Double($0)) } + [fleet(.gone, at: start + 1e6)]).joined()
            .write(toFile: far, atomically: false, encoding: .utf8)
        #expect(try ReplaySource(path: far, speed: 0).duration == 2 + ReplaySource.longPause)
    }

    @Test("a jump into a long pause, or just past it, shows the bus as the pause found it")
    func jumpsIntoALongPause() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("pause.jsonl")
        let start = 1_800_000_000.0
        func snapshot(published: Int, at time: Double) -> String {
            Self.snapshotLine(at: time, published: published)
        }
        func tick(at time: Double) -> String {
            FeedRecord.event(
                FeedEvent(sequence: 1, time: time, typeName: "Tick", payload: .description("t"), receivers: 1)
            ).encodeLine()
        }
        // Given 12 s of ticks and snapshots, an hour of nothing, then more
        var lines: [String] = []
        for tenth in 0..<120 {
            let time = start + Double(tenth) / 10
            lines.append(tick(at: time))
            if tenth % 5 == 4 { lines.append(snapshot(published: tenth + 1, at: time)) }
        }
        lines.append(tick(at: start + 3_612))
        lines.append(snapshot(published: 121, at: start + 3_612.1))
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        // When the cursor jumps from the start into the pause, or to just after it
        for (target, expected) in [(72.0, 120), (3_612.05, 120)] {
            let replay = try ReplaySource(path: path, speed: 1)
            _ = replay.pause(at: target)
            let batches = drainUntil(replay) { batches in batches.contains { $0.snapshot != nil } }
            // Then the bus is the one the pause found, not an empty one
            #expect(batches.compactMap(\.snapshot).last?.totalPublished == expected, "at \(target)")
        }
    }

    @Test("a fleet line and a hello play at their own time, not when they are read ahead of the next record")
    func fleetAndHelloLinesPlayAtTheirTime() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("late.jsonl")
        let start = 1_800_000_000.0
        func tick(_ app: String, pid: Int, at time: Double) -> String {
            FeedRecord.event(
                FeedEvent(
                    sequence: 1, time: time, typeName: "Tick", payload: .description("t"), receivers: 1,
                    origin: FeedOrigin(app: app, host: "h", pid: pid))
            ).encodeLine()
        }
        func fleet(shop: String, at time: Double) -> String {
            #"{"kind":"fleet","time":\#(time),"members":[{"app":"shop","host":"h","pid":1,"presence":"\#(shop)","lastSeen":\#(start),"events":1,"bridgeState":null,"bridgeDropped":0},{"app":"cart","host":"h","pid":2,"presence":"active","lastSeen":\#(time),"events":1,"bridgeState":null,"bridgeDropped":0}]}"#
                + "\n"
        }
        // Given shop's last record at 0 s, the monitor seeing it leave at 50 s, and cart's next
        // record at 100 s; and a hello of a new process at 50 s, before a record at 100 s
        let lines = [
            FeedRecord.hello(FeedHello(pid: 7, process: "monitor", bus: "b", time: start)).encodeLine(),
            tick("shop", pid: 1, at: start), tick("cart", pid: 2, at: start),
            fleet(shop: "active", at: start),
            fleet(shop: "gone", at: start + 50),
            FeedRecord.hello(FeedHello(pid: 8, process: "monitor", bus: "b", time: start + 50)).encodeLine(),
            tick("cart", pid: 2, at: start + 100),
        ]
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 1)
        // When the cursor stands at 30 s, then at 60 s
        _ = replay.pause(at: 30)
        let at30 = drainUntil(replay) { batches in batches.contains { $0.fleet != nil } }
        let shopAt30 = at30.compactMap(\.fleet).last?.first { $0.origin.app == "shop" }
        #expect(shopAt30?.presence == .active)
        #expect(replay.title.hasPrefix("replay of monitor (pid 7)"))
        _ = replay.pause(at: 60)
        let at60 = drainUntil(replay) { batches in batches.contains { $0.fleet != nil } }
        // Then shop is active until 50 s and gone after, and the new process shows from 50 s
        #expect(at60.compactMap(\.fleet).last?.first { $0.origin.app == "shop" }?.presence == .gone)
        #expect(replay.title.hasPrefix("replay of monitor (pid 8)"))
        let notice = at60.flatMap(\.notices).first { $0.text.contains("a new process") }
        #expect(notice.map { abs($0.time - (start + 50)) < 0.001 } == true, "\(String(describing: notice))")
    }

    @Test(
        "a detach is recorded where the connection ended, and a replay says it then, as the live monitor did")
    func detachIsRecordedAndReplayed() throws {
        let directory = TemporaryDirectory()
        let socket = directory.file("t.sock")
        let first = EventBus(name: "first")
        var tap: BusTap? = try BusTap(bus: first, socketPath: socket, processName: "simapp")
        let writer = try RecordingWriter(path: directory.file("rec.jsonl"))
        let attach = AttachSource(socketPath: socket, retryInterval: 0.02)
        defer { attach.close() }
        let source = RecordingSource(wrapping: attach, writer: writer)
        #expect(eventually { first.snapshot().wildcardObservers == 1 })
        // Given ten events of the first bus, its tap closed, and five of a second bus at the path
        for number in 1...10 { first.publish(Ping(number: number, note: "")) }
        var live = drainUntil(source) { $0.reduce(0) { $0 + $1.events.count } >= 10 }
        tap?.close()
        tap = nil
        live += drainUntil(source) { $0.contains { $0.status == "detached" } }
        let second = EventBus(name: "second")
        let secondTap = try BusTap(bus: second, socketPath: socket, processName: "simapp")
        defer { secondTap.close() }
        #expect(eventually { second.snapshot().wildcardObservers == 1 })
        for number in 1...5 { second.publish(Opaque(number: number)) }
        live += drainUntil(source) { $0.flatMap(\.events).filter { $0.typeName == "Opaque" }.count >= 5 }
        writer.close()

        // Then the recording holds the first hello, its events, the detach, the second hello
        // and its events, in that order
        let kinds = try String(contentsOfFile: writer.path, encoding: .utf8).split(separator: "\n").map {
            line -> String in
            let record = try FeedRecord.decode(line: String(line))
            if case .event(let event) = record { return event.typeName }
            if case .hello(let hello) = record { return "hello \(hello.bus)" }
            if case .detached(let detach) = record { return "detached \(detach.bus)" }
            return record.kind
        }.filter { $0 != "snapshot" && $0 != "lifecycle" }
        #expect(
            kinds
                == ["hello first"] + Array(repeating: "Ping", count: 10) + ["detached first", "hello second"]
                + Array(repeating: "Opaque", count: 5), "\(kinds)")
        // And the live monitor's notices are the replay's, in the same order
        let name = "simapp (pid \(getpid()))"
        let said = [
            "attached to \(name)", "detached from \(name)",
            "attached to \(name): a new bus, counters restart",
        ]
        #expect(live.flatMap(\.notices).map(\.text) == said)
        let replay = try ReplaySource(path: writer.path, speed: 0)
        let replayed = drainUntil(replay) { _ in replay.isFinished }
        #expect(replayed.flatMap(\.notices).map(\.text) == said)
        // And a replay paused between the detach and the new hello says the app is detached
        let lines = try String(contentsOfFile: writer.path, encoding: .utf8).split(separator: "\n")
        let times = try lines.compactMap { line -> (String, Double)? in
            switch try FeedRecord.decode(line: String(line)) {
            case .detached(let detach): ("detached", detach.time)
            case .hello(let hello) where hello.bus == "second": ("hello", hello.time)
            default: nil
            }
        }
        let detachedAt = try #require(times.first { $0.0 == "detached" }?.1)
        let firstTime = try #require(
            try lines.lazy.compactMap { try FeedRecord.decode(line: String($0)).time }.first)
        let again = try ReplaySource(path: writer.path, speed: 0)
        _ = again.pause(at: detachedAt - firstTime + 0.0001)
        let paused = drainUntil(again) { $0.contains { $0.status?.contains("paused") == true } }
        #expect(paused.last?.status?.contains(" detached paused") == true, "\(paused.last?.status ?? "")")
    }

    @Test(
        "after a jump, an attach and a detach are handed over with the records around them, not after the last"
    )
    func noticesAfterAJumpStayInTimeOrder() throws {
        let directory = TemporaryDirectory()
        // Given an app that ran 10 s, went away and came back at 12 s for 10 s more
        let path = try TimelineRecording.writeRestartedApp(start: 1_800_000_000, in: directory)
        // When the replay jumps to 21 s
        let replay = try ReplaySource(path: path, speed: 1)
        _ = replay.pause(at: 21)
        // As the dashboard takes them: one batch a second of the recording's clock
        let batches = replay.drainBatches()
        #expect(batches.count > 10 && batches.last?.status?.contains("paused") == true)
        // Then each notice comes with the first batch holding a record stamped after it, where
        // the log places it, so that the log reads in time order as it did while playing
        var logTimes: [Double] = []
        for batch in batches {
            var notices = batch.notices.filter { !$0.isWarning }[...]
            for record in batch.records {
                guard let time = record.time else { continue }
                while let notice = notices.first, notice.time < time {
                    logTimes.append(notice.time)
                    notices = notices.dropFirst()
                }
                if case .event = record { logTimes.append(time) }
            }
            logTimes += notices.map(\.time)
        }
        let said = batches.flatMap(\.notices).map(\.text)
        #expect(said.contains { $0.hasPrefix("detached from simapp") }, "\(said)")
        let events = batches.reduce(0) { $0 + $1.events.count }
        #expect(events >= 190 && logTimes.count == events + 3, "the events and three notices: \(said)")
        #expect(logTimes == logTimes.sorted(), "the log's lines go back in time")
    }

    @Test("after two moves in one frame, the notices come after the second's fresh start, not before it")
    func noticesOfTwoMovesInAFrame() throws {
        let directory = TemporaryDirectory()
        let path = try TimelineRecording.writeRestartedApp(start: 1_800_000_000, in: directory)
        // When the cursor jumps to 21 s and back to 15 s before the dashboard takes a batch
        let replay = try ReplaySource(path: path, speed: 1)
        _ = replay.perform(.togglePlayback)
        _ = replay.perform(.goTo.with(value: "21"))
        _ = replay.perform(.goTo.with(value: "15"))
        let batches = replay.drainBatches()
        // Then every notice comes in or after the last batch that starts the dashboard over
        let restart = try #require(batches.lastIndex { $0.replacesState })
        let early = batches[..<restart].flatMap(\.notices)
        #expect(early.isEmpty, "wiped by the fresh start: \(early.map(\.text))")
        #expect(batches[restart...].flatMap(\.notices).contains { $0.text.hasPrefix("detached from simapp") })
    }

    @Test("a recording of a replay that jumped keeps its stamps in order, a dropped line among them")
    func recordingAJumpedReplayKeepsStampsInOrder() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("drops.jsonl")
        let start = 1_800_000_000.0
        let event = { (sequence: Int, time: Double) in
            TimelineRecording.tick(sequence, at: time, after: start)
        }
        // Given 5 lost events said at 0.55 s, and events every tenth of a second for 200 s
        var lines = [event(1, 0.1)]
        lines.append(FeedRecord.dropped(FeedDrops(time: start + 0.55, events: 5)).encodeLine())
        lines += (2...2000).map { event($0 + 5, Double($0) / 10) }
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        // When a replay jumps to 150 s (past its checkpoints' minute) while it is recorded
        let replay = try ReplaySource(path: path, speed: 1)
        let copy = directory.file("copy.jsonl")
        let writer = try RecordingWriter(path: copy)
        let recording = RecordingSource(wrapping: replay, writer: writer)
        _ = replay.pause(at: 150)
        for _ in 0..<3 { _ = recording.drainBatches() }
        writer.close()
        // Then the copy's stamps never go back: the drop count read at the checkpoint is
        // written at the time it is written, not at the old line's
        let times = try String(contentsOfFile: copy, encoding: .utf8).split(separator: "\n").compactMap {
            try FeedRecord.decode(line: String($0)).time
        }
        #expect(times.count > 100)
        #expect(times == times.sorted(), "stamps go back in the copy")
    }

    @Test("a jump far past a detach, with only drop counts after it, still says the app is detached")
    func detachHoldsAcrossCheckpoints() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("gone.jsonl")
        let start = 1_800_000_000.0
        let hello = FeedHello(pid: 7, process: "simapp", bus: "b", time: start)
        let lines = [
            FeedRecord.hello(hello).encodeLine(),
            FeedRecord.event(
                FeedEvent(
                    sequence: 1, time: start, typeName: "Tick", payload: .description("t"), receivers: 1)
            ).encodeLine(),
            // One naming another process (written by hand), which says nothing
            FeedRecord.detached(FeedDetached(time: start + 0.5, pid: 99, process: "ghost", bus: "b"))
                .encodeLine(),
            FeedRecord.detached(FeedDetached(from: hello, at: start + 1)).encodeLine(),
            FeedRecord.dropped(FeedDrops(time: start + 100, events: 1)).encodeLine(),
            FeedRecord.dropped(FeedDrops(time: start + 200, events: 2)).encodeLine(),
            FeedRecord.dropped(FeedDrops(time: start + 300, events: 3)).encodeLine(),
        ]
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 1)
        // When the cursor jumps to 250 s, long after the detach's minute of warm-up, then to 0.5 s
        _ = replay.pause(at: 250)
        let late = drainUntil(replay) { $0.contains { $0.status?.contains("paused") == true } }
        #expect(late.last?.status?.contains(" detached paused") == true, "\(late.last?.status ?? "")")
        _ = replay.pause(at: 0.7)
        let early = drainUntil(replay) { $0.contains { $0.status?.contains("paused") == true } }
        #expect(early.last?.status?.contains("detached") == false, "\(early.last?.status ?? "")")
        #expect(!early.flatMap(\.notices).contains { $0.text.contains("ghost") })
    }

    @Test("a replay that ends after its app went away still says detached, and Space offers to play it again")
    func finishedReplayKeepsTheDetach() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("ended.jsonl")
        let start = 1_800_000_000.0
        let hello = FeedHello(pid: 7, process: "simapp", bus: "b", time: start)
        let lines = [
            FeedRecord.hello(hello).encodeLine(),
            FeedRecord.event(
                FeedEvent(
                    sequence: 1, time: start + 0.1, typeName: "Tick", payload: .description("t"), receivers: 1
                )
            ).encodeLine(),
            FeedRecord.detached(FeedDetached(from: hello, at: start + 0.2)).encodeLine(),
        ]
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        // When it plays to its end
        let replay = try ReplaySource(path: path, speed: 0)
        let batches = drainUntil(replay) { _ in replay.isFinished }
        // Then the header says it finished with the app away, as the live monitor's said
        #expect(batches.last?.status == "replay finished detached", "\(batches.last?.status ?? "")")
        // And the key bar offers Play, which plays it from the start
        #expect(replay.supportedCommands.contains(.replayPause(isPaused: true)))
        #expect(replay.perform(.togglePlayback) == "playing from the start")
        #expect(replay.supportedCommands.contains(.replayPause(isPaused: false)))
    }

    @Test("after a jump, each app of a fleet counts the events of the whole recording, a second at a time")
    func fleetCountsAfterAJump() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("fleet.jsonl")
        let start = 1_800_000_000.0
        let origin = FeedOrigin(app: "shop", host: "h", pid: 1)
        // Given ten events a second from one app for 400 s, its fleet line at the start
        var lines = [
            FeedRecord.hello(FeedHello(pid: 7, process: "listening", bus: "b", time: start)).encodeLine(),
            #"{"kind":"fleet","time":\#(start),"members":[{"app":"shop","host":"h","pid":1,"presence":"active","lastSeen":\#(start),"events":0,"bridgeState":null,"bridgeDropped":0}]}"#
                + "\n",
        ]
        for index in 0..<4000 {
            lines.append(
                FeedRecord.event(
                    FeedEvent(
                        sequence: index + 1, time: start + Double(index) / 10, typeName: "Tick",
                        payload: .description("\(index)"), receivers: 1, origin: origin)
                ).encodeLine())
        }
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 1)
        for target in [350.0, 100.0, 250.05] {
            // When the cursor jumps there
            _ = replay.pause(at: target)
            let batches = replay.drainBatches()
            // Then the app counts every event up to the cursor, not the minute read again
            let fleets = batches.compactMap(\.fleet)
            let member = try #require(fleets.last?.first)
            #expect(member.eventsReceived == Int((target * 10).rounded(.down)) + 1, "at \(target)")
            // And the list comes once a second of what was read, for the rates
            #expect(fleets.count >= 50, "at \(target): \(fleets.count) lists")
        }
    }

    @Test("a tap, attached and recorded, replays with the totals the app published")
    func tapRecordReplay() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus()
        let tap = try BusTap(bus: bus, socketPath: directory.file("t.sock"), processName: "simapp")
        let writer = try RecordingWriter(path: directory.file("rec.jsonl"))
        let attach = AttachSource(socketPath: tap.socketPath)
        defer { attach.close() }
        let source = RecordingSource(wrapping: attach, writer: writer)
        #expect(eventually { tap.connectedClients == 1 && bus.snapshot().wildcardObservers == 1 })
        for number in 1...400 { bus.publish(Ping(number: number, note: "")) }
        for number in 1...100 { bus.publish(Opaque(number: number)) }
        let live = drainUntil(source) { batches in
            batches.reduce(0) { $0 + $1.events.count } >= 500
                && batches.contains { $0.snapshot?.totalPublished == 500 }
        }
        writer.close()

        let replay = try ReplaySource(path: writer.path, speed: 0)
        #expect(replay.hello?.process == "simapp")
        #expect(replay.title.hasPrefix("replay of simapp (pid \(getpid())) from rec.jsonl"))
        let replayed = drainUntil(replay) { _ in replay.isFinished }
        func perType(_ batches: [SourceBatch]) -> [String: Int] {
            batches.flatMap(\.events).reduce(into: [:]) { $0[$1.typeName, default: 0] += 1 }
        }
        #expect(perType(replayed) == ["Ping": 400, "Opaque": 100])
        #expect(perType(replayed) == perType(live))
        #expect(replayed.compactMap(\.snapshot).last?.totalPublished == 500)
    }

    @Test("replay keeps the original timing, scaled by speed, and reports its position")
    func timing() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("timed.jsonl")
        let lines = (0..<3).map { index in
            FeedRecord.event(
                FeedEvent(
                    sequence: index + 1, time: 100 + Double(index) * 0.4, typeName: "T",
                    payload: .description("\(index)"), receivers: 0)
            ).encodeLine()
        }
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 4)  // 0.8 s of recording in 0.2 s
        #expect(abs(replay.duration - 0.8) < 1e-9)
        let first = replay.drain()
        #expect(first.events.count == 1, "only the first record is due at the start")
        #expect(first.status == "replay 00:00.0 / 00:00.8 [----------] at 4.0x")
        let batches = drainUntil(replay) { _ in replay.isFinished }
        #expect(batches.reduce(0) { $0 + $1.events.count } == 2)
        #expect(batches.last?.status == "replay finished")
        #expect(
            replay.perform(SourceCommand("destroy-screens")) == "replay: commands do not apply to a recording"
        )
        // At the end, Space offers to play it again
        #expect(
            replay.supportedCommands == [
                .replaySpeed, .replayPause(isPaused: true), .replayStep, .replayJump, .replayFind,
            ])
    }

    @Test(
        "a malformed line is skipped and named with its file and line; a file of nothing readable is refused")
    func malformedLineNamed() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("bad.jsonl")
        let event = { (sequence: Int, time: Double) in
            FeedRecord.event(
                FeedEvent(
                    sequence: sequence, time: time, typeName: "Tick", payload: .description("{}"),
                    receivers: 1)
            ).encodeLine()
        }
        try
            (event(1, 1) + "\n" + event(2, 2) + #"{"kind":"event","time":2}"# + "\n" + "not json\n"
            + event(3, 3))
            .write(toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 1_000)
        #expect(replay.eventCount == 3, "the rest plays")
        #expect(replay.malformedLines == 2)
        #expect(
            replay.warnings == [
                "\(path):4: missing field \"seq\" in an event record; that line and 1 more were skipped"
            ])
        let played = drainUntil(replay) { _ in replay.isFinished }
        #expect(played.flatMap(\.records).events.map(\.sequence) == [1, 2, 3])
        #expect(played.flatMap(\.notices).contains { $0.isWarning && $0.text.hasPrefix("\(path):4:") })
        // Stamped with the recording's time where the cursor stood, not the wall clock's
        #expect(played.flatMap(\.notices).filter(\.isWarning).map(\.time) == [1])

        let garbage = directory.file("garbage.jsonl")
        try "not json\n{}\n".write(toFile: garbage, atomically: false, encoding: .utf8)
        #expect(throws: RecordingError.self) { try ReplaySource(path: garbage) }
        do {
            _ = try ReplaySource(path: garbage)
        } catch {
            #expect(error.description == "\(garbage):1: expected a JSON object, one per line", "\(error)")
        }
    }

    @Test(
        "a line longer than a record may be, or a tail of zeros a crash left, is skipped and the rest plays")
    func overlongLinesAreSkipped() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("long.jsonl")
        let event = { (sequence: Int) in
            FeedRecord.event(
                FeedEvent(
                    sequence: sequence, time: Double(sequence), typeName: "Tick", payload: .description("{}"),
                    receivers: 1)
            ).encodeLine()
        }
        // Given two records, a line of 2.5 MB (more than the reader holds at once), a third
        // record, and 3 MB of zeros with no newline, as a crash can leave them
        var bytes = Array((event(1) + event(2)).utf8)
        bytes += Array(repeating: UInt8(ascii: "x"), count: 2_500_000) + [0x0A]
        bytes += Array(event(3).utf8)
        bytes += Array(repeating: 0, count: 3_000_000)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        // When it is replayed
        let replay = try ReplaySource(path: path, speed: 0)
        // Then the three records play, and both lines are named with their lengths
        #expect(replay.eventCount == 3)
        #expect(replay.malformedLines == 1)
        #expect(
            replay.warnings.contains(
                "\(path):3: line is longer than the limit of 1048576 bytes (at least 2500000 bytes); "
                    + "the line was skipped"), "\(replay.warnings)")
        #expect(
            replay.warnings.contains {
                $0.hasPrefix("\(path):5: the last line is incomplete")
                    && $0.contains("at least 3000000 bytes")
            }, "\(replay.warnings)")
        let played = drainUntil(replay) { _ in replay.isFinished }
        #expect(played.flatMap(\.records).events.map(\.sequence) == [1, 2, 3])
    }

    @Test("a hello that cannot be read refuses the recording: what follows would pass as the process before")
    func anUnreadableHelloRefusesTheRecording() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("hello.jsonl")
        let event = FeedRecord.event(
            FeedEvent(sequence: 1, time: 1, typeName: "Tick", payload: .description("{}"), receivers: 1)
        ).encodeLine()
        try (event + #"{"kind":"hello","version":3,"pid":"twelve"}"# + "\n" + event)
            .write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: RecordingError.self) { try ReplaySource(path: path) }
    }

    @Test("records handed over again after a move back, hellos included, are taken once")
    func hellosAreTakenOnce() {
        func hello(pid: Int, at time: Double) -> FeedRecord {
            .hello(FeedHello(pid: pid, process: "shop", bus: "main", time: time))
        }
        func tick(at time: Double) -> FeedRecord {
            .event(
                FeedEvent(sequence: 1, time: time, typeName: "T", payload: .description("{}"), receivers: 1))
        }
        var taken = RecordsTakenOnce()
        _ = taken.fresh(
            SourceBatch(records: [hello(pid: 1, at: 10), tick(at: 11), hello(pid: 2, at: 20), tick(at: 21)]))
        var again = SourceBatch(records: [hello(pid: 2, at: 20), tick(at: 21), tick(at: 22)])
        again.replacesState = true
        let fresh = taken.fresh(again).records
        #expect(fresh.compactMap(\.time) == [22])
        #expect(fresh.count == 1, "the hello of before is not news")
    }

    @Test("a run that never starts leaves a recording of before as it was, and no file of its own")
    func aRunThatNeverStartsLeavesFilesAlone() throws {
        let directory = TemporaryDirectory()
        let old = directory.file("old.jsonl")
        try "kept\n".write(toFile: old, atomically: false, encoding: .utf8)
        do { _ = try RecordingWriter(path: old) }
        #expect(try String(contentsOfFile: old, encoding: .utf8) == "kept\n")
        let new = directory.file("new.jsonl")
        do { _ = try RecordingWriter(path: new) }
        #expect(!FileManager.default.fileExists(atPath: new))

        // A run that went on empties the old file when it writes, or when it ends having written
        // nothing, as the file of that run.
        let writer = try RecordingWriter(path: old)
        #expect(try String(contentsOfFile: old, encoding: .utf8) == "kept\n", "nothing written yet")
        writer.write(bytes: Array("new\n".utf8), lines: 1)
        writer.close()
        #expect(try String(contentsOfFile: old, encoding: .utf8) == "new\n")
        let quiet = try RecordingWriter(path: old)
        quiet.close()
        #expect(try String(contentsOfFile: old, encoding: .utf8) == "")
    }

    @Test("a last line cut short is skipped with a warning")
    func truncatedLastLine() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("cut.jsonl")
        try writeCutOffRecording(to: path)
        let replay = try ReplaySource(path: path, speed: 0)
        #expect(replay.eventCount == 2)
        #expect(replay.warnings.count == 1)
        #expect(replay.warnings.first?.hasPrefix("\(path):3: the last line is incomplete") == true)
    }

    @Test("a long pause in a recording is told when it opens: where, how long, and how many more")
    func longPausesAreTold() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("pauses.jsonl")
        func ping(_ time: Double) -> String {
            FeedRecord.event(
                FeedEvent(sequence: 1, time: time, typeName: "Ping", payload: .description("p"), receivers: 1)
            ).encodeLine()
        }
        // A quiet night (8 hours) after 2 s, a quiet minute and a half later, and a record
        // stamped in 2106, whose clock a test rig never set.
        let start = 1_800_000_000.0
        let times = [start, start + 2, start + 2 + 8 * 3_600, start + 2 + 8 * 3_600 + 90, 4_294_967_295]
        try times.map(ping).joined().write(
            toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 0)
        #expect(
            replay.warnings == [
                "\(path):5: nothing happens for 79 years after 8:01:32.0 of the recording, which playing "
                    + "at its pace waits out (in the dashboard t jumps to a time, n to the next line); 2 more pauses "
                    + "of a minute or longer"
            ])
        #expect(replay.drain().notices.map(\.text) == replay.warnings)
        // Under a minute is no pause worth telling.
        try [start, start + 59, start + 118].map(ping).joined().write(
            toFile: path, atomically: false, encoding: .utf8)
        #expect(try ReplaySource(path: path, speed: 0).warnings.isEmpty)
        #expect(ReplaySource.pauseText(90) == "1 minute")
        #expect(ReplaySource.pauseText(8 * 3_600) == "8 hours")
        #expect(ReplaySource.pauseText(3 * 86_400) == "3 days")
    }

    @Test("a cut-off last line is a warning in the first batch and a mark on the final status")
    func truncatedLastLineShownWhileRunning() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("cut.jsonl")
        try writeCutOffRecording(to: path)
        let replay = try ReplaySource(path: path, speed: 0)

        let first = replay.drain()
        #expect(first.notices.map(\.text) == replay.warnings)
        #expect(first.notices.allSatisfy { $0.isWarning })
        #expect(first.notices.first?.text.hasPrefix("\(path):3: the last line is incomplete") == true)
        let rest = drainUntil(replay) { _ in replay.isFinished }
        #expect(rest.allSatisfy { $0.notices.isEmpty }, "each warning is told once")
        #expect((rest.last ?? first).status == "replay finished (last line cut off)")
    }

    @Test(
        "an empty recording, or one of blank lines, says so and is finished at once",
        arguments: ["", "\n  \n\t\n"])
    func emptyRecording(contents: String) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("empty.jsonl")
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 1)
        #expect(replay.isEmpty)
        #expect(replay.isFinished)
        let batch = replay.drain()
        #expect(batch.status == "recording is empty")
        #expect(batch.notices.map(\.text) == ["\(path): the recording is empty"])
        #expect(batch.notices.first?.isWarning == true)
        #expect(replay.drain().status == "recording is empty")
    }

    @Test("a recording with only a hello is not empty")
    func onlyAHello() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("hello.jsonl")
        try FeedRecord.hello(FeedHello(pid: 1, process: "app", bus: "b", time: 1)).encodeLine().write(
            toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 1)
        #expect(!replay.isEmpty)
        #expect(replay.isFinished)
        #expect(replay.drain().status == "replay finished")
    }

    @Test("a replay reads the file as it plays: records written after the check are not read ahead")
    func streamsAsItPlays() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("stream.jsonl")
        let lines = (0..<40_000).map { index in
            FeedRecord.event(
                FeedEvent(
                    sequence: index + 1, time: 100 + Double(index) / 1000, typeName: "T",
                    payload: .fields(json: #"{"n":\#(index)}"#), receivers: 0)
            ).encodeLine()
        }
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 0)
        #expect(replay.eventCount == 40_000)
        #expect(abs(replay.duration - 39.999) < 1e-6)

        // Given a replay as fast as possible, each drain hands over at most its limit, in order.
        let first = replay.drain()
        #expect(first.events.count == ReplaySource.maximumRecordsPerDrain)
        #expect(!replay.isFinished)
        let rest = drainUntil(replay) { _ in replay.isFinished }
        let all = first.events + rest.flatMap(\.events)
        #expect(all.count == 40_000)
        #expect(all.last?.payload.text == #"{"n":39999}"#)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.time <= $1.time })
    }

    @Test("a large record fills a batch on its own, so a batch's memory stays bounded")
    func bytesPerDrainBounded() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("large.jsonl")
        let note = String(repeating: "x", count: 60_000)
        let lines = (0..<200).map { index in
            FeedRecord.event(
                FeedEvent(
                    sequence: index + 1, time: 100, typeName: "T", payload: .description(note), receivers: 0)
            ).encodeLine()
        }
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 0)
        let first = replay.drain()
        #expect(first.events.count * 60_000 <= ReplaySource.maximumBytesPerDrain + 61_000)
        #expect(first.events.count > 0)
    }

    @Test("counters restart with the first snapshot, and with the first after each later hello")
    func countersRestart() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("two.jsonl")
        let snapshot = { (time: Double) in Self.snapshotLine(at: time) }
        let lines = [
            FeedRecord.hello(FeedHello(pid: 1, process: "app", bus: "b", time: 1)).encodeLine(),
            snapshot(1), snapshot(2),
            FeedRecord.hello(FeedHello(pid: 2, process: "app", bus: "b", time: 3)).encodeLine(),
            snapshot(3),
        ]
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 1)
        // Given a replay at its own pace, each snapshot comes in its own batch.
        let batches = drainUntil(replay) { _ in replay.isFinished }.filter { $0.snapshot != nil }
        #expect(batches.count == 3)
        #expect(batches.map(\.countersRestarted) == [true, false, true])
        // And the new process is said, as the live monitor said it, and named in the title
        let notices = batches.flatMap(\.notices).map(\.text)
        #expect(notices == ["attached to app (pid 2): a new process, counters restart"])
        #expect(replay.title == "replay of app (pid 2) from two.jsonl")
        // Until the cursor moves back before it
        _ = replay.pause(at: 0.5)
        _ = replay.drain()
        #expect(replay.title == "replay of app (pid 1) from two.jsonl")
    }

    @Test("a fleet's recording is titled by what busmon watched, without busmon's own pid")
    func aFleetsReplayIsTitledWithoutBusmonsPid() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("fleet.jsonl")
        let hello = FeedHello(pid: 3787, process: "listening on 127.0.0.1:7777", bus: "fleet", time: 1)
        try (FeedRecord.hello(hello).encodeLine() + Self.snapshotLine(at: 1))
            .write(toFile: path, atomically: false, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 1)
        #expect(replay.title == "replay of listening on 127.0.0.1:7777 from fleet.jsonl")
    }

    @Test(
        "a replay of an attach says the first attach, as the live monitor did; one of apps dialled in does not"
    )
    func firstAttachIsSaid() throws {
        let directory = TemporaryDirectory()
        let tap = FeedTapCounters(monitors: 1, maximumMonitors: 64)
        let snapshot = { (time: Double, origin: FeedOrigin?) -> String in
            FeedRecord.snapshot(
                FeedSnapshot(
                    time: time, snapshot: BusSnapshot(busName: "b", eventTypes: [], wildcardObservers: 1),
                    tap: tap,
                    origin: origin)
            ).encodeLine()
        }
        // Given a recording made with --attach: the app's hello, then its tap's snapshots
        let attached = directory.file("attached.jsonl")
        try [
            FeedRecord.hello(FeedHello(pid: 1, process: "app", bus: "b", time: 1)).encodeLine(),
            snapshot(1, nil), snapshot(2, nil),
        ].joined().write(toFile: attached, atomically: false, encoding: .utf8)
        // And one made with --listen: the monitor's hello, then a dialled-in app's snapshots,
        // which carry its tap's counters too
        let dialledIn = directory.file("dialled.jsonl")
        try [
            FeedRecord.hello(FeedHello(pid: 9, process: "listening on 127.0.0.1:1", bus: "fleet", time: 1))
                .encodeLine(),
            snapshot(1, FeedOrigin(app: "app", host: "h", pid: 1)),
            snapshot(2, FeedOrigin(app: "app", host: "h", pid: 1)),
        ].joined().write(toFile: dialledIn, atomically: false, encoding: .utf8)
        // When both play to the end
        let notices = { (path: String) throws -> [String] in
            let replay = try ReplaySource(path: path, speed: 0)
            return drainUntil(replay) { _ in replay.isFinished }.flatMap(\.notices).map(\.text)
        }
        // Then the attach's replay says it attached, at the start, and the other says nothing of it
        #expect(try notices(attached) == ["attached to app (pid 1)"])
        #expect(try notices(dialledIn).allSatisfy { !$0.hasPrefix("attached to") })
    }

    @Test("the events of the last moments before quitting reach the recording, the trace and the graph alike")
    func lastDrainReachesEveryOutput() throws {
        let directory = TemporaryDirectory()
        let event = FeedEvent(
            sequence: 0, time: 1_700_000_000, typeName: "Tick", payload: .description("{}"), receivers: 1,
            trace: PublishTrace(eventID: 7, site: PublishSite(fileID: "App/Clock.swift", line: 3)))
        // Given a source whose last event was never drawn, stacked as busmon stacks --record,
        // --trace and --graph
        let scripted = ScriptedSource([SourceBatch(events: [event])])
        let writer = try RecordingWriter(path: directory.file("last.jsonl"))
        let recording = RecordingSource(wrapping: scripted, writer: writer)
        let tracing = try TracingSource(wrapping: recording, path: directory.file("last.trace.json"))
        let graphing = try GraphingSource(wrapping: tracing, path: directory.file("last.dot"))
        // When the dashboard quits: each output is wound up in turn, innermost first, and each
        // takes its last drain through those inside it
        recording.recordRemaining()
        writer.close()
        _ = tracing.drainLast()
        _ = graphing.drainLast()
        // Then every output has the event
        let recorded = try String(contentsOfFile: writer.path, encoding: .utf8)
        #expect(recorded.contains(#""typeName":"Tick""#))
        let trace = try String(contentsOfFile: directory.file("last.trace.json"), encoding: .utf8)
        #expect(trace.contains("Tick"))
        #expect(graphing.graph.publishes.values.reduce(0, +) == 1, "\(graphing.graph.publishes)")
        let dot = try String(contentsOfFile: directory.file("last.dot"), encoding: .utf8)
        #expect(dot.contains(#""site:Clock.swift:3" -> "type:Tick" [label="1"]"#))
    }

    @Test("a recording still being written plays what it held when opened, and the replay says that it grew")
    func growingRecordingEndsWhereItWasOpened() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("growing.jsonl")
        let event = { (number: Int) -> String in
            FeedRecord.event(
                FeedEvent(
                    sequence: number, time: 1_700_000_000 + Double(number), typeName: "Tick",
                    payload: .description("\(number)"), receivers: 1)
            ).encodeLine()
        }
        let hello = FeedRecord.hello(FeedHello(pid: 1, process: "app", bus: "b", time: 1_700_000_000))
        try ([hello.encodeLine()] + (1...3).map(event)).joined().write(
            toFile: path, atomically: false, encoding: .utf8)
        // Given a replay opened on three events, and a writer that goes on adding to the file
        let replay = try ReplaySource(path: path, speed: 0)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data((4...50).map(event).joined().utf8))
        try handle.close()
        // When it plays to its end
        let batches = drainUntil(replay) { _ in replay.isFinished }
        // Then it played the three events it was opened on, at once, and said the file grew
        #expect(batches.flatMap(\.events).map(\.sequence) == [1, 2, 3])
        #expect(replay.duration == 2)
        let told = batches.flatMap(\.notices).filter { $0.text.contains("grew by") }
        #expect(told.count == 1 && told.allSatisfy(\.isWarning), "\(batches.flatMap(\.notices))")
        // And a jump back reads the same three, not the lines added since
        _ = replay.pause(at: 0)
        _ = replay.perform(.togglePlayback)
        let again = drainUntil(replay) { _ in replay.isFinished }
        #expect(again.flatMap(\.events).map(\.sequence).suffix(3) == [1, 2, 3])
        #expect(again.flatMap(\.events).count <= 3)
    }

    @Test("records stamped well before one above them are said: two recordings joined, or lines out of order")
    func timesGoingBackAreSaid() throws {
        let directory = TemporaryDirectory()
        let event = { (time: Double) -> String in
            FeedRecord.event(
                FeedEvent(sequence: 0, time: time, typeName: "Tick", payload: .description("t"), receivers: 1)
            ).encodeLine()
        }
        let hello = { (pid: Int, time: Double) in
            FeedRecord.hello(FeedHello(pid: pid, process: "app", bus: "b", time: time)).encodeLine()
        }
        // Given a later session's recording with an earlier one's appended to it, and a recording
        // whose threads stamped two records a few milliseconds out of order
        let joined = directory.file("joined.jsonl")
        try [hello(2, 500), event(500), event(501), event(502), hello(1, 100), event(100), event(101)]
            .joined()
            .write(toFile: joined, atomically: false, encoding: .utf8)
        let jittery = directory.file("jittery.jsonl")
        try [hello(1, 100), event(100), event(100.5), event(100.497), event(101)].joined()
            .write(toFile: jittery, atomically: false, encoding: .utf8)
        // When both are opened
        let joinedReplay = try ReplaySource(path: joined, speed: 0)
        let jitteryReplay = try ReplaySource(path: jittery, speed: 0)
        // Then the joined one says where times go back, by how much, and how many records it
        // shows later than stamped; the jitter is no news
        let warning = try #require(joinedReplay.warnings.first { $0.contains("go back") })
        #expect(warning.hasPrefix("\(joined):6: the records' times go back by 6 minutes here"), "\(warning)")
        #expect(warning.contains("this one and 1 more"))
        #expect(!jitteryReplay.warnings.contains { $0.contains("go back") }, "\(jitteryReplay.warnings)")
    }

    @Test("- never makes a replay faster, nor + slower, whatever speed it was given")
    func speedKeysKeepTheirDirection() throws {
        let directory = TemporaryDirectory()
        let path = try TimelineRecording.write(seconds: 1, in: directory)
        let slow = try ReplaySource(path: path, speed: 0.001)
        #expect(slow.perform(.decreaseRate) == "replay speed 0.001x")
        #expect(slow.perform(.increaseRate) == "replay speed 0.002x")
        let fast = try ReplaySource(path: path, speed: 5_000)
        #expect(fast.perform(.increaseRate) == "replay speed 5000.0x")
        #expect(fast.perform(.decreaseRate) == "replay speed 2500.0x")
        let usual = try ReplaySource(path: path, speed: 1)
        for _ in 0..<12 { _ = usual.perform(.decreaseRate) }
        #expect(usual.perform(.decreaseRate) == "replay speed 0.016x")
    }

    @Test("a speed shows as exactly as it was given, down to a thousandth")
    func speedsShowExactly() {
        let shown = [4, 1, 0.5, 0.25, 0.125, 1.0 / 64, 0.01, 0.001, 1.5, 1_024].map(ReplaySource.speedText)
        #expect(shown == ["4.0", "1.0", "0.5", "0.25", "0.125", "0.016", "0.01", "0.001", "1.5", "1024.0"])
    }

    @Test("a trace of a replay says whether the recording has handler calls to trace")
    func traceOfAReplayWithoutCallsSaysSo() throws {
        let directory = TemporaryDirectory()
        // Given a recording made without --trace: events, no handler calls
        let replay = try ReplaySource(path: TimelineRecording.write(seconds: 1, in: directory), speed: 0)
        #expect(replay.handlerCallCount == 0)
        let tracing = try TracingSource(wrapping: replay, path: directory.file("t.json"))
        // When it is traced, then the first batch says the trace will show no calls, and why
        let notices = tracing.drain().notices.map(\.text)
        #expect(notices.contains { $0.contains("the recording has no handler calls") }, "\(notices)")
        #expect(!notices.contains { $0.contains("from the recording's handler calls") })
    }

    @Test("an unreadable file or a negative speed is a clear error")
    func unreadable() {
        #expect(
            throws: RecordingError.unreadable(
                path: "/nonexistent/x.jsonl", reason: "No such file or directory")
        ) {
            try ReplaySource(path: "/nonexistent/x.jsonl")
        }
        #expect(throws: RecordingError.self) { try ReplaySource(path: "/tmp") }
        #expect(throws: RecordingError.invalidSpeed(-1)) { try ReplaySource(path: "/dev/null", speed: -1) }
        #expect(throws: RecordingError.self) { try RecordingWriter(path: "/nonexistent/x.jsonl") }
    }

    @Test("a symbolic link planted at the path is not followed, and nothing is written through it")
    func plantedLinkRefused() throws {
        let directory = TemporaryDirectory()
        let target = directory.file("victim.txt")
        let path = directory.file("session.jsonl")
        #expect(symlink(target, path) == 0)
        #expect(throws: RecordingError.unwritable(path: path, reason: "it is a symbolic link")) {
            try RecordingWriter(path: path)
        }
        #expect(access(target, F_OK) != 0, "no file was created through the link")
    }

    @Test(
        "a FIFO that nobody reads is refused at once, where opening it waited for a reader; one read is written"
    )
    func aFIFOWithoutAReader() throws {
        let directory = TemporaryDirectory()
        let fifo = directory.file("session.jsonl")
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: RecordingError.unwritable(path: fifo, reason: "it is a FIFO that nobody reads")) {
            try RecordingWriter(path: fifo)
        }
        // With a reader, written as a pipe is: the reader gets the line.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let writer = try RecordingWriter(path: fifo)
        writer.write(bytes: Array("{}\n".utf8), lines: 1)
        writer.close()
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(read(reader, &buffer, buffer.count) == 3)
        #expect(writer.failureReason == nil)
    }

    @Test("the process's own descriptor, a link on Linux, is written: --record >(gzip > file) names one")
    func aDescriptorOfTheProcess() throws {
        let pipe = Pipe()
        let path = "/dev/fd/\(pipe.fileHandleForWriting.fileDescriptor)"
        let writer = try RecordingWriter(path: path)
        writer.write(bytes: Array("{}\n".utf8), lines: 1)
        writer.close()
        try pipe.fileHandleForWriting.close()
        #expect(pipe.fileHandleForReading.readDataToEndOfFile() == Data("{}\n".utf8))
    }

    @Test("a writer that may not replace refuses whatever is at its path, a FIFO too, without opening it")
    func aWriterThatMayNotReplace() throws {
        let directory = TemporaryDirectory()
        let fifo = directory.file("planted.partial")
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opening a FIFO for writing blocks until a reader comes: refused before any open.
        #expect(
            throws: RecordingError.unwritable(
                path: fifo, reason: RecordingWriter.alreadyExists, what: "graph")
        ) {
            try RecordingWriter(path: fifo, what: "graph", replacing: false)
        }
        let fresh = directory.file("fresh.partial")
        let writer = try RecordingWriter(path: fresh, what: "graph", replacing: false)
        writer.write(bytes: Array("x\n".utf8), lines: 1)
        writer.close()
        #expect(try String(contentsOfFile: fresh, encoding: .utf8) == "x\n")
    }

    @Test("an existing file of this user is emptied; one of another user is refused and left alone")
    func existingFiles() throws {
        let directory = TemporaryDirectory()
        let mine = directory.file("mine.jsonl")
        try "old contents\n".write(toFile: mine, atomically: false, encoding: .utf8)
        let writer = try RecordingWriter(path: mine)
        writer.close()
        #expect(try String(contentsOfFile: mine, encoding: .utf8).isEmpty)

        // Another user's file: only root can make one here.
        guard geteuid() == 0 else { return }
        let theirs = directory.file("theirs.jsonl")
        try "precious\n".write(toFile: theirs, atomically: false, encoding: .utf8)
        #expect(chmod(theirs, 0o666) == 0 && chown(theirs, 65534, 65534) == 0)
        #expect(throws: RecordingError.unwritable(path: theirs, reason: "the file belongs to another user")) {
            try RecordingWriter(path: theirs)
        }
        #expect(try String(contentsOfFile: theirs, encoding: .utf8) == "precious\n")
    }

    @Test(
        "a full disk stops recording with one message, and the source carries on",
        .enabled(if: TestHost.fullDevice != nil, "this host has no device that is always full"))
    func diskFull() throws {
        // Writing to the full device fails with ENOSPC, as a full disk does.
        let device = try #require(TestHost.fullDevice)
        let writer = try RecordingWriter(path: device)
        let source = RecordingSource(wrapping: ScriptedSource(Self.sampleBatches()), writer: writer)
        let first = source.drain()
        #expect(first.events.count == 2, "the monitor still gets its data")
        #expect(writer.error == "recording to \(device) stopped: No space left on device")
        let stopped = "recording to \(device) stopped: No space left on device"
        #expect(first.status == "attached")
        #expect(first.problems == [SourceProblem(brief: "recording stopped", text: stopped)])
        #expect(first.statusWithProblems == "attached; \(stopped)")
        // Told once, as a warning for the log; said in every batch's problems while it lasts
        #expect(first.notices.filter(\.isWarning).map(\.text) == [stopped])
        let second = source.drain()
        #expect(second.events.count == 1)
        #expect(second.problems.map(\.text) == [stopped])
        #expect(second.notices.isEmpty)
        #expect(writer.recordsWritten == 0)
    }

    @Test("each recorded batch is on disk as soon as it is drained")
    func flushedPerBatch() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("live.jsonl")
        let writer = try RecordingWriter(path: path)
        let source = RecordingSource(wrapping: ScriptedSource(Self.sampleBatches()), writer: writer)
        _ = source.drain()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(text.hasSuffix("\n"))
        #expect(lines.count == 5, "hello, two events, one lifecycle change, one snapshot")
        #expect(
            lines.map { (try? FeedRecord.decode(line: String($0)))?.kind } == [
                "hello", "event", "lifecycle", "event", "snapshot",
            ])
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }
}

/// Writes two whole event lines and the first 20 bytes of a third, as a recording cut off by a
/// crash or a full disk leaves it.
private func writeCutOffRecording(to path: String) throws {
    let line = FeedRecord.event(
        FeedEvent(sequence: 1, time: 1, typeName: "T", payload: .description("x"), receivers: 0)
    ).encodeLine()
    try (line + line + String(line.prefix(20))).write(toFile: path, atomically: false, encoding: .utf8)
}

/// Two apps of a fleet, shop and cart, for recordings made by hand.
private enum TwoApps {
    static let shop = FeedOrigin(app: "shop", host: "h", pid: 1)
    static let cart = FeedOrigin(app: "cart", host: "h", pid: 2)

    /// An event from `origin` at `time`.
    static func tick(from origin: FeedOrigin, at time: Double) -> FeedEvent {
        FeedEvent(
            sequence: 0, time: time, typeName: "Tick", payload: .description("t"), receivers: 1,
            origin: origin)
    }

    /// The fleet with shop as `presence`, last seen at `seen`, and cart active, last seen at
    /// `cartSeen`.
    static func fleet(shop presence: FleetMember.Presence, seen: Double, cartSeen: Double) -> [FleetMember] {
        [
            FleetMember(origin: shop, presence: presence, lastSeen: seen, eventsReceived: 1),
            FleetMember(origin: cart, lastSeen: cartSeen, eventsReceived: 1),
        ]
    }
}
