import BusMonitor
import BusWire
import EventBus
import Foundation
import Simulator
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

/// A plain TCP client for saying things to the listening port that no app would.
private final class Stranger: Sendable {
    let descriptor: Int32

    init?(port: Int) {
        descriptor = socket(AF_INET, System.streamSocketType, 0)
        guard descriptor >= 0 else { return nil }
        var address = System.internetAddress(UInt32(0x7F00_0001).bigEndian, port: UInt16(port))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                System.connectSocket(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
    }

    deinit { close(descriptor) }

    /// Ends the connection as a process that exits does, with nothing more to say.
    func hangUp() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    func say(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { System.writeAll(descriptor, $0) }
    }

    /// Everything the monitor sends until it closes the connection (or 10 s pass).
    func answer() -> String {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            received += chunk[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}

/// Records what a dialling tap reports, for tests to wait on.
private final class StatusLog: Sendable {
    private let statuses = LockedValue<[MonitorLinkStatus]>([])
    func append(_ status: MonitorLinkStatus) { statuses.withLock { $0.append(status) } }
    var all: [MonitorLinkStatus] { statuses.current }
}

@Suite("Apps dialling in to busmon --listen")
struct ListenSourceTests {
    private func port(of source: ListenSource) -> Int {
        Int(source.address.split(separator: ":").last!)!
    }

    private func events(_ batches: [SourceBatch], from app: String) -> [FeedEvent] {
        batches.flatMap(\.events).filter { $0.origin?.app == app }
    }

    @Test("two apps dial in and show side by side, each event with its app")
    func twoApps() throws {
        let source = try ListenSource(address: "127.0.0.1:0", token: "tok-0123456789")
        let first = EventBus(name: "one")
        let second = EventBus(name: "two")
        let tapOne = try BusTap(bus: first, monitor: source.address, token: "tok-0123456789", app: "checkout")
        let tapTwo = try BusTap(
            bus: second, monitor: source.address, token: "tok-0123456789", app: "inventory")
        #expect(eventually { tapOne.connectedClients == 1 && tapTwo.connectedClients == 1 })
        first.publish(Ping(number: 1, note: "a"))
        second.publish(Ping(number: 2, note: "b"))
        let batches = drainUntil(source) { batches in
            !events(batches, from: "checkout").isEmpty && !events(batches, from: "inventory").isEmpty
                && batches.compactMap(\.fleet).last?.count == 2
        }
        #expect(events(batches, from: "checkout").map(\.typeName) == ["Ping"])
        #expect(events(batches, from: "inventory").first?.payload.text == #"{"note":"b","number":2}"#)
        let fleet = try #require(batches.compactMap(\.fleet).last)
        #expect(Set(fleet.map(\.origin.app)) == ["checkout", "inventory"])
        #expect(fleet.allSatisfy { $0.presence == .active && $0.origin.pid == Int(getpid()) })
        #expect(batches.last?.status == "token tok-0123456789")
        #expect(batches.flatMap(\.notices).contains { $0.text.hasPrefix("listening on 127.0.0.1:") })
        tapOne.close()
        let after = drainUntil(source) {
            $0.compactMap(\.fleet).last?.first { $0.origin.app == "checkout" }?.presence == .gone
        }
        #expect(after.flatMap(\.notices).contains { $0.text.hasSuffix("left (its connection closed)") })
        #expect(source.connectedApps == 1)
    }

    @Test("a wrong token is refused with the reason, which the app learns; it is counted, never an app")
    func wrongToken() throws {
        let source = try ListenSource(address: "127.0.0.1:0", token: "right-token-123")
        let log = StatusLog()
        let bus = EventBus()
        let tap = try BusTap(
            bus: bus, monitor: source.address, token: "wrong", app: "intruder", onStatus: log.append)
        #expect(
            eventually {
                log.all.contains { if case .refused(_, "wrong token", _) = $0 { true } else { false } }
            })
        #expect(log.all.last?.description == "busmon at \(source.address) refused: wrong token")
        // It would ask again in 10 s; closed, it is counted once however slow this machine is.
        tap.close()
        let batches = drainUntil(source) { $0.last?.status == "token right-token-123, 1 refused" }
        #expect(batches.last?.status == "token right-token-123, 1 refused")
        #expect(
            batches.flatMap(\.notices).contains {
                $0.text.contains("refused intruder at 127.0.0.1:") && $0.isWarning
            })
        #expect(batches.compactMap(\.fleet).allSatisfy { $0.isEmpty }, "never shown as an app")
        #expect(tap.connectedClients == 0)
        #expect(bus.snapshot().wildcardObservers == 0, "a refused tap does not even subscribe")
    }

    @Test("busmon quitting is no app leaving: its last batch keeps the apps as they were")
    func quittingLeavesTheAppsAsTheyWere() throws {
        let source = try ListenSource(address: "127.0.0.1:0", token: "tok-0123456789")
        let bus = EventBus(name: "stays")
        let tap = try BusTap(bus: bus, monitor: source.address, token: "tok-0123456789", app: "stays")
        defer { tap.close() }
        #expect(eventually { tap.connectedClients == 1 })
        bus.publish(Ping(number: 1, note: "a"))
        _ = drainUntil(source) { batches in
            !events(batches, from: "stays").isEmpty && batches.compactMap(\.fleet).last?.count == 1
        }
        source.close()
        let last = source.drainLast()
        #expect(last.fleet.map { $0.allSatisfy { $0.presence == .active } } ?? true)
        #expect(!last.notices.contains { $0.text.contains("left") || $0.text.contains("stopped listening") })
    }

    @Test(
        "an app started before busmon keeps running, connects once busmon starts, and comes back after a restart"
    )
    func busmonLaterAndRestarted() throws {
        let port = try LoopbackPort.free()
        let log = StatusLog()
        let bus = EventBus()
        let tap = try BusTap(
            bus: bus, monitor: "127.0.0.1:\(port)", token: "t-0123456789ab", app: "early",
            onStatus: log.append)
        // No monitor: the app publishes on, and nothing watches its bus.
        for number in 1...100 { bus.publish(Ping(number: number, note: "")) }
        #expect(eventually { log.all.contains { if case .waiting = $0 { true } else { false } } })
        #expect(bus.snapshot().wildcardObservers == 0, "nothing is captured while no monitor is connected")

        var source: ListenSource? = try ListenSource(address: "127.0.0.1:\(port)", token: "t-0123456789ab")
        #expect(eventually { tap.connectedClients == 1 })
        bus.publish(Ping(number: 101, note: "seen"))
        let seen = drainUntil(source!) { !events($0, from: "early").isEmpty }
        #expect(events(seen, from: "early").map(\.payload.text) == [#"{"note":"seen","number":101}"#])

        source?.close()
        source = nil
        #expect(eventually { tap.connectedClients == 0 })
        let restarted = try ListenSource(address: "127.0.0.1:\(port)", token: "t-0123456789ab")
        #expect(eventually { tap.connectedClients == 1 })
        bus.publish(Ping(number: 102, note: "again"))
        let again = drainUntil(restarted) { !events($0, from: "early").isEmpty }
        #expect(events(again, from: "early").map(\.payload.text) == [#"{"note":"again","number":102}"#])
    }

    @Test("strangers on the port are refused or dropped, and the app already connected is not disturbed")
    func strangers() throws {
        let source = try ListenSource(address: "127.0.0.1:0", token: "tok-0123456789")
        let port = port(of: source)
        let bus = EventBus()
        let tap = try BusTap(bus: bus, monitor: source.address, token: "tok-0123456789", app: "steady")
        #expect(eventually { tap.connectedClients == 1 })

        let http = try #require(Stranger(port: port))
        http.say(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(http.answer().hasPrefix("HTTP/1.0 400 Bad Request"))

        let garbage = try #require(Stranger(port: port))
        var random = SplitMix64(seed: 7)
        garbage.say((0..<300).map { _ in UInt8(truncatingIfNeeded: random.next()) } + [0x0A])
        #expect(garbage.answer().contains(#""kind":"refused""#))

        let endless = try #require(Stranger(port: port))
        endless.say([UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10))
        #expect(endless.answer().contains("over 4 KiB"))

        // Many connections that never send anything: beyond the limit, the oldest are closed.
        let silent = (0..<(ListenSource.maximumDialling + 20)).compactMap { _ in Stranger(port: port) }
        #expect(silent.count == ListenSource.maximumDialling + 20)

        for number in 1...50 { bus.publish(Ping(number: number, note: "")) }
        let batches = drainUntil(source) { events($0, from: "steady").count == 50 }
        #expect(events(batches, from: "steady").count == 50, "the app's events all arrived")
        #expect(tap.connectedClients == 1)
        #expect(eventually { source.refusedConnections >= 3 + 20 })
        #expect(source.connectedApps == 1)
        _ = silent
    }

    @Test("an app that hangs up in the middle of a record is said to have lost it")
    func aLineCutOffByTheAppHangingUpIsSaid() throws {
        let source = try ListenSource(address: "127.0.0.1:0", token: "tok-0123456789")
        let app = try #require(Stranger(port: port(of: source)))
        let hello = FeedRecord.hello(FeedHello(pid: 99, process: "cut", bus: "b", time: 1)).encodeLine()
        let half = FeedRecord.event(
            FeedEvent(sequence: 1, time: 2, typeName: "T", payload: .description("ok"), receivers: 0)
        ).encodeLine().utf8.prefix(30)
        app.say(
            MonitorLinkHandshake.Dial(token: "tok-0123456789", app: "cut", host: "h", pid: 99).encodeLine()
                + Array(hello.utf8) + Array(half))
        #expect(eventually { source.connectedApps == 1 })
        app.hangUp()
        let batches = drainUntil(source) { batches in
            batches.flatMap(\.notices).contains { $0.text.contains("into a line") }
        }
        let said = batches.flatMap(\.notices).map(\.text)
        #expect(
            said.contains {
                $0.contains(
                    "skipped 1 malformed line (the connection ended 30 bytes into a line, which is lost)")
            },
            "\(said)")
    }

    @Test(
        "an app whose tap speaks a wire version busmon cannot read is said so and closed, its records unread")
    func anAppInAnUnreadableVersionIsSaidAndClosed() throws {
        let source = try ListenSource(address: "127.0.0.1:0", token: "tok-0123456789")
        let app = try #require(Stranger(port: port(of: source)))
        let hello = FeedRecord.hello(FeedHello(version: 99, pid: 77, process: "later", bus: "b", time: 1))
        let event = FeedRecord.event(
            FeedEvent(
                sequence: 1, time: 2, typeName: "FromTheFuture", payload: .description("?"), receivers: 0))
        app.say(
            MonitorLinkHandshake.Dial(token: "tok-0123456789", app: "later", host: "h", pid: 77).encodeLine()
                + Array((hello.encodeLine() + event.encodeLine()).utf8))
        let batches = drainUntil(source) { batches in
            batches.flatMap(\.notices).contains { $0.text.contains("cannot read") }
        }
        let notice = try #require(batches.flatMap(\.notices).first { $0.text.contains("cannot read") })
        #expect(
            notice.text
                == "later@h:77: cannot read what it sends: its tap speaks wire version 99, this reads versions 1 to 3"
        )
        #expect(notice.isWarning)
        #expect(batches.flatMap(\.events).isEmpty, "not one record read as if it were this version's")
        #expect(eventually { source.connectedApps == 0 })
    }

