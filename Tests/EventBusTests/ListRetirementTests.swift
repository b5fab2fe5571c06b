import EventBus
import Foundation
import Synchronization
import TestSupport
import Testing

/// Publishes read the subscriber lists without a lock, through snapshots that a change retires;
/// these tests check that what a change removes is freed as soon as no publish reads it, and
/// not before.
@Suite("Releasing removed subscriptions")
struct ListRetirementTests {
    @Test func cancellingReleasesTheHandlerAndWhatItCaptured() {
        let bus = EventBus()
        let released = ReleaseCount()
        do {
            let captured = DeinitCounter(released)
            let token = bus.subscribe(to: Tick.self) { _ in withExtendedLifetime(captured) {} }
            // Publishes build the snapshot that the cancel then retires.
            for value in 0..<3 { bus.publish(Tick(value: value)) }
            token.cancel()
        }
        #expect(released.value == 1)
    }

    @Test func unsubscribingAndReclaimingReleaseHandlersToo() {
        let bus = EventBus()
        let released = ReleaseCount()
        let kept = Screen("kept")
        do {
            let tidy = Screen("tidy")
            let captured = (DeinitCounter(released), DeinitCounter(released))
            bus.subscribe(observer: tidy) { (_: Tick) in withExtendedLifetime(captured.0) {} }
            bus.subscribe(observer: Screen("gone")) { (_: Tick) in withExtendedLifetime(captured.1) {} }
            bus.subscribe(observer: kept) { (_: Tick) in }
            // This publish finds the observer "gone" deallocated and reclaims its entry.
            bus.publish(Tick(value: 1))
            bus.unsubscribe(observer: tidy)
        }
        #expect(released.value == 2)
        #expect(bus.snapshot()[Tick.self]?.reclaimedSubscribers == 1)
        #expect(bus.subscriberCount(for: Tick.self) == 1)
    }

    @Test(
        "a subscription cancelled while another thread delivers from a list holding it stays valid until then"
    )
    func removedEntryOutlivesTheDeliveryReadingIt() {
        let bus = EventBus()
        let released = ReleaseCount()
        let calls = Journal<String>()
        let firstRunning = DispatchSemaphore(value: 0)
        let finishFirst = DispatchSemaphore(value: 0)

        // Given a publish on another thread, stopped inside the first of two handlers
        let first = bus.subscribe(to: Tick.self) { _ in
            calls.append("first")
            firstRunning.signal()
            finishFirst.wait()
        }
        var second: Subscription? = {
            let captured = DeinitCounter(released)
            return bus.subscribe(to: Tick.self) { _ in
                withExtendedLifetime(captured) {}
                calls.append("second")
            }
        }()
        let publisher = Thread { bus.publish(Tick(value: 1)) }
        publisher.start()
        firstRunning.wait()

        // When the second is cancelled and its token released meanwhile
        second?.cancel()
        second = nil

        // Then its handler is kept for the delivery still reading the list, which skips it,
        let keptDuringDelivery = released.value == 0
        finishFirst.signal()
        #expect(eventually { bus.snapshot()[Tick.self]?.delivered == 1 })
        #expect(keptDuringDelivery)
        #expect(calls.entries == ["first"])

        // and released by a later operation on the bus (repeated until the publishing thread's
        // withdrawal of its announcement is visible here)
        #expect(
            eventually {
                bus.subscribe(to: Tick.self) { _ in }.cancel()
                return released.value == 1
            })
        withExtendedLifetime(first) {}
    }

    @Test("lists change on one thread while others publish: every handler runs on a live subscription")
    func churnWhilePublishing() {
        let bus = EventBus()
        let stop = Atomic<Bool>(false)
        let calls = Atomic<Int>(0)
        let released = ReleaseCount()
        let publishers = (0..<2).map { _ in
            Thread {
                var value = 0
                while !stop.load(ordering: .relaxed) {
                    value += 1
                    bus.publish(Tick(value: value))
                    // Short pauses, so that two publishers do not take both cores from the
                    // other suites running meanwhile, and the lists still change under them.
                    if value % 100 == 0 { usleep(50) }
                }
            }
        }
        for publisher in publishers { publisher.start() }

        // Each subscription's handler checks that what it captured is still alive.
        let rounds = 3_000
        for round in 0..<rounds {
            let captured = DeinitCounter(released)
            // A handler that ran after its captures were freed would read freed memory, which
            // AddressSanitizer reports.
            let token = bus.subscribe(to: Tick.self) { _ in
                calls.wrappingAdd(captured.weight, ordering: .relaxed)
            }
            let watcher = bus.subscribeAll { _ in withExtendedLifetime(captured) {} }
            if round % 3 == 0 { usleep(10) }
            token.cancel()
            watcher.cancel()
        }
        stop.store(true, ordering: .relaxed)
        while publishers.contains(where: { !$0.isFinished }) { usleep(1_000) }

        // Then once the publishers stop, a last operation releases every captured object
        let last = bus.subscribe(to: Tick.self) { _ in }
        #expect(released.value == rounds)
        let snapshot = bus.snapshot()
        #expect(snapshot[Tick.self]?.liveSubscribers == 1)
        #expect(snapshot.wildcardObservers == 0)
        #expect(calls.load(ordering: .relaxed) > 0)
        withExtendedLifetime(last) {}
    }
}

/// How many ``DeinitCounter``s have been deinitialized.
private final class ReleaseCount: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .relaxed) }

    func add() {
        count.wrappingAdd(1, ordering: .relaxed)
    }
}

/// Adds to its ``ReleaseCount`` when deinitialized.
private final class DeinitCounter: Sendable {
    let counter: ReleaseCount
    let weight = 1

    init(_ counter: ReleaseCount) {
        self.counter = counter
    }

    deinit {
        counter.add()
    }
}
