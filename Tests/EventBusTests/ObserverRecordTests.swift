import EventBus
import Foundation
import Synchronization
import TestSupport
import Testing

/// A screen whose handler captures it strongly: the bus keeps it alive, the leak that
/// `expectDeallocation(of:within:reason:)` exists to catch.
private final class LeakyScreen: Sendable {
    let received = Atomic<Int>(0)

    func open(on bus: EventBus) {
        bus.subscribe(observer: self) { (_: UserLoggedInEvent) in
            self.received.wrappingAdd(1, ordering: .relaxed)
        }
        bus.subscribe(observer: self) { (_: DataLoadedEvent) in
            self.received.wrappingAdd(1, ordering: .relaxed)
        }
    }
}

@Suite("Observer records")
struct ObserverRecordTests {
    @Test("an observer is live, then dead, then reclaimed, and its record follows")
    func liveDeadReclaimed() throws {
        let bus = EventBus()
        let changes = Journal<SubscriberLifecycleEvent>()
        let monitor = bus.observeLifecycle { changes.append($0) }
        var screen: Screen? = Screen()
        bus.subscribe(observer: screen!) { (_: UserLoggedInEvent) in }
        bus.subscribe(observer: screen!) { (_: DataLoadedEvent) in }

        var snapshot = bus.snapshot(instancesPerClass: 10)
        #expect(
            snapshot.observers == [
                ObserverStatistics(className: "Screen", liveInstances: 1, liveSubscriptions: 2)
            ])
        let live = try #require(snapshot.instances.first)
        #expect(live.state == .live)
        #expect(live.subscriptions == ["UserLoggedInEvent", "DataLoadedEvent"])
        let serial = live.observerID
        #expect(changes.entries.map(\.observerID) == [serial, serial])