    @Test("connections held open without dialling, however many, do not lock an app out")
    func idleConnectionsCannotLockAppsOut() throws {
        let source = try ListenSource(address: "127.0.0.1:0", token: "tok-0123456789")
        let port = port(of: source)
        // More than every place, all from the address the app dials from too.
        let silent = (0..<(ListenSource.maximumDialling + 20)).compactMap { _ in Stranger(port: port) }
        #expect(silent.count == ListenSource.maximumDialling + 20)
        // Taken in: those past the places have been closed, or the newest turned away.
        #expect(eventually { source.refusedConnections >= 20 })
        let bus = EventBus()
        let dialled = MonotonicClock.now()
        let tap = try BusTap(bus: bus, monitor: source.address, token: "tok-0123456789", app: "late")
        #expect(eventually { tap.connectedClients == 1 }, "the app dialled in past the idle ones")
        // At once, not once the idle ones were refused for not dialling in time.
        #expect(MonotonicClock.now() - dialled < ListenSource.dialTimeout)
        bus.publish(Ping(number: 1, note: "in"))
        let batches = drainUntil(source) { !events($0, from: "late").isEmpty }
        #expect(events(batches, from: "late").count == 1)
        _ = silent
    }

    @Test("a connection that never dials is refused after the dial timeout")
    func silentConnectionTimesOut() throws {
        let source = try ListenSource(address: "127.0.0.1:0", token: "tok-0123456789")
        let silent = try #require(Stranger(port: port(of: source)))
        #expect(silent.answer().contains("no dial within 5 s"))
        #expect(source.refusedConnections == 1)
    }

