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
                "subscribed to UserLoggedInEvent by Screen",
                "unsubscribed 1 UserLoggedInEvent subscription by Screen",
                "subscribed to DataLoadedEvent",
                "cancelled 1 DataLoadedEvent subscription",
                "subscribed to UserLoggedInEvent by Screen",
                "reclaimed 1 dead UserLoggedInEvent subscription",
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

    @Test("reclaiming several dead subscriptions reports them as one change")
    func batchedReclaim() {
        let bus = EventBus()
        let changes = Journal<String>()
        var screens = (0..<3).map { Screen("s\($0)") }
        for screen in screens { bus.subscribe(observer: screen) { (_: UserLoggedInEvent) in } }
        let monitor = bus.observeLifecycle { changes.append($0.description) }
        screens.removeAll()
        #expect(bus.reclaimDeadSubscriptions() == 3)
        #expect(changes.entries == ["reclaimed 3 dead UserLoggedInEvent subscriptions"])
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
