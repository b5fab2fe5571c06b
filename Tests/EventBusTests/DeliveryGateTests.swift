import EventBus
import Synchronization
import TestSupport
import Testing

@Suite("Delivery gates")
struct DeliveryGateTests {
    @Test("a closed gate turns deliveries away before they are built, and counts each")
    func closedGateTurnsAway() {
        let bus = EventBus()
        let gate = DeliveryGate()
        let seen = Journal<Int>()
        let monitor = bus.observeDeliveries(through: gate) { record in
            if let tick = record.event as? Tick { seen.append(tick.value) }
        }
        let typed = Journal<Int>()
        let subscriber = bus.subscribe(to: Tick.self) { typed.append($0.value) }

        bus.publish(Tick(value: 1))
        gate.isClosed.store(true, ordering: .relaxed)
        bus.publish(Tick(value: 2))
        bus.publish(Tick(value: 3))
        gate.isClosed.store(false, ordering: .relaxed)
        bus.publish(Tick(value: 4))

        #expect(seen.entries == [1, 4])
        #expect(gate.refused.load(ordering: .relaxed) == 2)
        // Subscribers of the type are not touched, and the bus counts only what it delivered.
        #expect(typed.entries == [1, 2, 3, 4])
        let snapshot = bus.snapshot()
        #expect(snapshot[Tick.self]?.published == 4)
        #expect(snapshot[Tick.self]?.delivered == 4)
        #expect(snapshot.wildcardDeliveries == 2)
        _ = (monitor, subscriber)
    }

    @Test("beside an open observer, a closed gate's handler gets the event and the bus counts no refusal")
    func closedGateBesideAnOpenObserver() {
        let bus = EventBus()
        let gate = DeliveryGate()
        gate.isClosed.store(true, ordering: .relaxed)
        let gated = Journal<Int>()
        let monitor = bus.observeDeliveries(through: gate) { record in
            if let tick = record.event as? Tick { gated.append(tick.value) }
        }
        let everything = Journal<Int>()
        let wildcard = bus.subscribeAll { event in
            if let tick = event as? Tick { everything.append(tick.value) }
        }

        bus.publish(Tick(value: 1))

        // The record is built for the open observer anyway; the gated handler decides (an
        // inbox drops and counts it there), so that each event is counted once.
        #expect(everything.entries == [1])
        #expect(gated.entries == [1])
        #expect(gate.refused.load(ordering: .relaxed) == 0)
        #expect(bus.snapshot().wildcardDeliveries == 2)
        _ = (monitor, wildcard)
    }

    @Test("a gated monitor's calls are never timed, alone or beside an app's own delivery observer, which is")
    func gatedMonitorsAreNotTimed() {
        final class Watcher: Sendable {}
        let bus = EventBus()
        let gate = DeliveryGate()
        let monitor = bus.observeDeliveries(through: gate) { _ in }
        // A lifecycle observer makes the bus time handler calls.
        let lifecycle = bus.observeLifecycle { _ in }
        let subscriber = bus.subscribe(to: Tick.self) { _ in }
        func wildcardRows() -> [HandlerStatistics] {
            bus.snapshot().handlers.filter { $0.eventTypeName == SubscriberLifecycleEvent.wildcardTypeName }
        }

        bus.publish(Tick(value: 1))
        #expect(wildcardRows().allSatisfy { $0.calls == 0 }, "\(wildcardRows())")
        #expect(bus.snapshot().handlers.first { $0.eventTypeName == "Tick" }?.calls == 1)

        let watcher = Watcher()
        let own = bus.observeDeliveries(observer: watcher) { _ in }
        bus.publish(Tick(value: 2))
        bus.publish(Tick(value: 3))
        let rows = wildcardRows()
        #expect(rows.first { $0.observerTypeName == "Watcher" }?.calls == 2, "\(rows)")
        #expect(rows.filter { $0.observerTypeName == nil }.allSatisfy { $0.calls == 0 }, "\(rows)")
        #expect(bus.snapshot().wildcardDeliveries == 5)
        _ = (monitor, lifecycle, subscriber, own)
    }

    @Test("two closed gates each count the event they turned away")
    func everyClosedGateCounts() {
        let bus = EventBus()
        let gates = [DeliveryGate(), DeliveryGate()]
        let monitors = gates.map { gate in
            gate.isClosed.store(true, ordering: .relaxed)
            return bus.observeDeliveries(through: gate) { _ in Issue.record("delivered through a closed gate")
            }
        }

        for value in 0..<5 { bus.publish(Tick(value: value)) }

        #expect(gates.map { $0.refused.load(ordering: .relaxed) } == [5, 5])
        #expect(bus.snapshot().wildcardDeliveries == 0)
        withExtendedLifetime(monitors) {}
    }
}