    @Test("a connection that trickles bytes and never dials is refused after the dial timeout too")
    func tricklingConnectionTimesOut() throws {
        let source = try ListenSource(address: "127.0.0.1:0", token: "tok-0123456789")
        let trickler = try #require(Stranger(port: port(of: source)))
        let answered = LockedValue(false)
        // A byte every 50 ms, no newline: busmon reads something in most of its rounds.
        let writer = Thread {
            let start = MonotonicClock.now()
            while !answered.current, MonotonicClock.now() - start < 15 {
                trickler.say([UInt8(ascii: "x")])
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        writer.start()
        let answer = trickler.answer()
        answered.withLock { $0 = true }
        #expect(answer.contains("no dial within 5 s"))
        #expect(source.refusedConnections == 1)
    }

    @Test("secret fields read <redacted> through the link")
    func redactedThroughTheLink() throws {
        struct LoggedIn: Event, Encodable {
            let user: String
            let token: String
        }
        let source = try ListenSource(address: "127.0.0.1:0", token: "tok-0123456789")
        let bus = EventBus()
        let tap = try BusTap(bus: bus, monitor: source.address, token: "tok-0123456789", app: "app")
        #expect(eventually { tap.connectedClients == 1 })
        bus.publish(LoggedIn(user: "ada", token: "tk_123"))
        let batches = drainUntil(source) { !events($0, from: "app").isEmpty }
        #expect(events(batches, from: "app").first?.payload.text == #"{"token":"<redacted>","user":"ada"}"#)
    }

    @Test("a bad address or a port in use is an error, not a crash")
    func badAddresses() throws {
        #expect(throws: ListenSource.Failure.self) { try ListenSource(address: "nonsense", token: nil) }
        let taken = try ListenSource(address: "127.0.0.1:0", token: nil)
        #expect(taken.tokenIsGenerated && taken.token.count == 16)
        #expect(throws: ListenSource.Failure.self) { try ListenSource(address: taken.address, token: nil) }
        #expect(throws: BusTapError.self) {
            try BusTap(bus: EventBus(), monitor: "no-port", token: "t-0123456789ab")
        }
        #expect(throws: BusTapError.invalidToken) {
            try BusTap(bus: EventBus(), monitor: "127.0.0.1:1", token: "")
        }
    }
}

