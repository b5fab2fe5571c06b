import Dispatch
import EventBus
import Foundation
import Synchronization
import TestSupport
import Testing

/// A main-actor screen whose handler counts what it hears.
@MainActor
final class WaitingScreen {
    private(set) var heard = 0

    nonisolated init() {}

    nonisolated func start(on bus: EventBus) {
        bus.subscribe(observer: self) { @MainActor (_: Tick) in self.heard += 1 }
    }
}

/// An actor that can be kept busy while deliveries queue for it.
actor BusyCollector {
    private(set) var heard = 0
    let holding = Atomic<Bool>(false)

    func start(on bus: EventBus) -> Subscription {
        bus.subscribe(to: Tick.self) { _ in self.heard += 1 }
    }

    /// Keeps the actor's executor busy until `gate` is signalled.
    func hold(until gate: DispatchSemaphore) {
        holding.store(true, ordering: .releasing)
        gate.wait()
    }
}

@Suite("Delivery waiting times")
struct DeliveryWaitTests {
    private static func row(_ bus: EventBus, observer: String?) -> HandlerStatistics? {
        bus.snapshot().handlers.first { $0.eventTypeName == "Tick" && $0.observerTypeName == observer }
    }

    @Test("a handler called in the publish waits for nothing: every call counts as a wait of zero")
    func inlineCallsWaitZero() {
        let bus = EventBus()
        let watch = bus.observeDeliveries { _ in }
        let token = bus.subscribe(to: Tick.self) { _ in }
        for value in 1...5 { bus.publish(Tick(value: value)) }
        let waits = Self.row(bus, observer: nil)?.waits
        #expect(waits == DeliveryWaits(count: 5, p50: .zero, p99: .zero, maximum: .zero))
        _ = (watch, token)
    }

    @Test("a queue handler's deliveries wait while the queue is busy; past the threshold they are reported")
    func queueWaitsAreMeasuredAndReported() {
        let bus = EventBus(slowDeliveryThreshold: .milliseconds(10))
        let late = Journal<SubscriberLifecycleEvent>()
        let watch = bus.observeLifecycle { if $0.kind == .slowDelivery { late.append($0) } }
        let queue = DispatchQueue(label: "busy")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let token = bus.subscribe(to: Tick.self, on: queue) { _ in }
        for value in 1...3 { bus.publish(Tick(value: value)) }
        // The deliveries were handed to the queue before this sleep began: each waits longer.
        usleep(30_000)
        gate.signal()
        queue.sync {}

        let waits = Self.row(bus, observer: nil)?.waits
        #expect(waits?.count == 3)
        #expect((waits?.maximum ?? .zero) >= .milliseconds(30))
        #expect((waits?.p50 ?? .zero) >= .milliseconds(30))
        #expect((waits?.p99 ?? .zero) >= .milliseconds(30))
        #expect((waits?.p99 ?? .zero) <= (waits?.maximum ?? .zero))
        #expect(waits?.slowDeliveries == 3)
        #expect(late.count >= 1)
        let report = late.entries.first
        #expect(report?.eventTypeName == "Tick")
        #expect((report?.duration ?? .zero) >= .milliseconds(30))
        #expect(report?.description.hasPrefix("slow delivery: Tick to a token's handler waited ") == true)
        _ = (watch, token)
    }

    @Test("a main-actor handler published to from another thread waits for the busy main actor")
    @MainActor
    func mainActorWaits() async {
        let bus = EventBus()
        let watch = bus.observeDeliveries { _ in }
        let screen = WaitingScreen()
        screen.start(on: bus)
        // Published here, on the main actor: called in the publish, no wait.
        for value in 1...98 { bus.publish(Tick(value: value)) }
        #expect(publishWhileMainActorIsBusy(bus, [99, 100]))
        // The main actor stays busy after both were scheduled.
        usleep(30_000)
        #expect(await mainActorEventually { screen.heard == 100 })

        let row = Self.row(bus, observer: "WaitingScreen")
        let waits = row?.waits
        #expect(waits?.count == 100)
        #expect(waits?.p50 == .zero)
        #expect((waits?.p99 ?? .zero) >= .milliseconds(30))
        #expect((waits?.maximum ?? .zero) >= .milliseconds(30))
        #expect(waits?.slowDeliveries == 2)
        _ = watch
    }

    @Test("an actor's handler waits while the actor is busy")
    func actorWaits() async {
        let bus = EventBus()
        let watch = bus.observeDeliveries { _ in }
        let collector = BusyCollector()
        let token = await collector.start(on: bus)
        let gate = DispatchSemaphore(value: 0)
        let holding = Task { await collector.hold(until: gate) }
        // Waited for without blocking a thread of the pool, which the holding actor may need.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while !collector.holding.load(ordering: .acquiring), clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
        let isHolding = collector.holding.load(ordering: .acquiring)
        #expect(isHolding)
        bus.publish(Tick(value: 1))
        try? await Task.sleep(for: .milliseconds(30))
        gate.signal()
        await holding.value
        while await collector.heard < 1, clock.now < deadline { try? await Task.sleep(for: .milliseconds(1)) }

        let waits = Self.row(bus, observer: nil)?.waits
        #expect(waits?.count == 1)
        #expect((waits?.maximum ?? .zero) >= .milliseconds(30))
        _ = (watch, token)
    }

    @Test("with nothing watching, no wait is measured")
    func unwatchedWaitsAreNotMeasured() {
        let bus = EventBus()
        let queue = DispatchQueue(label: "unwatched")
        let token = bus.subscribe(to: Tick.self, on: queue) { _ in }
        bus.publish(Tick(value: 1))
        queue.sync {}
        #expect(bus.snapshot().handlers.isEmpty)
        _ = token
    }

    @Test("waits are counted in buckets a quarter of a power of two wide; percentiles read the upper edge")
    func histogramBuckets() {
        // Each bucket's edges meet the next one's, and no bucket is wider than a quarter of its
        // lower edge.
        var lower = 0
        for bucket in 0..<(WaitHistogram.bucketCount - 1) {
            let upper = WaitHistogram.upperEdge(of: bucket)
            #expect(WaitHistogram.bucket(of: lower) == bucket)
            #expect(WaitHistogram.bucket(of: upper) == bucket)
            #expect(WaitHistogram.bucket(of: upper + 1) == bucket + 1)
            if lower >= 4 { #expect(upper - lower + 1 <= lower / 4) }
            lower = upper + 1
        }
        var histogram = WaitHistogram()
        histogram.recordZeros(97)
        for nanoseconds in [1_000_000, 2_000_000, 40_000_000] { histogram.record(nanoseconds, slow: false) }
        #expect(histogram.count == 100)
        #expect(histogram.percentile(0.5) == 0)
        #expect(histogram.percentile(0.98) >= 1_000_000)
        #expect(histogram.percentile(0.98) <= 1_250_000)
        #expect(histogram.percentile(0.99) >= 2_000_000)
        #expect(histogram.percentile(1) == 40_000_000)
        // Past the last bucket's edge, the maximum stands for the wait.
        var huge = WaitHistogram()
        huge.record(Int.max / 2, slow: true)
        #expect(huge.percentile(0.5) == Int.max / 2)
    }
}
