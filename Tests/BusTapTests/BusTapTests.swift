import BusMonitor
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

@Suite("BusTap")
struct BusTapTests {
    @Test("a reader gets a hello first, then every event with its payload, in order")
    func helloThenEvents() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus(name: "orders")
        let keep = bus.subscribe(to: Ping.self) { _ in }
        let tap = try BusTap(bus: bus, socketPath: directory.file("t.sock"), processName: "shop")
        let client = try #require(RawClient(path: tap.socketPath))

        let hello = try FeedRecord.decode(line: try #require(client.readLine()))
        guard case .hello(let info) = hello else {
            Issue.record("first line is \(hello.kind), not hello")
            return
        }
        #expect(info.version == FeedRecord.wireVersion && info.process == "shop" && info.bus == "orders")
        #expect(info.pid == Int(getpid()))
        #expect(eventually { tap.connectedClients == 1 })

        let count = 1_000
        for number in 1...count { bus.publish(Ping(number: number, note: "n\(number)")) }
        bus.publish(Opaque(number: 7))
        let records = client.readRecords { $0.events.count >= count + 1 }
        let events = records.events
        #expect(events.count == count + 1)
        #expect(events.prefix(count).map(\.typeName).allSatisfy { $0 == "Ping" })
        #expect(events.map(\.sequence) == Array(1...(count + 1)), "numbered without gaps")
        #expect(events.first?.payload == .fields(json: #"{"note":"n1","number":1}"#))
        #expect(events.first?.receivers == 1)
        #expect(events.last?.payload == .description("Opaque #7"))
        #expect(records.drops.isEmpty)

        let later = client.readRecords { $0.snapshots.contains { $0.snapshot["Ping"]?.published == count } }
        #expect(later.snapshots.last?.snapshot["Ping"]?.published == count, "snapshots carry exact counters")
        _ = keep
    }

    @Test("handler calls go to the reader that asks for them, and to no other, only while it asks")
    func callsOnlyForTheReaderThatAsks() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus(name: "calls")
        let keep = bus.subscribe(to: Ping.self) { _ in }
        let tap = try BusTap(bus: bus, socketPath: directory.file("t.sock"))
        let tracing = try #require(RawClient(path: tap.socketPath))
        let plain = try #require(RawClient(path: tap.socketPath))
        #expect(eventually { tap.connectedClients == 2 })
        // Noise first, then the request: a stranger's line is ignored.
        tracing.transmit("GET / HTTP/1.1\n{\"kind\":\"trace\",\"calls\":true}\n")
        // The request takes effect within a round of the tap: publish until calls come.
        var published = 0
        let records = tracing.readRecords { records in
            bus.publish(Ping(number: published, note: ""))
            published += 1
            return records.calls.count >= 5
        }
        // The second call: the publish of the first may have begun before tracing was on, and
        // then carries no publishing thread or time.
        let call = try #require(records.calls.dropFirst().first)
        #expect(call.eventTypeName == "Ping" && call.observerTypeName == nil && call.waitedNanoseconds == nil)
        let event = try #require(records.events.first { $0.trace.eventID == call.eventID })
        #expect(event.trace.thread == call.thread && event.trace.publishedAtNanoseconds != nil)
        let other = plain.readRecords { $0.events.count >= published }
        #expect(other.calls.isEmpty, "the reader that did not ask gets no call")
        #expect(!other.events.isEmpty)