@Suite("Refusals under a flood of strangers")
struct ListenRefusalNoticeTests {
    @Test("past the few refusals said in a second, the rest are said together once it is over")
    func refusalsPastTheSecondsFewAreCounted() {
        // Given twelve strangers refused within one second
        var state = ListenState(fleet: FleetState())
        for index in 0..<12 { state.noteRefusal("refused stranger \(index)", now: 100 + Double(index) / 20) }
        // When the monitor drains after that second
        state.sayUnsaidRefusals(now: 101.2)
        let texts = state.notices.take(now: 101.2).map(\.text)
        // Then five are said each, and one notice counts the seven others
        #expect(
            texts == (0..<5).map { "refused stranger \($0)" } + [
                "7 more connections refused in a second (12 refused so far)"
            ], "\(texts)")
        #expect(state.refused == 12)
    }

    @Test("refusals left unsaid are said by the next refusal of a later second too, before it")
    func aLaterRefusalSaysTheUnsaidFirst() {
        var state = ListenState(fleet: FleetState())
        for index in 0..<6 { state.noteRefusal("refused stranger \(index)", now: 200.5) }
        state.noteRefusal("refused latecomer", now: 203)
        let texts = state.notices.take(now: 203).map(\.text)
        #expect(
            Array(texts.suffix(2)) == [
                "1 more connection refused in a second (6 refused so far)", "refused latecomer",
            ], "\(texts)")
        #expect(state.refused == 7)
    }

    @Test("refusals held back in the last second are said when busmon ends")
    func theLastSecondsRefusalsAreSaidAtTheEnd() {
        var state = ListenState(fleet: FleetState())
        for index in 0..<8 { state.noteRefusal("refused stranger \(index)", now: 300.1) }
        state.sayUnsaidRefusals(now: 300.2)
        #expect(state.notices.take(now: 300.2).count == 5)
        state.sayUnsaidRefusals(now: 300.3, atOnce: true)
        #expect(
            state.notices.take(now: 300.3).map(\.text) == [
                "3 more connections refused in a second (8 refused so far)"
            ])
    }
}

@Suite("Malformed lines said once a second")
struct MalformedLineNoticesTests {
    private func lines(_ count: Int, _ reason: String) -> MalformedLines {
        var lines = MalformedLines()
        for _ in 0..<count { lines.add(reason: reason) }
        return lines
    }

    @Test(
        "the first are said at once, those within the second after held and summed, and said at once at the end"
    )
    func floodsOfJunkAreSummed() {
        var notices = MalformedLineNotices()
        #expect(notices.take(now: 10) == nil, "nothing to say")
        notices.add(lines(2, "not JSON"))
        #expect(notices.take(now: 10)?.notice == "skipped 2 malformed lines (the first: not JSON)")
        notices.add(lines(1, "line is not valid UTF-8"))
        #expect(notices.take(now: 10.4) == nil, "held: said a moment ago")
        notices.add(lines(3, "not JSON"))
        #expect(notices.take(now: 10.9) == nil)
        #expect(
            notices.take(now: 11.0)?.notice
                == "skipped 4 malformed lines (the first: line is not valid UTF-8)")
        notices.add(lines(1, "not JSON"))
        #expect(notices.take(now: 11.1, atOnce: true)?.notice == "skipped 1 malformed line (not JSON)")
        #expect(notices.take(now: 20) == nil, "each line said once")
    }
}