        screen = nil
        snapshot = bus.snapshot(instancesPerClass: 10)
        #expect(
            snapshot.observers == [
                ObserverStatistics(className: "Screen", deadInstances: 1, deadSubscriptions: 2)
            ])
        #expect(snapshot.instances.map(\.state) == [.dead])

        #expect(bus.reclaimDeadSubscriptions() == 2)
        snapshot = bus.snapshot(instancesPerClass: 10)
        #expect(snapshot.observers == [ObserverStatistics(className: "Screen", reclaimedInstances: 1)])
        #expect(snapshot.instances.isEmpty)
        let reclaimed = changes.entries.filter { $0.kind == .reclaimed }
        #expect(Set(reclaimed.map(\.eventTypeName)) == ["UserLoggedInEvent", "DataLoadedEvent"])
        #expect(reclaimed.allSatisfy { $0.observerID == serial && $0.reclaimedBy == .request })
        // The snapshot saw it dead before the reclaim, so how long it lay dead is known.
        #expect(reclaimed.allSatisfy { $0.deadFor != nil })
        monitor.cancel()
    }

    @Test("a publish that finds an observer dead reclaims its subscriptions to every type at once")
    func publishReclaimsEveryList() {
        let bus = EventBus()
        let changes = Journal<SubscriberLifecycleEvent>()
        var screen: Screen? = Screen()
        bus.subscribe(observer: screen!) { (_: UserLoggedInEvent) in }
        bus.subscribe(observer: screen!) { (_: DataLoadedEvent) in }
        bus.subscribe(observer: screen!) { (_: Tick) in }
        bus.subscribeAll(observer: screen!) { _ in }
        let monitor = bus.observeLifecycle { changes.append($0) }

        screen = nil
        bus.publish(Tick(value: 1))

        let reclaimed = changes.entries.filter { $0.kind == .reclaimed }
        #expect(reclaimed.count == 4)
        #expect(Set(reclaimed.map(\.eventTypeName)) == ["UserLoggedInEvent", "DataLoadedEvent", "Tick", "*"])
        #expect(reclaimed.allSatisfy { $0.reclaimedBy == .publish(eventTypeName: "Tick") })
        #expect(reclaimed.allSatisfy { $0.observerName == "Screen #1" })
        // Nothing saw it dead before the publish did.
        #expect(reclaimed.allSatisfy { $0.deadFor == nil })
        let snapshot = bus.snapshot()
        #expect(snapshot.totalDeadSubscribers == 0)
        #expect(snapshot.observers.first?.reclaimedInstances == 1)
        monitor.cancel()
    }

    @Test("wildcard observers have records too")
    func wildcardObservers() {
        let bus = EventBus()
        let watcher = Screen()
        bus.subscribeAll(observer: watcher) { _ in }
        let snapshot = bus.snapshot(instancesPerClass: 5)
        #expect(snapshot.observers.first?.liveInstances == 1)
        #expect(snapshot.instances.first?.subscriptions == [SubscriberLifecycleEvent.wildcardTypeName])
        withExtendedLifetime(watcher) {}
    }

    @Test(
        "an observer that unsubscribes while alive leaves no record; one that does so in deinit counts as gone"
    )
    func unsubscribing() {
        final class Tidy: Sendable {
            let bus: EventBus
            init(bus: EventBus) {
                self.bus = bus
                bus.subscribe(observer: self) { (_: Tick) in }
            }
            deinit { bus.unsubscribe(observer: self) }
        }
        let bus = EventBus()
        let screen = Screen()
        bus.subscribe(observer: screen) { (_: Tick) in }
        bus.unsubscribe(observer: screen)
        #expect(bus.snapshot().observers.isEmpty)

        var tidy: Tidy? = Tidy(bus: bus)
        #expect(bus.snapshot().observers.first { $0.className == "Tidy" }?.liveInstances == 1)
        tidy = nil
        #expect(
            bus.snapshot().observers.first { $0.className == "Tidy" }
                == ObserverStatistics(className: "Tidy", reclaimedInstances: 1))
        withExtendedLifetime(tidy) {}
    }

    @Test("a new object at a freed object's address gets a record of its own")
    func addressReuse() {
        let bus = EventBus()
        var serials = Set<UInt64>()
        let changes = Journal<SubscriberLifecycleEvent>()
        let monitor = bus.observeLifecycle { changes.append($0) }
        // Objects of one size freed and made in turn reuse addresses at once, before the bus
        // reclaims the dead ones' entries.
        for _ in 0..<200 {
            let screen = Screen()
            bus.subscribe(observer: screen) { (_: Tick) in }
        }
        for change in changes.entries where change.kind == .subscribed { serials.insert(change.observerID!) }
        #expect(serials.count == 200)
        let snapshot = bus.snapshot()
        let row = snapshot.observers.first
        #expect((row?.deadInstances ?? 0) + (row?.reclaimedInstances ?? 0) == 200)
        #expect(row?.liveInstances == 0)
        bus.reclaimDeadSubscriptions()
        #expect(bus.snapshot().observers.first?.reclaimedInstances == 200)
        monitor.cancel()
    }

    @Test("the table of records shrinks with the live population")
    func boundedTable() {
        let bus = EventBus()
        for round in 0..<50_000 {
            let screen = Screen()
            bus.subscribe(observer: screen) { (_: Tick) in }
            if round % 7 == 0 { bus.publish(Tick(value: round)) }
        }
        let snapshot = bus.snapshot()
        let row = snapshot.observers.first
        // Dead ones wait for the sweep, which keeps them to a bounded number.
        #expect((row?.deadInstances ?? 0) < 2_000)
        #expect(row?.liveInstances == 0)
        #expect((row?.reclaimedInstances ?? 0) + (row?.deadInstances ?? 0) == 50_000)
    }
}