        // Withdrawn, calls stop.
        tracing.transmit("{\"kind\":\"trace\",\"calls\":false}\n")
        // What was on its way before the tap read the withdrawal is read past.
        _ = tracing.readRecords(timeout: 1) { _ in false }
        for number in 0..<20 { bus.publish(Ping(number: number, note: "")) }
        let after = tracing.readRecords { $0.events.count >= 20 }
        #expect(after.calls.isEmpty)
        _ = keep
    }

    @Test("two readers each get every event")
    func twoReaders() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus()
        let tap = try BusTap(bus: bus, socketPath: directory.file("t.sock"))
        let first = try #require(RawClient(path: tap.socketPath))
        let second = try #require(RawClient(path: tap.socketPath))
        #expect(eventually { tap.connectedClients == 2 })

        for number in 1...500 { bus.publish(Ping(number: number, note: "")) }
        let seenByFirst = first.readRecords { $0.events.count >= 500 }.events
        let seenBySecond = second.readRecords { $0.events.count >= 500 }.events
        #expect(seenByFirst.count == 500)
        #expect(seenBySecond.count == 500)
        #expect(seenByFirst == seenBySecond)
    }

    @Test("a reader that hangs up mid-stream does not stop the app or the other readers")
    func readerHangsUp() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus()
        // The staying reader reads nothing until every event is published; on a loaded machine
        // that can take longer than the usual idle timeout, which would disconnect it.
        let tap = try BusTap(
            bus: bus, socketPath: directory.file("t.sock"), maximumMonitors: 4, idleTimeout: 600)
        var quitter: RawClient? = RawClient(path: tap.socketPath)
        #expect(quitter != nil)
        let stayer = try #require(RawClient(path: tap.socketPath))
        #expect(eventually { tap.connectedClients == 2 })

        for number in 1...2_000 {
            bus.publish(Ping(number: number, note: String(repeating: "x", count: 100)))
            if number == 1_000 {
                _ = quitter?.readLine()
                quitter = nil  // closes the socket with unread data in it
            }
        }
        #expect(eventually { tap.connectedClients == 1 })
        for number in 2_001...3_000 { bus.publish(Ping(number: number, note: "")) }
        // The tap may drop what a slow build's tap thread could not keep up with, and says so;
        // every event is either received or counted as dropped.
        func accounted(_ records: [FeedRecord]) -> Int {
            records.events.count + (records.drops.last?.events ?? 0)
        }
        // Decoding 3,000 lines in a debug build under a sanitizer on a loaded machine can take
        // minutes; the timeout only bounds a failing run.
        let records = stayer.readRecords(timeout: 600) { accounted($0) >= 3_000 }
        #expect(accounted(records) == 3_000)
        let sequences = records.events.map(\.sequence)
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 }, "in order, none twice")
    }

    @Test("with nobody connected the tap does not subscribe to the bus")
    func idleTapIsNotSubscribed() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus()
        let tap = try BusTap(bus: bus, socketPath: directory.file("t.sock"))
        #expect(bus.snapshot().wildcardObservers == 0)
        var client: RawClient? = RawClient(path: tap.socketPath)
        #expect(client != nil)
        #expect(eventually { bus.snapshot().wildcardObservers == 1 })
        _ = client?.readLine()
        client = nil
        #expect(eventually { bus.snapshot().wildcardObservers == 0 })
        #expect(tap.connectedClients == 0)
    }

    @Test("the socket file is readable and writable by its owner only")
    func socketMode() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("t.sock")
        let tap = try BusTap(bus: EventBus(), socketPath: path)
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o777 == 0o600)
        tap.close()
        #expect(access(path, F_OK) != 0, "close removes the socket file")
    }

    @Test("a socket file left by a dead process is replaced")
    func staleSocketReplaced() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("t.sock")
        // A socket bound and closed without unlinking: what a crashed process leaves.
        let stale = socket(AF_UNIX, System.streamSocketType, 0)
        let bound = try #require(UnixSocket.withAddress(path) { bind(stale, $0, $1) })
        #expect(bound == 0)
        close(stale)
        #expect(access(path, F_OK) == 0)

        let tap = try BusTap(bus: EventBus(), socketPath: path)
        let client = try #require(RawClient(path: path))
        #expect(client.readLine()?.contains(#""kind":"hello""#) == true)
        tap.close()
    }

    @Test("a live tap's socket is not taken over")
    func liveSocketKept() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("t.sock")
        let first = try BusTap(bus: EventBus(), socketPath: path)
        #expect(throws: BusTapError.alreadyInUse(path: path)) {
            try BusTap(bus: EventBus(), socketPath: path)
        }
        let client = try #require(RawClient(path: path))
        #expect(client.readLine() != nil, "the first tap still serves")
        first.close()
    }

    @Test("a live tap whose socket refuses connections, as Darwin's full listen queue does, keeps its path")
    func refusingLiveTapKept() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("t.sock")
        // A socket that answers ECONNREFUSED (bound, not listening: what Darwin answers for a
        // live socket whose queue is full) while a live process holds the path's lock.
        let refusing = socket(AF_UNIX, System.streamSocketType, 0)
        defer { close(refusing) }
        #expect(try #require(UnixSocket.withAddress(path) { bind(refusing, $0, $1) }) == 0)
        let before = UnixSocket.identity(of: path)
        let lock = open(path + ".lock", O_RDWR | O_CREAT, 0o600)
        defer { close(lock) }
        #expect(flock(lock, LOCK_EX | LOCK_NB) == 0)

        #expect(throws: BusTapError.alreadyInUse(path: path)) {
            try BusTap(bus: EventBus(), socketPath: path)
        }
        #expect(UnixSocket.identity(of: path) == before, "the live socket is left where it was")

        // Once that process is gone (its lock with it), the socket is stale and is replaced.
        #expect(flock(lock, LOCK_UN) == 0)
        let tap = try BusTap(bus: EventBus(), socketPath: path)
        #expect(UnixSocket.identity(of: path) != before)
        tap.close()
    }

    @Test("a tap locks its path while it lives, binds nowhere else, and leaves nothing behind")
    func lockAndCleanUp() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("t.sock")
        let tap = try BusTap(bus: EventBus(), socketPath: path)
        var info = stat()
        #expect(lstat(path + ".lock", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(entries == ["t.sock", "t.sock.lock"], "the private folder the socket was bound in is gone")
        tap.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("a lock path that is a symbolic link is not followed")
    func lockSymlinkRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("t.sock")
        let target = directory.file("elsewhere")
        #expect(symlink(target, path + ".lock") == 0)
        #expect(throws: BusTapError.notASocket(path: path + ".lock")) {
            try BusTap(bus: EventBus(), socketPath: path)
        }
        #expect(access(target, F_OK) != 0, "nothing was created through the link")
    }

    @Test("a regular file at the path is an error and is left untouched")
    func regularFileKept() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("notes.txt")
        try "precious".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: BusTapError.notASocket(path: path)) { try BusTap(bus: EventBus(), socketPath: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
        #expect(
            BusTapError.notASocket(path: path).description
                == "\(path) exists and is not a socket; refusing to replace it")
    }

    @Test("a directory that does not exist or cannot be written gives a clear error")
    func unwritableDirectory() throws {
        let missing = "/tmp/no-such-directory-\(getpid())/t.sock"
        #expect(throws: BusTapError.self) { try BusTap(bus: EventBus(), socketPath: missing) }
        do {
            _ = try BusTap(bus: EventBus(), socketPath: missing)
        } catch {
            #expect(error.description.hasPrefix("cannot create socket \(missing): "))
        }
        let long = "/tmp/" + String(repeating: "x", count: 200)
        #expect(throws: BusTapError.pathTooLong(path: long, limit: UnixSocket.maximumPathLength)) {
            try BusTap(bus: EventBus(), socketPath: long)
        }
    }

    @Test("a reader that never reads gets drops counted, and never blocks the publisher")
    func slowReader() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus()
        // A sanitizer build may take longer to publish than a stalled reader is allowed to wait.
        let tap = try BusTap(
            bus: bus, socketPath: directory.file("t.sock"), clientQueueCapacity: 1_000,
            maximumMonitors: 64, idleTimeout: 3600)
        let client = try #require(RawClient(path: tap.socketPath))
        client.setSmallReceiveBuffer()
        #expect(eventually { tap.connectedClients == 1 && bus.snapshot().wildcardObservers == 1 })

        // Given a reader that reads nothing, when the app publishes far more than fits anywhere,
        // then publishing finishes (nothing waits for the reader)...
        let total = 200_000
        for number in 1...total { bus.publish(Ping(number: number, note: "slow reader")) }
        #expect(bus.snapshot()["Ping"]?.published == total)

        // ...and once the reader reads, it learns how many it lost, and the counts add up.
        let records = client.readRecords(timeout: 180) { records in
            records.events.count + (records.drops.last?.events ?? 0) == total
        }
        let lost = try #require(records.drops.last).events
        #expect(lost > 0)
        #expect(records.events.count + lost == total)
        #expect(records.events.count > 0)
        // Counters stay exact whatever was dropped.
        let later = client.readRecords { $0.snapshots.contains { $0.snapshot["Ping"]?.published == total } }
        #expect(later.snapshots.last?.snapshot["Ping"]?.published == total)
    }

    @Test("a reader behind gets each snapshot after the records that came before it, never ahead of them")
    func snapshotsKeepTheirPlaceForAReaderBehind() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus()
        let tap = try BusTap(
            bus: bus, socketPath: directory.file("t.sock"), snapshotInterval: 0.02,
            clientQueueCapacity: 2_000,
            maximumMonitors: 64, idleTimeout: 3600)
        let client = try #require(RawClient(path: tap.socketPath))
        client.setSmallReceiveBuffer()
        #expect(eventually { tap.connectedClients == 1 && bus.snapshot().wildcardObservers == 1 })

        // Given a reader that reads nothing while the app publishes far more than its output
        // holds, for many snapshot intervals
        let note = String(repeating: "x", count: 100)
        var published = 0
        let until = MonotonicClock.now() + 0.3
        while MonotonicClock.now() < until {
            published += 1
            bus.publish(Ping(number: published, note: note))
        }
        // When it reads everything: each event, or a count of it as lost, and a snapshot that
        // counts them all
        let records = client.readRecords(timeout: 120) { records in
            records.events.count + (records.drops.last?.events ?? 0) == published
                && records.snapshots.contains { $0.snapshot["Ping"]?.published == published }
        }
        #expect(records.events.count + (records.drops.last?.events ?? 0) == published)
        #expect(records.snapshots.count > 1)
        // Then no record after a snapshot is older than it, but by the moment between the tap's
        // taking of the events and of the snapshot (a snapshot that overtook what the reader had
        // not read yet was as far ahead as the reader was behind)
        var newestSnapshot = -Double.infinity
        var lateRecords = 0
        for record in records {
            guard let time = record.time else { continue }
            if case .snapshot = record {
                newestSnapshot = max(newestSnapshot, time)
            } else if time < newestSnapshot - 0.05 {
                lateRecords += 1
            }
        }
        #expect(lateRecords == 0, "\(lateRecords) records older than a snapshot before them")
    }

    @Test("closing the tap disconnects readers and frees the path for a new tap")
    func closeAndReopen() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("t.sock")
        let bus = EventBus()
        let tap = try BusTap(bus: bus, socketPath: path)
        let client = try #require(RawClient(path: path))
        #expect(client.readLine() != nil)
        tap.close()
        #expect(client.readsToEnd(timeout: 5), "the reader sees the end of the stream")
        #expect(bus.snapshot().wildcardObservers == 0, "the tap unsubscribed")
        let again = try BusTap(bus: bus, socketPath: path)
        again.close()
    }
}
