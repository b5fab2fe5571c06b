import EventBus
import TestSupport
import Testing

@Suite("Weak observers")
struct WeakObserverTests {
    @Test("a deallocated observer's handler is never called again")
    func deadObserverNotCalled() {
        let bus = EventBus()
        let calls = Journal<Int>()
        var screen: Screen? = Screen()
        bus.subscribe(observer: screen!) { (event: Tick) in calls.append(event.value) }
        bus.publish(Tick(value: 1))

        screen = nil
        bus.publish(Tick(value: 2))

        #expect(calls.entries == [1])
    }

    @Test("dead subscriptions are reclaimed without a publish of their own type")
    func reclaimedByOtherOperations() {
        // Given many observers of a type that is never published, all deallocated.
        let bus = EventBus()
        var screens: [Screen] = (0..<200).map { Screen("screen \($0)") }
        for screen in screens {
            bus.subscribe(observer: screen) { (_: UserLoggedInEvent) in }
        }
        #expect(bus.snapshot()[UserLoggedInEvent.self]?.liveSubscribers == 200)
        screens.removeAll()
        #expect(bus.snapshot()[UserLoggedInEvent.self]?.deadSubscribers == 200)

        // When only other types are published.
        for value in 0..<1_000 { bus.publish(Tick(value: value)) }

        // Then the dead entries are gone and counted as reclaimed.
        let stats = bus.snapshot()[UserLoggedInEvent.self]
        #expect(stats?.deadSubscribers == 0)
        #expect(stats?.reclaimedSubscribers == 200)
    }

    @Test("a publish of the type reclaims its dead subscriptions at once")
    func reclaimedOnPublish() {
        let bus = EventBus()
        var screen: Screen? = Screen()
        bus.subscribe(observer: screen!) { (_: Tick) in }
        screen = nil
        bus.publish(Tick(value: 1))
        let stats = bus.snapshot()[Tick.self]
        #expect(stats?.deadSubscribers == 0)
        #expect(stats?.reclaimedSubscribers == 1)
        #expect(stats?.unheard == 1)
    }

    @Test("many short-lived observers leave the bus small")
    func churnStaysBounded() {
        let bus = EventBus()
        for _ in 0..<20_000 {
            let screen = Screen()
            bus.subscribe(observer: screen) { (_: DataLoadedEvent) in }
        }
        let stats = bus.snapshot()[DataLoadedEvent.self]
        #expect((stats?.deadSubscribers ?? .max) < 100)
        #expect(stats?.reclaimedSubscribers ?? 0 > 19_900)
    }

    @Test("unsubscribe(observer:) in deinit removes the subscriptions at once")
    func unsubscribeFromDeinit() {
        let bus = EventBus()
        var screen: TidyScreen? = TidyScreen(bus: bus)
        bus.subscribe(observer: screen!) { (_: UserLoggedInEvent) in }
        bus.subscribe(observer: screen!) { (_: DataLoadedEvent) in }

        screen = nil

        let snapshot = bus.snapshot()
        #expect(snapshot[UserLoggedInEvent.self]?.liveSubscribers == 0)
        #expect(snapshot[UserLoggedInEvent.self]?.deadSubscribers == 0)
        #expect(snapshot[UserLoggedInEvent.self]?.unsubscribedSubscribers == 1)
        #expect(snapshot[DataLoadedEvent.self]?.unsubscribedSubscribers == 1)
        #expect(snapshot.totalReclaimed == 0)
    }

    @Test("the observer stays alive while its handler runs")
    func observerKeptAliveDuringCall() {
        let bus = EventBus()
        final class Holder: @unchecked Sendable { var screen: Screen? }
        let holder = Holder()
        holder.screen = Screen()
        let sawObserver = Journal<Bool>()
        weak let weakScreen = holder.screen
        bus.subscribe(observer: holder.screen!) { (_: Tick) in
            holder.screen = nil  // drop the last strong reference mid-call
            sawObserver.append(weakScreen != nil)
        }
        bus.publish(Tick(value: 1))
        #expect(sawObserver.entries == [true])
        #expect(weakScreen == nil)
    }
}
