import EventBus
import EventBusTesting
import TestSupport
import Testing

@Suite("Snapshots and the recorder")
struct SnapshotTests {
    @Test("a snapshot counts published, delivered and unheard events per type")
    func counts() {
        let bus = EventBus()
        let first = bus.subscribe(to: Tick.self) { _ in }
        let second = bus.subscribe(to: Tick.self) { _ in }
        bus.publish(Tick(value: 1))
        bus.publish(Tick(value: 2))
        bus.publish(DataLoadedEvent(data: []))

        let snapshot = bus.snapshot()
        let ticks = try! #require(snapshot[Tick.self])
        #expect(ticks.typeName == "Tick")
        #expect(ticks.qualifiedTypeName.hasSuffix(".Tick"))
        #expect(ticks.published == 2)
        #expect(ticks.delivered == 4)
        #expect(ticks.unheard == 0)
        #expect(ticks.liveSubscribers == 2)
        #expect(snapshot["DataLoadedEvent"]?.unheard == 1)
        #expect(snapshot.eventTypes.map(\.typeName) == ["DataLoadedEvent", "Tick"])
        #expect(snapshot.totalPublished == 3)
        _ = (first, second)
    }

    @Test("a wildcard monitor does not make an event heard")
    func wildcardDoesNotCountAsListener() {
        let bus = EventBus()
        let monitor = bus.subscribeAll { _ in }
        bus.publish(Tick(value: 1))
        #expect(bus.snapshot()[Tick.self]?.unheard == 1)
        #expect(bus.snapshot().wildcardObservers == 1)
        monitor.cancel()
    }

    @Test("subscriberCount(for:) counts live subscriptions only")
    func subscriberCount() {
        let bus = EventBus()
        var screen: Screen? = Screen()
        bus.subscribe(observer: screen!) { (_: Tick) in }
        let token = bus.subscribe(to: Tick.self) { _ in }
        #expect(bus.subscriberCount(for: Tick.self) == 2)
        screen = nil
        #expect(bus.subscriberCount(for: Tick.self) == 1)
        #expect(bus.subscriberCount(for: DataLoadedEvent.self) == 0)
        token.cancel()
    }

    @Test("the recorder remembers what code under test published")
    func recorder() {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        bus.publish(event: UserLoggedInEvent(userId: "1", userName: "Ada"))
        bus.publish(Tick(value: 5))
        let token = bus.subscribe(to: Tick.self) { _ in }

        #expect(
            recorder.events(of: UserLoggedInEvent.self) == [UserLoggedInEvent(userId: "1", userName: "Ada")])
        #expect(recorder.count(of: Tick.self) == 1)
        #expect(recorder.events.count == 2)
        #expect(recorder.lifecycleEvents.map(\.kind) == [.subscribed])

        recorder.stop()
        bus.publish(Tick(value: 6))
        #expect(recorder.count(of: Tick.self) == 1)
        token.cancel()
    }

    @Test("publishes that alternate between types each reach their own type and counters")
    func alternatingTypes() {
        // Given subscribers of two types (the bus remembers the last published type's list).
        let bus = EventBus()
        let ticks = Journal<Int>()
        let logins = Journal<String>()
        let tickToken = bus.subscribe(to: Tick.self) { ticks.append($0.value) }
        let loginToken = bus.subscribe(to: UserLoggedInEvent.self) { logins.append($0.userId) }

        // When the types alternate, with a first publish of a third type in between.
        for value in 0..<5 {
            bus.publish(Tick(value: value))
            bus.publish(UserLoggedInEvent(userId: "\(value)", userName: "user"))
            if value == 2 { bus.publish(DataLoadedEvent(data: [])) }
        }

        // Then each handler saw only its own type, and every type's counters are exact.
        #expect(ticks.entries == [0, 1, 2, 3, 4])
        #expect(logins.entries == ["0", "1", "2", "3", "4"])
        let snapshot = bus.snapshot()
        #expect(snapshot[Tick.self]?.published == 5)
        #expect(snapshot[Tick.self]?.delivered == 5)
        #expect(snapshot[UserLoggedInEvent.self]?.published == 5)
        #expect(snapshot[UserLoggedInEvent.self]?.delivered == 5)
        #expect(snapshot[DataLoadedEvent.self]?.published == 1)
        #expect(snapshot[DataLoadedEvent.self]?.unheard == 1)
        tickToken.cancel()
        loginToken.cancel()
    }
}

@Suite("Readable snapshots")
struct SnapshotDescriptionTests {
    @Test("a snapshot prints as a table, a type's statistics as one line")
    func descriptions() {
        let bus = EventBus(name: "readable")
        let screen = Screen()
        bus.subscribe(observer: screen) { @Sendable (_: Tick) in }
        bus.publish(Tick(value: 1))
        bus.publish(DataLoadedEvent(data: []))

        let snapshot = bus.snapshot()

        #expect(
            snapshot.description == """
                bus readable
                TYPE             LIVE  DEAD  RECLAIMED  PUBLISHED  DELIVERED  UNHEARD
                DataLoadedEvent     0     0          0          1          0        1
                Tick                1     0          0          1          1        0
                * (wildcard)        0     0          0                     0
                """)
        #expect(
            snapshot[Tick.self]?.description
                == "Tick: live 1, dead 0, reclaimed 0, published 1, delivered 1, unheard 0")
        withExtendedLifetime(screen) {}
    }
}

@Suite("Snapshot totals")
struct SnapshotTotalsTests {
    @Test("the totals count wildcard observers alike: live, dead and reclaimed")
    func totalsAgree() {
        let bus = EventBus()
        var typed: Screen? = Screen()
        var watcher: Screen? = Screen()
        bus.subscribe(observer: typed!) { @Sendable (_: Tick) in }
        bus.subscribeAll(observer: watcher!) { @Sendable _ in }
        let monitor = bus.observeDeliveries(observer: watcher!) { _ in }

        #expect(bus.snapshot().totalLiveSubscribers == 3)

        typed = nil
        watcher = nil
        let dead = bus.snapshot()
        #expect(dead.totalLiveSubscribers == 0)
        #expect(dead.totalDeadSubscribers == 3)

        bus.reclaimDeadSubscriptions()
        let reclaimed = bus.snapshot()
        #expect(reclaimed.totalDeadSubscribers == 0)
        #expect(reclaimed.totalReclaimed == 3)
        withExtendedLifetime(monitor) {}
    }
}
