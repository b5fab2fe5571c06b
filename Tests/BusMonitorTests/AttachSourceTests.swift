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

@Suite("Attaching to a path with no app")
struct AttachWaitingTests {
    @Test("before any app appears, the status says what the source waits for")
    func waitingForAMissingSocket() {
        let directory = TemporaryDirectory()
        let path = directory.file("later.sock")
        let source = AttachSource(socketPath: path, retryInterval: 0.01)
        defer { source.close() }

        #expect(eventually { source.drain().status == "waiting for \(path) to appear (no such file)" })
        #expect(source.state == .connecting)
    }

    @Test("something that listens and says nothing is named as such, not as a connection in progress")
    func aSilentListener() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("silent.sock")
        let tap = try FakeTap(path: path)
        let source = AttachSource(socketPath: path, retryInterval: 0.01)
        defer { source.close() }
        #expect(tap.accept())
        #expect(
            eventually {
                source.drain().status == "connected to \(path), waiting for the app to say who it is"
            })
        #expect(source.state == .connecting)
    }
}

@Suite("AttachSource")
struct AttachSourceTests {
    @Test("attaches, shows the app's name and pid, and delivers events, lifecycle and counters")
    func attaches() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus(name: "shared")
        // The source starts first, so it is still looking when the tap appears.
        let source = AttachSource(socketPath: directory.file("t.sock"), retryInterval: 0.05)
        defer { source.close() }
        #expect(source.title == "tap at \(directory.file("t.sock"))")
        // Before its first try it says it is connecting; after, what it waits for.
        let waiting = "waiting for \(directory.file("t.sock")) to appear (no such file)"
        #expect(["connecting", waiting].contains(source.drain().status))
        let tap = try BusTap(bus: bus, socketPath: directory.file("t.sock"), processName: "simapp")

        #expect(eventually { source.state == .attached && tap.connectedClients == 1 })
        #expect(source.title == "simapp (pid \(getpid()), bus shared)")
        let token = bus.subscribe(to: Ping.self) { _ in }
        for number in 1...300 { bus.publish(Ping(number: number, note: "")) }

