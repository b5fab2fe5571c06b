import EventBus
import TestSupport
import Testing

/// A publish finds its type's subscribers through a small per-thread cache keyed by bus and
/// type; these tests publish in the patterns that cache must get right.
@Suite("Finding a type's subscribers")
struct SlotLookupTests {
    /// More (bus, type) pairs than the per-thread cache holds, so that lookups miss and replace
    /// entries.
    static let manyPairs = 20

    @Test("a bus created where a dead bus was delivers to its own subscribers only")
    func newBusAtReusedAddress() {
        // Given buses created and freed one after the other on one thread, each publishing the
        // same type (a freed bus's memory is typically reused for the next one). Every other
        // bus first creates another type's list, so that a list of the dead bus's address
        // holds a different type on the next.
        let calls = Journal<Int>()
        for round in 0..<200 {
            let bus = EventBus()
            let other = round.isMultiple(of: 2) ? nil : bus.subscribe(to: DataLoadedEvent.self) { _ in }
            let token = bus.subscribe(to: Tick.self) { calls.append(round * 1_000 + $0.value) }

            // When each bus publishes.
            bus.publish(Tick(value: 1))
            bus.publish(Tick(value: 2))

            // Then only this bus's subscriber hears it, and this bus counts it.
            let stats = bus.snapshot()[Tick.self]
            #expect(stats?.published == 2)
            #expect(stats?.delivered == 2)
            #expect(bus.snapshot()[DataLoadedEvent.self]?.published ?? 0 == 0)
            token.cancel()
            other?.cancel()
        }
        let expected: [Int] = (0..<200).flatMap { round in [round * 1_000 + 1, round * 1_000 + 2] }
        #expect(calls.entries == expected)
    }

    @Test("publishing more bus and type pairs than a thread caches keeps every counter exact")
    func morePairsThanCached() {
        // Given many buses, each with subscribers of two types.
        let buses = (0..<Self.manyPairs / 2).map { EventBus(name: "bus \($0)") }
        let ticks = Journal<String>()
        let loads = Journal<String>()
        var tokens: [Subscription] = []
        for bus in buses {
            tokens.append(bus.subscribe(to: Tick.self) { ticks.append("\(bus.name) \($0.value)") })
            tokens.append(bus.subscribe(to: DataLoadedEvent.self) { loads.append("\(bus.name) \($0.data)") })
        }

        // When one thread publishes to every pair in turn, several times.
        for round in 0..<5 {
            for bus in buses {
                bus.publish(Tick(value: round))
                bus.publish(DataLoadedEvent(data: ["\(round)"]))
            }
        }

        // Then each event reached its own bus's subscriber of its own type, once.
        let names = buses.map(\.name)
        let expectedTicks: [String] = (0..<5).flatMap { round in names.map { "\($0) \(round)" } }
        let expectedLoads: [String] = (0..<5).flatMap { round in names.map { "\($0) [\"\(round)\"]" } }
        #expect(ticks.entries == expectedTicks)
        #expect(loads.entries == expectedLoads)
        for bus in buses {
            let snapshot = bus.snapshot()
            #expect(snapshot[Tick.self]?.published == 5)
            #expect(snapshot[Tick.self]?.delivered == 5)
            #expect(snapshot[DataLoadedEvent.self]?.published == 5)
            #expect(snapshot[DataLoadedEvent.self]?.delivered == 5)
        }
        for token in tokens { token.cancel() }
    }

    @Test("dead subscriptions are reclaimed while every publish misses the thread's cache")
    func reclaimedWhileMissing() {
        // Given dead observers of a type that is never published.
        let bus = EventBus()
        var screens: [Screen] = (0..<200).map { Screen("screen \($0)") }
        for screen in screens {
            bus.subscribe(observer: screen) { (_: UserLoggedInEvent) in }
        }
        screens.removeAll()
        let others = (0..<Self.manyPairs).map { EventBus(name: "other \($0)") }

        // When the thread publishes Ticks on the bus between publishes on enough other buses
        // that every lookup on the bus misses.
        for value in 0..<1_000 {
            bus.publish(Tick(value: value))
            for other in others { other.publish(Tick(value: value)) }
        }

        // Then the dead entries are gone.
        let stats = bus.snapshot()[UserLoggedInEvent.self]
        #expect(stats?.deadSubscribers == 0)
        #expect(stats?.reclaimedSubscribers == 200)
        #expect(bus.snapshot()[Tick.self]?.published == 1_000)
    }

    @Test("a sweep whose lifecycle observer publishes elsewhere does not redirect the publish")
    func sweepPublishingElsewhere() {
        // Given dead observers to sweep, and a lifecycle observer that, on hearing of the
        // reclaim, publishes on enough other buses to replace every slot the thread cached.
        let bus = EventBus()
        var screens: [Screen] = (0..<200).map { Screen("screen \($0)") }
        for screen in screens {
            bus.subscribe(observer: screen) { (_: UserLoggedInEvent) in }
        }
        screens.removeAll()
        let others = (0..<Self.manyPairs).map { EventBus(name: "other \($0)") }
        let reclaims = Journal<Int>()
        let monitor = bus.observeLifecycle { change in
            guard change.kind == .reclaimed else { return }
            reclaims.append(change.count)
            for other in others { other.publish(DataLoadedEvent(data: [])) }
        }
        let ticks = Journal<Int>()
        let token = bus.subscribe(to: Tick.self) { ticks.append($0.value) }

        // When the thread publishes Ticks, and the bus sweeps in between.
        for value in 0..<1_000 { bus.publish(Tick(value: value)) }

        // Then every Tick reached its subscriber and was counted, and the sweep happened.
        #expect(ticks.entries == Array(0..<1_000))
        #expect(bus.snapshot()[Tick.self]?.published == 1_000)
        #expect(bus.snapshot()[Tick.self]?.delivered == 1_000)
        #expect(reclaims.entries.reduce(0, +) == 200)
        let published = others.map { $0.snapshot()[DataLoadedEvent.self]?.published ?? 0 }
        #expect(published.allSatisfy { $0 > 0 })
        token.cancel()
        monitor.cancel()
    }

    @Test("a wildcard subscription made during a typed delivery does not receive that event")
    func wildcardSubscribedDuringDelivery() {
        // Given a typed handler that subscribes a wildcard observer on first call.
        let bus = EventBus()
        let seen = Journal<String>()
        let tokens = LockedValue<[Subscription]>([])
        let first = bus.subscribe(to: Tick.self) { _ in
            guard tokens.withLock({ $0.isEmpty }) else { return }
            let token = bus.subscribeAll { seen.append(String(describing: $0)) }
            tokens.withLock { $0.append(token) }
        }

        // When the event that caused the subscription is delivered, and then another.
        bus.publish(Tick(value: 1))
        #expect(seen.entries.isEmpty)
        bus.publish(Tick(value: 2))

        // Then the wildcard observer saw only the later event.
        #expect(seen.entries == [String(describing: Tick(value: 2))])
        first.cancel()
        tokens.withLock { $0.forEach { $0.cancel() } }
    }
}
