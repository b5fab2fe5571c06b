import EventBus
import TestSupport
import Testing

@Suite("The article's API")
struct ArticleAPITests {
    @Test("subscribe(observer:handler:) and publish(event:) deliver the concrete type")
    func deliversConcreteType() {
        let bus = EventBus()
        let screen = Screen()
        let names = Journal<String>()
        bus.subscribe(observer: screen) { (event: UserLoggedInEvent) in names.append(event.userName) }

        bus.publish(event: UserLoggedInEvent(userId: "1", userName: "Ada"))
        bus.publish(DataLoadedEvent(data: ["ignored by this subscriber"]))

        #expect(names.entries == ["Ada"])
        withExtendedLifetime(screen) {}
    }

    @Test("unsubscribe(observer:) removes every subscription of that observer")
    func unsubscribeRemovesAll() {
        let bus = EventBus()
        let screen = Screen()
        let calls = Journal<String>()
        bus.subscribe(observer: screen) { (_: UserLoggedInEvent) in calls.append("login") }
        bus.subscribe(observer: screen) { (_: DataLoadedEvent) in calls.append("data") }
        bus.subscribeAll(observer: screen) { _ in calls.append("any") }

        bus.unsubscribe(observer: screen)
        bus.publish(event: UserLoggedInEvent(userId: "1", userName: "Ada"))
        bus.publish(event: DataLoadedEvent(data: []))

        #expect(calls.entries.isEmpty)
        #expect(bus.subscriberCount(for: UserLoggedInEvent.self) == 0)
        #expect(bus.snapshot().wildcardObservers == 0)
        withExtendedLifetime(screen) {}
    }

    @Test("buses are independent, and EventBus.shared is one bus")
    func independentBuses() {
        let first = EventBus()
        let second = EventBus()
        let token = first.subscribe(to: Tick.self) { _ in }
        #expect(first.subscriberCount(for: Tick.self) == 1)
        #expect(second.subscriberCount(for: Tick.self) == 0)
        #expect(EventBus.shared === EventBus.shared)
        token.cancel()
    }

    @Test("an existential event is delivered to subscribers of its dynamic type")
    func existentialPublish() {
        let bus = EventBus()
        let values = Journal<Int>()
        let token = bus.subscribe(to: Tick.self) { values.append($0.value) }
        let event: any Event = Tick(value: 7)
        bus.publish(event)
        #expect(values.entries == [7])
        token.cancel()
    }
}