        let batches = drainUntil(source) { batches in
            batches.reduce(0) { $0 + $1.events.count } >= 300
                && batches.contains { $0.snapshot?["Ping"]?.published == 300 }
        }
        #expect(batches.reduce(0) { $0 + $1.events.count } == 300)
        #expect(
            batches.flatMap(\.lifecycle).contains {
                $0.change.kind == .subscribed && $0.change.eventTypeName == "Ping"
            })
        #expect(batches.last?.status == "attached")
        #expect(batches.flatMap(\.events).first?.payload.text == #"{"note":"","number":1}"#)
        #expect(source.perform(.increaseRate) == "attached: the app controls its rate")
        #expect(source.supportedCommands.isEmpty)
        token.cancel()
    }

    @Test("a source that holds few records a drain accounts for every event: taken, or dropped by the tap")
    func smallIntakeLeavesTheRestToTheTap() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus(name: "flood")
        let tap = try BusTap(bus: bus, socketPath: directory.file("t.sock"), processName: "flood")
        defer { tap.close() }
        let source = AttachSource(
            socketPath: directory.file("t.sock"), retryInterval: 0.01, bufferCapacity: 50)
        defer { source.close() }
        #expect(eventually { source.state == .attached && tap.connectedClients == 1 })

        // Given an app publishing far faster than the source takes
        let published = 100_000
        for number in 1...published { bus.publish(Ping(number: number, note: "")) }

        // Then every event the source did not take was counted as dropped by the tap
        let batches = drainUntil(source) { batches in
            let taken = batches.reduce(0) { $0 + $1.events.count }
            return taken + (batches.map(\.droppedEvents).max() ?? 0) >= published
        }
        let taken = batches.reduce(0) { $0 + $1.events.count }
        let dropped = batches.map(\.droppedEvents).max() ?? 0
        #expect(taken + dropped == published)
        #expect(dropped > 0)
    }

    @Test("says detached when the app goes away, keeps retrying, and reattaches to a new tap")
    func reattaches() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("t.sock")
        let firstBus = EventBus(name: "first")
        var tap: BusTap? = try BusTap(bus: firstBus, socketPath: path, processName: "one")
        let source = AttachSource(socketPath: path, retryInterval: 0.05)
        defer { source.close() }
        #expect(eventually { source.state == .attached })
        #expect(eventually { tap?.connectedClients == 1 })
        firstBus.publish(Ping(number: 1, note: "before"))
        let before = drainUntil(source) { $0.contains { !$0.events.isEmpty } }
        #expect(before.flatMap(\.events).count == 1)

        tap = nil  // the app closes its tap (or exits)
        #expect(eventually { source.state == .detached })
        #expect(source.drain().status == "detached")
        #expect(source.title == "one (pid \(getpid()), bus first)", "the title keeps what was watched")

        let secondBus = EventBus(name: "second")
        let second = try BusTap(bus: secondBus, socketPath: path, processName: "two")
        #expect(eventually { source.state == .attached })
        #expect(source.title == "two (pid \(getpid()), bus second)")
        #expect(eventually { second.connectedClients == 1 })
        secondBus.publish(Ping(number: 2, note: "after"))
        let after = drainUntil(source) { $0.contains { !$0.events.isEmpty } }
        #expect(after.flatMap(\.events).map(\.payload.text) == [#"{"note":"after","number":2}"#])
    }

    @Test("closing the source while attached is no detach: the app is still there")
    func closingIsNoDetach() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus(name: "kept")
        let tap = try BusTap(bus: bus, socketPath: directory.file("t.sock"), processName: "app")
        defer { tap.close() }
        let source = AttachSource(socketPath: tap.socketPath, retryInterval: 0.05)
        #expect(eventually { source.state == .attached && tap.connectedClients == 1 })
        let attached = drainUntil(source) { $0.contains { $0.records.contains { $0.kind == "hello" } } }
        #expect(attached.flatMap(\.notices).map(\.text) == ["attached to app (pid \(getpid()))"])
        // When busmon quits (the session closes its source) and takes what is left
        source.close()
        let last = source.drain()
        // Then nothing says the app went away
        #expect(!last.records.contains { $0.kind == "detached" })
        #expect(last.notices.isEmpty)
        #expect(source.state == .attached)
    }

    @Test("says connecting while nothing listens, and counts malformed lines without stopping")
    func malformedLines() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("fake.sock")
        let source = AttachSource(socketPath: path, retryInterval: 0.05)
        defer { source.close() }
        // Its status text may already say why it waits (AttachWaitingTests checks that text).
        #expect(source.state == .connecting)

        // A fake tap that speaks some garbage between good lines.
        let (listener, _, lock) = try UnixSocket.listen(at: path)
        defer {
            close(listener)
            lock.release()
        }
        var peer: Int32 = -1
        #expect(
            eventually {
                peer = accept(listener, nil, nil); return peer >= 0
            })
        defer { close(peer) }
        let hello = FeedRecord.hello(FeedHello(pid: 1, process: "fake", bus: "b", time: 1)).encodeLine()
        let event = FeedRecord.event(
            FeedEvent(sequence: 1, time: 2, typeName: "T", payload: .description("ok"), receivers: 0)
        ).encodeLine()
        let future = #"{"kind":"hologram","time":3}"# + "\n"
        var bytes = Array((hello + "not json\n" + future + event).utf8)
        bytes += [0xFF, 0xFE, 0x0A]  // invalid UTF-8
        bytes += Array(repeating: UInt8(ascii: "x"), count: FeedRecord.maximumLineLength + 10) + [0x0A]
        bytes += Array(event.utf8)
        _ = bytes.withUnsafeBytes { System.writeAll(peer, $0) }
        let batches = drainUntil(source) { $0.reduce(0) { $0 + $1.events.count } >= 2 }
        #expect(batches.reduce(0) { $0 + $1.events.count } == 2)
        #expect(
            source.malformedLineCount == 3,
            "garbage, invalid UTF-8 and the long line; unknown kinds are skipped")
        #expect(source.drain().status == "attached (3 malformed lines skipped)")
        // Each skipped line is said in a warning, once a second at most: those read since the
        // first warning follow within a second.
        func saidCount(_ batches: [SourceBatch]) -> Int {
            batches.flatMap(\.notices).filter(\.isWarning).map(\.text)
                .compactMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } }.reduce(0, +)
        }
        let later = drainUntil(source) { saidCount(batches + $0) >= 3 }
        let said = (batches + later).flatMap(\.notices).filter(\.isWarning).map(\.text)
        #expect(saidCount(batches + later) == 3, "\(said)")
        // with why the first of them could not be read
        #expect(said.first?.contains("malformed line") == true)
        #expect(said.first?.contains("(") == true && said.first?.contains("JSON") == true, "\(said)")
    }
}

