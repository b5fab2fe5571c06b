import BusMonitor
import BusTap
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

/// Measures what a tap costs a publishing thread; prints numbers, asserts nothing about speed.
///
/// Off by default (it takes a while and means little in a debug build). Run it optimised:
///
/// ```sh
/// BUSTAP_MEASURE=1 swift test -c release -Xswiftc -enable-testing --filter ThroughputMeasurement
/// ```
@Suite("Throughput measurement", .serialized)
struct ThroughputMeasurement {
    struct Tick: Event, Encodable {
        let value: Int
        let name: String
    }

    static let enabled = ProcessInfo.processInfo.environment["BUSTAP_MEASURE"] != nil
    static let count = 2_000_000
    static let rounds = 7

    /// A bus with three subscribers to the published type, as an app would have.
    static func makeBus() -> (EventBus, [Subscription]) {
        let bus = EventBus(name: "measured")
        let handled = LockedValue(0)
        let tokens = (0..<3).map { _ in
            bus.subscribe(to: Tick.self) { _ in handled.withLock { $0 &+= 1 } }
        }
        return (bus, tokens)
    }

    static func publishRate(_ bus: EventBus) -> Double {
        let start = MonotonicClock.now()
        for index in 0..<count { bus.publish(Tick(value: index, name: "tick")) }
        return Double(count) / (MonotonicClock.now() - start)
    }

    @Test(
        "events per second: alone, with an idle tap, with a tap and an AttachSource attached",
        .enabled(if: enabled))
    func measure() throws {
        let directory = TemporaryDirectory()
        var alone: [Double] = []
        var idle: [Double] = []
        var attached: [Double] = []
        var received = 0
        for _ in 0..<Self.rounds {
            do {
                let (bus, tokens) = Self.makeBus()
                alone.append(Self.publishRate(bus))
                _ = tokens
            }
            do {
                let (bus, tokens) = Self.makeBus()
                let tap = try BusTap(bus: bus, socketPath: directory.file("idle.sock"))
                idle.append(Self.publishRate(bus))
                tap.close()
                _ = tokens
            }
            do {
                let (bus, tokens) = Self.makeBus()
                let tap = try BusTap(bus: bus, socketPath: directory.file("attached.sock"))
                let source = AttachSource(socketPath: tap.socketPath)
                #expect(eventually { source.state == .attached && bus.snapshot().wildcardObservers == 1 })
                // A monitor's UI thread, draining ten times a second.
                let stop = LockedValue(false)
                let drained = LockedValue(0)
                let finished = DispatchSemaphore(value: 0)
                Thread {
                    while !stop.current {
                        let batch = source.drain()
                        drained.withLock { $0 += batch.events.count }
                        usleep(100_000)
                    }
                    finished.signal()
                }.start()
                attached.append(Self.publishRate(bus))
                stop.withLock { $0 = true }
                finished.wait()
                received += drained.current
                source.close()
                tap.close()
                _ = tokens
            }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let base = median(alone)
        print(
            """
            publishing \(Self.count) events, 3 subscribers, median of \(Self.rounds) rounds:
              alone:             \(Int(base)) events/s
              idle tap:          \(Int(median(idle))) events/s (\(Int(median(idle) / base * 100))%)
              tap + attached:    \(Int(median(attached))) events/s (\(Int(median(attached) / base * 100))%)
              the attached monitor received \(received / Self.rounds) events a round on average
            """)
        #expect(received > 0, "the attached monitor saw events")
    }
}
