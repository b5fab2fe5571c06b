import BusMonitor
import EventBus
import Foundation
import TestSupport
import Testing

@testable import BusMonitor
@testable import BusTap
@testable import BusWire

#if canImport(Glibc)
    import Glibc
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
        #expect(source.drain().status == "connecting")
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
        #expect(batches.flatMap(\.events).first?.payloadText == #"{"note":"","number":1}"#)
        #expect(source.perform(.increaseRate) == "attached: the app controls its rate")
        #expect(source.supportedCommands.isEmpty)
        token.cancel()
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
        #expect(after.flatMap(\.events).map(\.payloadText) == [#"{"note":"after","number":2}"#])
    }

    @Test("says connecting while nothing listens, and counts malformed lines without stopping")
    func malformedLines() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("fake.sock")
        let source = AttachSource(socketPath: path, retryInterval: 0.05)
        defer { source.close() }
        #expect(source.drain().status == "connecting")

        // A fake tap that speaks some garbage between good lines.
        let (listener, _) = try UnixSocket.listen(at: path)
        defer { close(listener) }
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
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(peer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { break }
            offset += sent
        }
        let batches = drainUntil(source) { $0.reduce(0) { $0 + $1.events.count } >= 2 }
        #expect(batches.reduce(0) { $0 + $1.events.count } == 2)
        #expect(
            source.malformedLineCount == 3,
            "garbage, invalid UTF-8 and the long line; unknown kinds are skipped")
        #expect(source.drain().status == "attached (3 malformed lines skipped)")
    }
}