@Suite("AttachSource when the app goes away mid-line")
struct AttachSourceCutOffTests {
    @Test("a record the app was writing when it went away is said to be lost")
    func aLineCutOffByTheAppGoingAwayIsSaid() throws {
        let attached = try FakeAttachment()
        defer { attached.source.close() }
        let (tap, source) = (attached.tap, attached.source)
        // Half of an event line, then the app is gone.
        let half = Array(
            FeedRecord.event(
                FeedEvent(sequence: 1, time: 2, typeName: "T", payload: .description("ok"), receivers: 0)
            ).encodeLine().utf8.prefix(30))
        _ = half.withUnsafeBytes { System.writeAll(tap.peer, $0) }
        tap.hangUp()
        let batches = drainUntil(source) { batches in
            batches.flatMap(\.notices).contains { $0.text.contains("detached") }
        }
        let said = batches.flatMap(\.notices).filter(\.isWarning).map(\.text)
        #expect(
            said.contains { $0.contains("the connection ended 30 bytes into a line, which is lost") },
            "\(batches.flatMap(\.notices).map(\.text))")
        #expect(source.malformedLineCount == 1)
    }
}

@Suite("AttachSource reading a busy app")
struct AttachSourcePacingTests {
    @Test("a backlog after a quiet second is read on at once, not a chunk a pause")
    func aBacklogAfterQuietIsReadAtOnce() throws {
        // Given an attached app that said hello and then nothing for longer than the reader's
        // rate window, so that the reader paces itself as for a trickle
        let attached = try FakeAttachment()
        defer { attached.source.close() }
        let (tap, source) = (attached.tap, attached.source)
        #expect(eventually { source.readPauses >= 1 })
        usleep(UInt32(ReadPacing.window * 1.2 * 1_000_000))
        let pausesBefore = source.readPauses
        // When it sends a megabyte at once (the app back from a stall, or busmon's output)
        let count = 5_000
        let note = String(repeating: "x", count: 150)
        let events = (1...count).map { index in
            FeedRecord.event(
                FeedEvent(
                    sequence: index, time: 3, typeName: "T", payload: .description(note), receivers: 1))
        }
        let bytes = Array(events.map { $0.encodeLine() }.joined().utf8)
        let peer = tap.peer
        let sent = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = bytes.withUnsafeBytes { System.writeAll(peer, $0) }
            sent.signal()
        }
        let batches = drainUntil(source) { batches in
            batches.reduce(0) { $0 + $1.records.events.count } >= count
        }
        sent.wait()
        // Then every event arrives, and the reader took no pause per chunk of it
        #expect(batches.reduce(0) { $0 + $1.records.events.count } == count)
        #expect(
            source.readPauses - pausesBefore <= 2,
            "\(source.readPauses - pausesBefore) pauses while a backlog waited")
    }
}

@Suite("AttachSource held back by its monitor")
struct AttachSourceHeldBackTests {
    @Test("an app that goes on sending while busmon does not drain is not said to be quiet")
    func busmonsOwnStallIsNoQuietApp() throws {
        // Given a tap that sends a snapshot every 50 ms, and fills the source's buffer
        let attached = try FakeAttachment(bufferCapacity: 10, quietAfter: 0.3)
        defer { attached.source.close() }
        let (tap, source) = (attached.tap, attached.source)
        let events = (1...20).map { index in
            FeedRecord.event(
                FeedEvent(sequence: index, time: 3, typeName: "T", payload: .description("{}"), receivers: 1))
        }
        tap.send(events)
        // When busmon drains nothing for a second (its output blocked), while the app goes on
        for _ in 0..<20 {
            usleep(50_000)
            tap.send([FakeTap.snapshot])
        }
        // Then the app is not said to be quiet: it sent all along, busmon did not read
        let batch = source.drain()
        #expect(batch.records.events.count == 20, "the buffer filled, and busmon read no more")
        #expect(!batch.notices.contains { $0.text.contains("is quiet") }, "\(batch.notices.map(\.text))")
    }
}

