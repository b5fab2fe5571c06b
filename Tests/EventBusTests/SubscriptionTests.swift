import EventBus
import TestSupport
import Testing

@Suite("Subscription tokens")
struct SubscriptionTests {
    @Test("cancel() stops delivery and is idempotent")
    func cancelStops() {
        let bus = EventBus()
        let values = Journal<Int>()
        let token = bus.subscribe(to: Tick.self) { values.append($0.value) }
        bus.publish(Tick(value: 1))
        #expect(token.isActive)
        token.cancel()
        token.cancel()
        bus.publish(Tick(value: 2))
        #expect(values.entries == [1])
        #expect(!token.isActive)
        #expect(bus.snapshot()[Tick.self]?.cancelledSubscribers == 1)
    }

    @Test("releasing a token cancels its subscription")
    func releaseCancels() {
        let bus = EventBus()
        let values = Journal<Int>()
        var token: Subscription? = bus.subscribe(to: Tick.self) { values.append($0.value) }
        #expect(token != nil)
        #expect(bus.subscriberCount(for: Tick.self) == 1)
        token = nil
        bus.publish(Tick(value: 1))
        #expect(values.entries.isEmpty)
        #expect(bus.subscriberCount(for: Tick.self) == 0)
    }

    @Test("an observer subscription lives as long as its observer, not its token")
    func observerTokenReleaseKeepsSubscription() {
        let bus = EventBus()
        let screen = Screen()
        let values = Journal<Int>()
        do {
            _ = bus.subscribe(observer: screen) { (event: Tick) in values.append(event.value) }
        }
        bus.publish(Tick(value: 1))
        #expect(values.entries == [1])
        withExtendedLifetime(screen) {}
    }

    @Test("an observer subscription's token can end it early")
    func observerTokenCancel() {
        let bus = EventBus()
        let screen = Screen()
        let values = Journal<Int>()
        let token = bus.subscribe(observer: screen) { (event: Tick) in values.append(event.value) }
        token.cancel()
        bus.publish(Tick(value: 1))
        #expect(values.entries.isEmpty)
        withExtendedLifetime(screen) {}
    }

    @Test("tokens stored in a set live and die with the set")
    func storeInSet() {
        let bus = EventBus()
        var tokens: Set<Subscription> = []
        bus.subscribe(to: Tick.self) { _ in }.store(in: &tokens)
        bus.subscribe(to: DataLoadedEvent.self) { _ in }.store(in: &tokens)
        #expect(tokens.count == 2)
        #expect(bus.snapshot().totalLiveSubscribers == 2)
        tokens.removeAll()
        #expect(bus.snapshot().totalLiveSubscribers == 0)
    }

    @Test("a token outliving its bus cancels without effect")
    func tokenOutlivesBus() {
        var bus: EventBus? = EventBus()
        let token = bus!.subscribe(to: Tick.self) { _ in }
        bus = nil
        #expect(!token.isActive)
        token.cancel()
    }
}
