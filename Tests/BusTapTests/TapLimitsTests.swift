import BusWire
import EventBus
import Foundation
import TestSupport
import Testing

@testable import BusTap

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite("The tap's limits on monitors")
struct TapLimitsTests {
    @Test("a monitor beyond the limit gets a refused line saying why, then the end of the stream")
    func refusesBeyondTheLimit() throws {
        let directory = TemporaryDirectory()
        let tap = try BusTap(
            bus: EventBus(), socketPath: directory.file("t.sock"), maximumMonitors: 2, idleTimeout: 3600)
        let first = try #require(RawClient(path: tap.socketPath))
        let second = try #require(RawClient(path: tap.socketPath))
        #expect(first.readLine()?.contains(#""kind":"hello""#) == true)
        #expect(second.readLine()?.contains(#""kind":"hello""#) == true)

        // Given two monitors attached, when a third connects, then it is told why and closed.
        let third = try #require(RawClient(path: tap.socketPath))
        let line = try #require(third.readLine())
        guard case .refused(let refusal) = try FeedRecord.decode(line: line) else {
            Issue.record("expected a refused record, got \(line)")
            return
        }
        #expect(refusal.reason == "2 monitors attached")
        #expect(third.readsToEnd(timeout: 5))
        #expect(tap.connectedClients == 2)

        // The monitors attached learn of it from the tap's counters in the snapshots.
        let records = first.readRecords(timeout: 10) { $0.snapshots.contains { $0.tap?.refused == 1 } }
        let counters = try #require(records.snapshots.last?.tap)
        #expect(counters == FeedTapCounters(monitors: 2, maximumMonitors: 2, refused: 1, disconnectedIdle: 0))
    }

    @Test("a monitor that reads nothing is disconnected after the idle time, freeing its place")
    func disconnectsIdleMonitors() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus()
        let tap = try BusTap(
            bus: bus, socketPath: directory.file("t.sock"), maximumMonitors: 1, idleTimeout: 0.3)
        let idle = try #require(RawClient(path: tap.socketPath))
        idle.setSmallReceiveBuffer()
        #expect(eventually { tap.connectedClients == 1 && bus.snapshot().wildcardObservers == 1 })

        // Given a monitor that never reads, when the app publishes more than its socket holds,
        // then the tap disconnects it once it has taken nothing for the idle time.
        let note = String(repeating: "x", count: 200)
        for number in 1...5_000 { bus.publish(Ping(number: number, note: note)) }
        #expect(eventually { tap.connectedClients == 0 })

        // The place is free again, and a new monitor hears how many were disconnected.
        let next = try #require(RawClient(path: tap.socketPath))
        let records = next.readRecords(timeout: 10) { !$0.snapshots.isEmpty }
        guard case .hello = records.first else {
            Issue.record("expected a hello first, got \(records.first.map { "\($0)" } ?? "nothing")")
            return
        }
        #expect(records.snapshots.first?.tap?.disconnectedIdle == 1)
        #expect(records.snapshots.first?.tap?.monitors == 1)
    }

    @Test("a monitor that keeps reading is never disconnected, however slow")
    func keepsSlowReaders() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus()
        let tap = try BusTap(
            bus: bus, socketPath: directory.file("t.sock"), maximumMonitors: 1, idleTimeout: 0.3)
        let reader = try #require(RawClient(path: tap.socketPath))
        #expect(eventually { tap.connectedClients == 1 && bus.snapshot().wildcardObservers == 1 })
        let records = reader.readRecords(timeout: 10) { records in
            bus.publish(Ping(number: records.count, note: ""))
            return records.events.count >= 20
        }
        #expect(records.events.count >= 20)
        usleep(600_000)
        #expect(tap.connectedClients == 1)
    }
}