@Suite("AttachSource and a tap it cannot read")
struct AttachSourceVersionTests {
    @Test("a tap that turns to a wire version busmon does not read is said, once, with the reason")
    func aNewerVersionMidStreamIsSaid() throws {
        // Given an attached app whose tap then says hello in version 99
        let attached = try FakeAttachment()
        defer { attached.source.close() }
        let (tap, source, path) = (attached.tap, attached.source, attached.path)
        tap.send([.hello(FeedHello(version: 99, pid: 1, process: "simapp", bus: "shared", time: 2))])
        // Then busmon says why it reads no more, as a warning, once however often it retries
        let reason = "cannot read the tap at \(path): tap speaks wire version 99, this reads versions 1 to 3"
        var batches = drainUntil(source) { $0.flatMap(\.notices).contains { $0.text == reason } }
        #expect(tap.accept())
        tap.send([.hello(FeedHello(version: 99, pid: 1, process: "simapp", bus: "shared", time: 3))])
        batches += drainUntil(source, timeout: 1) { _ in false }
        let said = batches.flatMap(\.notices).filter { $0.text == reason }
        #expect(said.count == 1, "\(batches.flatMap(\.notices).map(\.text))")
        #expect(said.allSatisfy { $0.isWarning })
    }
}

@Suite("AttachSource and a tap of another wire version from the start")
struct AttachSourceFirstVersionTests {
    @Test("a tap that speaks another wire version from its first line is named as unreadable in the status")
    func anUnreadableTapFromTheStartIsNamed() throws {
        let attached = try FakeAttachment(sayingHello: false)
        defer { attached.source.close() }
        let (tap, source, path) = (attached.tap, attached.source, attached.path)
        tap.send([.hello(FeedHello(version: 99, pid: 1, process: "simapp", bus: "shared", time: 1))])
        let batches = drainUntil(source) { $0.last?.status?.contains("wire version 99") == true }
        #expect(
            batches.last?.status
                == "cannot read the tap at \(path) (tap speaks wire version 99, this reads versions 1 to 3)")
    }
}

@Suite("AttachSource and records before a tap's hello")
struct AttachSourceRecordsBeforeHelloTests {
    @Test("records a tap sends before its hello are skipped and said, never shown as anyone's")
    func recordsBeforeTheHelloAreSkipped() throws {
        let attached = try FakeAttachment(sayingHello: false)
        defer { attached.source.close() }
        let (tap, source) = (attached.tap, attached.source)
        let orphan = FeedEvent(
            sequence: 1, time: 1, typeName: "Orphan", payload: .description("?"), receivers: 0)
        tap.send([.event(orphan), .event(orphan)])
        let before = drainUntil(source) { batches in
            batches.flatMap(\.notices).contains { $0.text.contains("before the tap's hello") }
        }
        #expect(before.flatMap(\.events).isEmpty)
        #expect(
            before.flatMap(\.notices).contains {
                $0.text
                    == "skipped 2 malformed lines (the first: a record before the tap's hello) from the tap"
            })
        #expect(before.last?.status != "attached")
        // Once it says hello, its records are its own.
        tap.send([FakeTap.hello(pid: 1), .event(orphan)])
        let after = drainUntil(source) { !$0.flatMap(\.events).isEmpty }
        #expect(after.flatMap(\.events).map(\.typeName) == ["Orphan"])
    }
}

/// A ``FakeTap`` and an ``AttachSource`` connected to it; unless told otherwise, the tap said
/// hello and sent a snapshot, and the source said it is attached. Close the source when done.
struct FakeAttachment {
    let directory = TemporaryDirectory()
    let path: String
    let tap: FakeTap
    let source: AttachSource

