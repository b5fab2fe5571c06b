import Dispatch
import EventBus
import Foundation
import Synchronization
import TestSupport
import Testing

/// Waits until `condition` holds or 30 s pass, suspending between checks: a blocking wait would
/// hold one of the few threads that also run other tests' main-actor hops, which a flood slows.
private func suspendUntil(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// A flood of events from a thread of its own, and what it and the handlers counted.
private final class FloodState: Sendable {
    let probeRan = Atomic<Bool>(false)
    let publisherDone = Atomic<Bool>(false)
    let handled = Atomic<Int>(0)
    let published = Atomic<Int>(0)

    /// Deliveries waiting at most, while the publisher runs: half a second of the handler's work.
    static let backlog = 10_000

    /// Publishes on a new thread, keeping up to ``backlog`` deliveries waiting, until the probe
    /// ran or 60 s passed; returns once the handlers are behind.
    ///
    /// The publisher keeps deliveries waiting for as long as the probe has not run, however late
    /// the test's own task gets a thread in a busy run, so the probe always meets a backlog, and
    /// the backlog bounds the work left once it has.
    func startFlooding(_ bus: EventBus) async {
        let publisher = Thread {
            let deadline = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
            while !self.probeRan.load(ordering: .relaxed), DispatchTime.now().uptimeNanoseconds < deadline {
                let waiting = self.published.load(ordering: .relaxed) - self.handled.load(ordering: .relaxed)
                if waiting >= Self.backlog {
                    Thread.sleep(forTimeInterval: 0.000_2)
                    continue
                }
                bus.publish(Tick(value: 0))
                self.published.wrappingAdd(1, ordering: .relaxed)
            }
            self.publisherDone.store(true, ordering: .releasing)
        }
        publisher.start()
        #expect(await suspendUntil { handled.load(ordering: .relaxed) > 100 })
    }

    /// Waits for the publisher to stop and for every delivery it made to have run.
    func expectEveryDeliveryToRun() async {
        #expect(await suspendUntil { publisherDone.load(ordering: .acquiring) })
        let total = published.load(ordering: .relaxed)
        #expect(await suspendUntil { handled.load(ordering: .relaxed) == total })
    }
}

/// A main-actor screen whose handler takes 50 µs, far longer than a publish.
@MainActor
private final class FloodedScreen {
    func observe(_ bus: EventBus, counting state: FloodState) {
        bus.subscribe(observer: self) { (_: Tick) in
            let start = DispatchTime.now().uptimeNanoseconds
            while DispatchTime.now().uptimeNanoseconds - start < 50_000 {}
            state.handled.wrappingAdd(1, ordering: .relaxed)
        }
    }
}

/// An event published on the main actor in the middle of a flood.
private struct FloodMarker: Event {}

extension FloodedScreen {
    /// Notes, in the order the handlers run, a main-actor handler of ``FloodMarker`` and a
    /// main-actor wildcard observer seeing one.
    func observeMarkers(_ bus: EventBus, into order: Journal<String>) -> [Subscription] {
        [
            bus.subscribe(to: FloodMarker.self) { _ in order.append("typed") },
            bus.subscribeAll { event in if event is FloodMarker { order.append("wildcard") } },
        ]
    }
}

@Suite("The main actor under a flood", .serialized)
struct MainActorFairnessTests {
    @Test(
        "a publisher faster than a main-actor handler leaves the main actor free for other work",
        .timeLimit(.minutes(5)))
    func floodLeavesTheMainActorOtherWork() async {
        let bus = EventBus()
        let state = FloodState()
        let screen = FloodedScreen()
        await screen.observe(bus, counting: state)

        // Given a thread publishing faster than the main actor handles
        await state.startFlooding(bus)

        // When other work asks for the main actor while the deliveries pile up
        let handledBefore = state.handled.load(ordering: .relaxed)
        let (handled, published) = await MainActor.run {
            state.probeRan.store(true, ordering: .relaxed)
            return (state.handled.load(ordering: .relaxed), state.published.load(ordering: .relaxed))
        }

        // Then it ran within a turn or two (4 ms of deliveries each, 80 of these), with deliveries
        // still waiting, not once the backlog (10,000) had run
        #expect(handled < published)
        #expect(handled - handledBefore < 1_000, "\(handled - handledBefore) deliveries ran before it")
        // And every delivery still runs, in the end
        await state.expectEveryDeliveryToRun()
        withExtendedLifetime(screen) {}
    }

    @Test(
        "a main-actor publish in the middle of a flood keeps its order: typed handlers, then wildcard observers",
        .timeLimit(.minutes(5)))
    func publishDuringAFloodKeepsItsOrder() async {
        let bus = EventBus()
        let state = FloodState()
        let screen = FloodedScreen()
        await screen.observe(bus, counting: state)
        let order = Journal<String>()
        let subscriptions = await screen.observeMarkers(bus, into: order)
        await state.startFlooding(bus)

        // Whether its deliveries run in place or queue behind the flood, they run in order: both
        // in the publish, or both after it, never the wildcard's alone.
        let atReturn = await MainActor.run {
            bus.publish(FloodMarker())
            state.probeRan.store(true, ordering: .relaxed)
            return order.entries
        }
        #expect(atReturn.isEmpty || atReturn == ["typed", "wildcard"])
        #expect(await suspendUntil { order.entries.count == 2 })
        #expect(order.entries == ["typed", "wildcard"])
        await state.expectEveryDeliveryToRun()
        withExtendedLifetime((screen, subscriptions)) {}
    }
}
