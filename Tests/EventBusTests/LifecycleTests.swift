import EventBus
import TestSupport
import Testing

@Suite("Subscriber lifecycle")
struct LifecycleTests {
    @Test("a monitor sees subscribed, unsubscribed, cancelled and reclaimed")
    func everyKindReported() {
        let bus = EventBus()
        let changes = Journal<SubscriberLifecycleEvent>()
        let monitor = bus.observeLifecycle { changes.append($0) }

        let tidy = Screen("tidy")
        bus.subscribe(observer: tidy) { (_: UserLoggedInEvent) in }
        bus.unsubscribe(observer: tidy)
        let token = bus.subscribe(to: DataLoadedEvent.self) { _ in }
        token.cancel()
        var forgetful: Screen? = Screen("forgetful")
        bus.subscribe(observer: forgetful!) { (_: UserLoggedInEvent) in }
        forgetful = nil
        bus.publish(event: UserLoggedInEvent(userId: "1", userName: "Ada"))

        #expect(
            changes.entries.map(\.description) == [
                "subscribed to UserLoggedInEvent by Screen #1",
                "unsubscribed 1 UserLoggedInEvent subscription by Screen #1",
                "subscribed to DataLoadedEvent",
                "cancelled 1 DataLoadedEvent subscription",
                "subscribed to UserLoggedInEvent by Screen #2",
                "reclaimed 1 dead UserLoggedInEvent subscription of Screen #2 by a publish of UserLoggedInEvent",
            ])
        monitor.cancel()
    }

    @Test("the same observer subscribing twice to one type is reported, not silently doubled")
    func duplicateReported() {
        let bus = EventBus()
        let changes = Journal<SubscriberLifecycleEvent.Kind>()
        let monitor = bus.observeLifecycle { changes.append($0.kind) }
        let screen = Screen()
        let calls = Journal<Int>()
        bus.subscribe(observer: screen) { (event: Tick) in calls.append(event.value) }
        bus.subscribe(observer: screen) { (event: Tick) in calls.append(event.value) }

        bus.publish(Tick(value: 1))

        #expect(changes.entries == [.subscribed, .duplicateSubscription])
        #expect(bus.snapshot()[Tick.self]?.duplicateSubscriptions == 1)
        #expect(calls.entries == [1, 1])
        monitor.cancel()
    }

    @Test("reclaiming several dead observers reports each object, with all its subscriptions")
    func reclaimPerObject() {
        let bus = EventBus()
        let changes = Journal<SubscriberLifecycleEvent>()
        var screens = (0..<3).map { Screen("s\($0)") }
        for screen in screens { bus.subscribe(observer: screen) { (_: UserLoggedInEvent) in } }
        bus.subscribe(observer: screens[1]) { (_: DataLoadedEvent) in }
        let monitor = bus.observeLifecycle { changes.append($0) }
        screens.removeAll()
        #expect(bus.reclaimDeadSubscriptions() == 4)
        let reclaimed = changes.entries.map { "\($0.observerID!) \($0.eventTypeName) \($0.count)" }
        #expect(
            Set(reclaimed) == [
                "1 UserLoggedInEvent 1", "2 UserLoggedInEvent 1", "2 DataLoadedEvent 1",
                "3 UserLoggedInEvent 1",
            ])
        #expect(changes.entries.allSatisfy { $0.kind == .reclaimed && $0.reclaimedBy == .request })
        #expect(changes.entries.allSatisfy { $0.observerTypeName == "Screen" })
        monitor.cancel()
    }

    @Test("a cancelled lifecycle monitor hears nothing more")
    func monitorCancel() {
        let bus = EventBus()
        let changes = Journal<SubscriberLifecycleEvent>()
        let monitor = bus.observeLifecycle { changes.append($0) }
        monitor.cancel()
        let token = bus.subscribe(to: Tick.self) { _ in }
        #expect(changes.count == 0)
        token.cancel()
    }
}