@Suite("Leak suspects")
struct LeakSuspectTests {
    @Test("an object alive past its time becomes a suspect, and clears when it goes")
    func suspectAppearsAndClears() throws {
        let clock = ManualBusClock()
        let bus = clock.makeBus()
        let changes = Journal<SubscriberLifecycleEvent>()
        let monitor = bus.observeLifecycle { changes.append($0) }
        var screen: LeakyScreen? = LeakyScreen()
        screen!.open(on: bus)
        weak let watched = screen
        bus.expectDeallocation(of: screen!, within: .milliseconds(20), reason: "screen closed")
        screen = nil
        // The bus's subscriptions keep it alive.
        #expect(watched != nil)

        clock.advance(by: .milliseconds(60))
        let snapshot = bus.snapshot()
        let suspect = try #require(snapshot.leakSuspects.first)
        #expect(suspect.className == "LeakyScreen")
        #expect(suspect.reason == "screen closed")
        #expect(suspect.subscriptions == ["UserLoggedInEvent", "DataLoadedEvent"])
        #expect(suspect.overdue > .zero)
        #expect(snapshot.observers.first?.leakSuspects == 1)
        let reported = try #require(changes.entries.first { $0.kind == .leakSuspected })
        #expect(reported.observerID == suspect.observerID)
        #expect(
            reported.description.hasPrefix("leak suspected: LeakyScreen #\(suspect.observerID) still alive"))
        #expect(
            reported.description.hasSuffix(
                "after \"screen closed\", subscribed to UserLoggedInEvent, DataLoadedEvent"))

        // The fix an app would make later: unsubscribing breaks the cycle.
        bus.unsubscribe(observer: watched!)
        #expect(watched == nil)
        #expect(bus.snapshot().leakSuspects.isEmpty)
        #expect(changes.entries.last { $0.observerID == suspect.observerID }?.kind == .leakCleared)
        monitor.cancel()
    }

    @Test("an object that dies inside its time is never a suspect")
    func noFalseSuspect() {
        let clock = ManualBusClock()
        let bus = clock.makeBus()
        let changes = Journal<SubscriberLifecycleEvent>()
        let monitor = bus.observeLifecycle { changes.append($0) }
        // Alive, inside its time: not a suspect.
        let patient = Screen("patient")
        bus.expectDeallocation(of: patient, within: .seconds(600), reason: "closing slowly")
        #expect(bus.snapshot().leakSuspects.isEmpty)
        // Dead before its time: never one, not even once the time has passed.
        var slow: Screen? = Screen()
        bus.subscribe(observer: slow!) { (_: Tick) in }
        bus.expectDeallocation(of: slow!, within: .milliseconds(50), reason: "finishing an upload")
        slow = nil
        clock.advance(by: .milliseconds(100))
        #expect(bus.snapshot().leakSuspects.isEmpty)
        bus.publish(Tick(value: 1))
        #expect(!changes.entries.contains { $0.kind == .leakSuspected || $0.kind == .leakCleared })
        monitor.cancel()
        withExtendedLifetime((slow, patient)) {}
    }

    @Test("bus operations check watched objects without a snapshot")
    func checkedByOperations() {
        let clock = ManualBusClock()
        let bus = clock.makeBus()
        let changes = Journal<SubscriberLifecycleEvent>()
        let monitor = bus.observeLifecycle { changes.append($0) }
        let screen = LeakyScreen()
        screen.open(on: bus)
        bus.expectDeallocation(of: screen, within: .milliseconds(10))
        clock.advance(by: .milliseconds(150))
        // Subscribing is an operation; so is each batch of publishes.
        let token = bus.subscribe(to: Tick.self) { _ in }
        #expect(changes.entries.contains { $0.kind == .leakSuspected })
        token.cancel()
        monitor.cancel()
        // Breaks the cycle, so the screen does not outlive the test.
        bus.unsubscribe(observer: screen)
    }

    @Test("a watched object that never subscribed is a suspect too, and watching does not retain it")
    func unsubscribedObject() {
        let clock = ManualBusClock()
        let bus = clock.makeBus()
        let kept = Screen("kept")
        var released: Screen? = Screen("released")
        bus.expectDeallocation(of: kept, within: .milliseconds(5), reason: "kept by a cache")
        bus.expectDeallocation(of: released!, within: .milliseconds(5))
        weak let watched = released
        released = nil
        #expect(watched == nil)
        clock.advance(by: .milliseconds(30))
        let suspects = bus.snapshot(instancesPerClass: 5).leakSuspects
        #expect(suspects.map(\.reason) == ["kept by a cache"])
        #expect(suspects.first?.subscriptions == [])
        withExtendedLifetime(kept) {}
    }

    @Test("watching an object again restarts its time")
    func watchAgain() {
        let clock = ManualBusClock()
        let bus = clock.makeBus()
        let screen = Screen()
        bus.expectDeallocation(of: screen, within: .milliseconds(5), reason: "first")
        clock.advance(by: .milliseconds(20))
        #expect(bus.snapshot().leakSuspects.map(\.reason) == ["first"])
        bus.expectDeallocation(of: screen, within: .seconds(60), reason: "second")
        #expect(bus.snapshot().leakSuspects.isEmpty)
        withExtendedLifetime(screen) {}
    }
}