    init(
        bufferCapacity: Int = 10_000, quietAfter: Double = FleetPresenceTimes().quietAfter,
        sayingHello: Bool = true
    ) throws {
        path = directory.file("fake.sock")
        tap = try FakeTap(path: path)
        source = AttachSource(
            socketPath: path, retryInterval: 0.02, bufferCapacity: bufferCapacity, quietAfter: quietAfter)
        #expect(tap.accept())
        guard sayingHello else { return }
        tap.send([FakeTap.hello(pid: 1), FakeTap.snapshot])
        _ = drainUntil(source) { $0.contains { $0.status == "attached" } }
    }
}

/// A tap that tests script line by line: it accepts one monitor at a time and sends what it is
/// told.
final class FakeTap {
    let listener: Int32
    private let lock: SocketPathLock
    private(set) var peer: Int32 = -1

    init(path: String) throws {
        (listener, _, lock) = try UnixSocket.listen(at: path)
    }

    deinit {
        hangUp()
        close(listener)
        lock.release()
    }

    /// Waits for the monitor to connect.
    func accept() -> Bool {
        eventually {
            peer = System.acceptConnection(listener)
            return peer >= 0
        }
    }

    func send(_ records: [FeedRecord]) {
        let bytes = Array(records.map { $0.encodeLine() }.joined().utf8)
        _ = bytes.withUnsafeBytes { System.writeAll(peer, $0) }
    }

    func hangUp() {
        if peer >= 0 { close(peer) }
        peer = -1
    }

    static func hello(pid: Int, bus: String = "shared") -> FeedRecord {
        .hello(FeedHello(pid: pid, process: "simapp", bus: bus, time: 1))
    }

    static let snapshot = FeedRecord.snapshot(
        FeedSnapshot(time: 2, snapshot: BusSnapshot(busName: "shared", eventTypes: [], wildcardObservers: 1)))
}

@Suite("AttachSource drops")
struct AttachSourceDropTests {
    @Test("what the tap lost, events and lifecycle changes, is counted, and kept across a reconnect")
    func tapDropsAreCounted() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("fake.sock")
        let tap = try FakeTap(path: path)
        let source = AttachSource(socketPath: path, retryInterval: 0.02)
        defer { source.close() }

        // Given a tap that lost 5 events and 2 lifecycle changes for this monitor
        #expect(tap.accept())
        tap.send([FakeTap.hello(pid: 1), .dropped(FeedDrops(time: 2, events: 5, lifecycle: 2))])
        let first = drainUntil(source) { $0.last?.droppedLifecycle == 2 }
        #expect(first.last?.droppedEvents == 5)
        // and a line that says less, which no tap sends, takes nothing back
        tap.send([.dropped(FeedDrops(time: 2.5, events: 1, lifecycle: 0)), FakeTap.snapshot])
        let lower = drainUntil(source) { $0.contains { $0.snapshot != nil } }
        #expect(lower.last?.droppedEvents == 5)
        #expect(lower.last?.droppedLifecycle == 2)

        // When the app comes back and its new tap loses 1 event and 3 changes
        tap.hangUp()
        #expect(eventually { source.state == .detached })
        #expect(tap.accept())
        tap.send([FakeTap.hello(pid: 1), .dropped(FeedDrops(time: 3, events: 1, lifecycle: 3))])

        // Then the totals hold both connections' losses
        let second = drainUntil(source) { $0.last?.droppedLifecycle == 5 }
        #expect(second.last?.droppedLifecycle == 5)
        #expect(second.last?.droppedEvents == 6)
    }
}

@Suite("AttachSource notices")
struct AttachSourceNoticeTests {
    /// Drains until a batch carries the notice `text` (and a snapshot, if `snapshot`); returns
    /// every batch drained.
    private func drain(
        _ source: AttachSource, untilNotice text: String, snapshot: Bool = false
    ) -> [SourceBatch] {
        drainUntil(source, timeout: 20) { batches in
            batches.contains { $0.notices.map(\.text).contains(text) }
                && (!snapshot || batches.contains { $0.snapshot != nil })
        }
    }

    @Test("attach, detach, attach again and a new process are each a notice; counters restart with a new one")
    func attachDetachAndRestart() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("fake.sock")
        let tap = try FakeTap(path: path)
        let source = AttachSource(socketPath: path, retryInterval: 0.02)
        defer { source.close() }

