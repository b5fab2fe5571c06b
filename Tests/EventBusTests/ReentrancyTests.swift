import EventBus
import TestSupport
import Testing

@Suite("Reentrancy")
struct ReentrancyTests {
    @Test("an event published in a handler is delivered after the current event, in order")
    func nestedPublishIsQueued() {
        // Given two subscribers, the first of which publishes a follow-up event.
        let bus = EventBus()
        let calls = Journal<String>()
        let first = bus.subscribe(to: Tick.self) { event in
            calls.append("first \(event.value)")
            if event.value == 1 { bus.publish(Tick(value: 2)) }
        }
        let second = bus.subscribe(to: Tick.self) { event in calls.append("second \(event.value)") }

        // When the first event is published.
        bus.publish(Tick(value: 1))

        // Then every subscriber sees 1 before 2, and publish returned after both.
        #expect(calls.entries == ["first 1", "second 1", "first 2", "second 2"])
        _ = (first, second)
    }

    @Test("a handler may publish another type; it is delivered after the current event")
    func nestedPublishOfAnotherType() {
        let bus = EventBus()
        let calls = Journal<String>()
        let ticks = bus.subscribe(to: Tick.self) { _ in
            bus.publish(DataLoadedEvent(data: ["nested"]))
            calls.append("tick")
        }
        let loads = bus.subscribe(to: DataLoadedEvent.self) { _ in calls.append("data") }
        bus.publish(Tick(value: 1))
        #expect(calls.entries == ["tick", "data"])
        _ = (ticks, loads)
    }

    @Test("a subscription made during a delivery does not receive the event being delivered")
    func subscribeDuringDelivery() {
        let bus = EventBus()
        let late = Journal<Int>()
        let tokens = LockedValue<[Subscription]>([])
        let first = bus.subscribe(to: Tick.self) { _ in
            let token = bus.subscribe(to: Tick.self) { late.append($0.value) }
            tokens.withLock { $0.append(token) }
        }
        bus.publish(Tick(value: 1))
        #expect(late.entries.isEmpty)
        first.cancel()
        bus.publish(Tick(value: 2))
        #expect(late.entries == [2])
    }

    @Test("a handler may cancel itself")
    func cancelSelf() {
        let bus = EventBus()
        let values = Journal<Int>()
        let holder = LockedValue<Subscription?>(nil)
        let token = bus.subscribe(to: Tick.self) { event in
            values.append(event.value)
            holder.current?.cancel()
        }
        holder.withLock { $0 = token }
        bus.publish(Tick(value: 1))
        bus.publish(Tick(value: 2))
        #expect(values.entries == [1])
        holder.withLock { $0 = nil }  // the handler holds its own token: break the cycle
    }

    @Test("a handler may cancel another subscriber not yet called for this event")
    func cancelOtherNotYetCalled() {
        let bus = EventBus()
        let calls = Journal<String>()
        let victim = LockedValue<Subscription?>(nil)
        let first = bus.subscribe(to: Tick.self) { _ in
            calls.append("first")
            victim.current?.cancel()
        }
        let second = bus.subscribe(to: Tick.self) { _ in calls.append("second") }
        victim.withLock { $0 = second }
        bus.publish(Tick(value: 1))
        #expect(calls.entries == ["first"])
        _ = first
    }

    @Test("a handler may unsubscribe an observer")
    func unsubscribeInHandler() {
        let bus = EventBus()
        let screen = Screen()
        let calls = Journal<String>()
        let first = bus.subscribe(to: Tick.self) { _ in
            calls.append("first")
            bus.unsubscribe(observer: screen)
        }
        bus.subscribe(observer: screen) { (_: Tick) in calls.append("screen") }
        bus.publish(Tick(value: 1))
        bus.publish(Tick(value: 2))
        #expect(calls.entries == ["first", "first"])
        _ = first
    }

    @Test("a handler may release the last reference to its own observer")
    func releaseOwnObserver() {
        let bus = EventBus()
        final class Holder: @unchecked Sendable { var screen: TidyScreen? }
        let holder = Holder()
        holder.screen = TidyScreen(bus: bus)
        let calls = Journal<Int>()
        bus.subscribe(observer: holder.screen!) { (event: Tick) in
            calls.append(event.value)
            holder.screen = nil
        }
        bus.publish(Tick(value: 1))
        bus.publish(Tick(value: 2))
        #expect(calls.entries == [1])
        #expect(bus.snapshot()[Tick.self]?.unsubscribedSubscribers == 1)
    }

    @Test("a publish storm from a handler terminates and keeps order")
    func chainedPublishes() {
        let bus = EventBus()
        let values = Journal<Int>()
        let token = bus.subscribe(to: Tick.self) { event in
            values.append(event.value)
            if event.value < 1_000 { bus.publish(Tick(value: event.value + 1)) }
        }
        bus.publish(Tick(value: 0))
        #expect(values.entries == Array(0...1_000))
        token.cancel()
    }
}
