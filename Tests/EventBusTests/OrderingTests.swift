import EventBus
import TestSupport
import Testing

@Suite("Ordering and wildcards")
struct OrderingTests {
    @Test("handlers of one type run in subscription order, then wildcard observers")
    func subscriptionOrder() {
        let bus = EventBus()
        let screen = Screen()
        let calls = Journal<String>()
        let wildcard = bus.subscribeAll { _ in calls.append("wildcard") }
        let first = bus.subscribe(to: Tick.self) { _ in calls.append("first") }
        bus.subscribe(observer: screen) { (_: Tick) in calls.append("second") }
        let third = bus.subscribe(to: Tick.self) { _ in calls.append("third") }

        bus.publish(Tick(value: 1))

        #expect(calls.entries == ["first", "second", "third", "wildcard"])
        _ = (wildcard, first, third, screen)
    }

    @Test("wildcard observers see every event once, whatever its type")
    func wildcardSeesEverything() {
        let bus = EventBus()
        let screen = Screen()
        let seen = Journal<String>()
        bus.subscribeAll(observer: screen) { event in seen.append(String(describing: type(of: event))) }
        let typed = bus.subscribe(to: Tick.self) { _ in }

        bus.publish(Tick(value: 1))
        bus.publish(event: UserLoggedInEvent(userId: "1", userName: "Ada"))
        bus.publish(DataLoadedEvent(data: []))

        #expect(seen.entries == ["Tick", "UserLoggedInEvent", "DataLoadedEvent"])
        #expect(bus.snapshot().wildcardDeliveries == 3)
        typed.cancel()
        withExtendedLifetime(screen) {}
    }

    @Test("a delivery monitor learns the type name and how many subscribers heard each event")
    func deliveryRecords() {
        let bus = EventBus()
        let records = Journal<String>()
        let monitor = bus.observeDeliveries { records.append("\($0.eventTypeName):\($0.receivers)") }
        let first = bus.subscribe(to: Tick.self) { _ in }
        let second = bus.subscribe(to: Tick.self) { _ in }

        bus.publish(Tick(value: 1))
        bus.publish(DataLoadedEvent(data: []))

        #expect(records.entries == ["Tick:2", "DataLoadedEvent:0"])
        _ = (monitor, first, second)
    }

    @Test("a wildcard observer that dies stops seeing events and is reclaimed")
    func deadWildcardReclaimed() {
        let bus = EventBus()
        let seen = Journal<Int>()
        var screen: Screen? = Screen()
        bus.subscribeAll(observer: screen!) { _ in seen.append(1) }
        screen = nil
        bus.publish(Tick(value: 1))
        #expect(seen.count == 0)
        #expect(bus.snapshot().reclaimedWildcardObservers == 1)
    }
}