        // Given a first attach, then its counters restart with the first snapshot.
        #expect(tap.accept())
        tap.send([FakeTap.hello(pid: 12943), FakeTap.snapshot])
        var batches = drain(source, untilNotice: "attached to simapp (pid 12943)", snapshot: true)
        #expect(batches.flatMap(\.notices).map(\.text) == ["attached to simapp (pid 12943)"])
        #expect(batches.filter(\.countersRestarted).count == 1)
        #expect(
            batches.first { $0.countersRestarted }?.snapshot != nil, "the restart comes with the snapshot")

        // When the app goes away, then the log says so.
        tap.hangUp()
        batches = drain(source, untilNotice: "detached from simapp (pid 12943)")
        #expect(batches.last?.status == "detached")

        // When the same process answers again, its counters go on.
        #expect(tap.accept())
        tap.send([FakeTap.hello(pid: 12943), FakeTap.snapshot])
        batches = drain(source, untilNotice: "attached again to simapp (pid 12943)", snapshot: true)
        #expect(!batches.contains { $0.countersRestarted })

        // When another process answers, its counters restart.
        tap.hangUp()
        #expect(tap.accept())
        tap.send([FakeTap.hello(pid: 13377), FakeTap.snapshot])
        batches = drain(
            source, untilNotice: "attached to simapp (pid 13377): a new process, counters restart",
            snapshot: true)
        #expect(batches.flatMap(\.notices).map(\.text).contains("detached from simapp (pid 12943)"))
        #expect(batches.filter(\.countersRestarted).count == 1)
        #expect(batches.allSatisfy { $0.notices.allSatisfy { !$0.isWarning } })
    }

    @Test(
        "an attached app that sends nothing for several of its snapshots' intervals is said to be quiet, then back"
    )
    func quietThenBack() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("fake.sock")
        let tap = try FakeTap(path: path)
        let source = AttachSource(socketPath: path, retryInterval: 0.02, quietAfter: 0.3)
        defer { source.close() }
        // Given a tap that sends a snapshot every 50 ms
        #expect(tap.accept())
        tap.send([FakeTap.hello(pid: 12943), FakeTap.snapshot])
        _ = drain(source, untilNotice: "attached to simapp (pid 12943)", snapshot: true)
        for _ in 0..<3 {
            usleep(50_000)
            tap.send([FakeTap.snapshot])
        }
        // When it stops sending, its connection open (a suspended app)
        var batches = drain(source, untilNotice: "simapp (pid 12943) is quiet: nothing from it for 0.3 s")
        // (still attached, and the header says it is quiet while it is)
        #expect(batches.last?.status == "attached, quiet")
        // Then the next line it sends says it is back, once
        tap.send([FakeTap.snapshot])
        batches = drain(source, untilNotice: "simapp (pid 12943) is back")
        #expect(batches.flatMap(\.notices).filter { $0.text.contains("is quiet") }.isEmpty)
        #expect(batches.last?.status == "attached")
    }

    @Test("a refusal becomes the status and one warning, and the source attaches once there is room")
    func refused() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus(name: "shared")
        let tap = try BusTap(
            bus: bus, socketPath: directory.file("t.sock"), processName: "simapp", maximumMonitors: 1,
            idleTimeout: 3600)
        let first = AttachSource(socketPath: tap.socketPath, retryInterval: 0.02)
        #expect(eventually { first.state == .attached })

        let second = AttachSource(socketPath: tap.socketPath, retryInterval: 0.02)
        defer { second.close() }
        var batches = drainUntil(second, timeout: 20) {
            $0.last?.status == "refused by the tap: 1 monitor attached"
        }
        #expect(batches.last?.status == "refused by the tap: 1 monitor attached")
        // Retries go on at a slower pace, and say it once.
        usleep(1_500_000)
        batches += [second.drain()]
        let notices = batches.flatMap(\.notices)
        #expect(notices.map(\.text) == ["refused by the tap: 1 monitor attached"])
        #expect(notices.first?.isWarning == true)
        #expect(second.state == .connecting)
        #expect(tap.connectedClients == 1)

        first.close()
        batches = drain(second, untilNotice: "attached to simapp (pid \(getpid()))")
        #expect(second.state == .attached)
        #expect(second.drain().status == "attached")
        #expect(eventually { second.tapCounters?.refused ?? 0 >= 1 })
    }
}
