import Dispatch
import EventBus
import EventBusTesting
import Foundation
import TestSupport
import Testing

private struct NetworkStatus: Event, Equatable {
    let isOnline: Bool
}

private struct Version: Event, Equatable {
    let number: Int
}

@MainActor
private final class StatusScreen {
    private(set) var shown: [Bool] = []
    private(set) var ranOnMainActorAtOnce = false

    func open(on bus: EventBus) {
        bus.subscribe(observer: self, sticky: true) { [weak self] (status: NetworkStatus) in
            self?.shown.append(status.isOnline)
        }
    }
}

@Suite("Sticky events")
struct StickyEventTests {
    @Test("a sticky publish delivers like any other, and the bus keeps the latest per type")
    func keepsTheLatest() {
        let bus = EventBus()
        let seen = Journal<Bool>()
        let token = bus.subscribe(to: NetworkStatus.self) { seen.append($0.isOnline) }
        #expect(bus.stickyEvent(of: NetworkStatus.self) == nil)
        bus.publishSticky(NetworkStatus(isOnline: false))
        bus.publishSticky(NetworkStatus(isOnline: true))
        bus.publish(NetworkStatus(isOnline: false))
        #expect(seen.entries == [false, true, false])
        #expect(
            bus.stickyEvent(of: NetworkStatus.self) == NetworkStatus(isOnline: true),
            "a plain publish keeps nothing")
        #expect(bus.snapshot()[NetworkStatus.self]?.published == 3)
        token.cancel()
    }

    @Test("removing returns the event once; removing all clears every type")
    func removing() {
        let bus = EventBus()
        bus.publishSticky(NetworkStatus(isOnline: true))
        bus.publishSticky(Version(number: 1))
        #expect(bus.removeStickyEvent(of: NetworkStatus.self) == NetworkStatus(isOnline: true))
        #expect(bus.removeStickyEvent(of: NetworkStatus.self) == nil)
        #expect(bus.stickyEvent(of: Version.self) == Version(number: 1))
        bus.removeAllStickyEvents()
        #expect(bus.stickyEvent(of: Version.self) == nil)
        #expect(bus.snapshot().stickyEvents.isEmpty)
    }

    @Test("a subscriber that asks receives the sticky event at once, one that does not, nothing")
    func subscribersAskForIt() {
        let bus = EventBus()
        bus.publishSticky(NetworkStatus(isOnline: false))
        let asked = Journal<Bool>()
        let notAsked = Journal<Bool>()
        let first = bus.subscribe(to: NetworkStatus.self, sticky: true) { asked.append($0.isOnline) }
        let second = bus.subscribe(to: NetworkStatus.self) { notAsked.append($0.isOnline) }
        #expect(asked.entries == [false], "received before subscribe returned")
        #expect(notAsked.entries.isEmpty)
        bus.publish(NetworkStatus(isOnline: true))
        #expect(asked.entries == [false, true])
        #expect(notAsked.entries == [true])
        // Nothing sticky: asking receives nothing.
        let versions = Journal<Int>()
        let third = bus.subscribe(to: Version.self, sticky: true) { versions.append($0.number) }
        #expect(versions.entries.isEmpty)
        _ = (first, second, third)
    }

    @Test("a main-actor screen opened on the main actor shows the sticky event before open returns")
    @MainActor
    func mainActorObserver() {
        let bus = EventBus()
        bus.publishSticky(NetworkStatus(isOnline: false))
        let screen = StatusScreen()
        screen.open(on: bus)
        #expect(screen.shown == [false])
        bus.publish(NetworkStatus(isOnline: true))
        #expect(screen.shown == [false, true])
    }

    @Test("a queued subscriber receives the sticky event first, then newer ones, in order")
    func queuedSubscriber() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        bus.publishSticky(Version(number: 1))
        let queue = DispatchQueue(label: "sticky subscriber")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let seen = Journal<Int>()
        let token = bus.subscribe(to: Version.self, on: queue, sticky: true) { version in
            seen.append(version.number)
            if version.number == 3 { bus.publish(Tick(value: 3)) }
        }
        bus.publish(Version(number: 2))
        bus.publish(Version(number: 3))
        gate.signal()
        await recorder.next(Tick.self)
        #expect(seen.entries == [1, 2, 3])
        token.cancel()
    }

    @Test("the bus keeps the event, not the observer: a screen that received it is reclaimed")
    func holdsNoObserver() {
        let bus = EventBus()
        bus.publishSticky(NetworkStatus(isOnline: true))
        weak var weakScreen: TidyScreen?
        do {
            let screen = TidyScreen(bus: bus)
            weakScreen = screen
            bus.subscribe(observer: screen, sticky: true) { (_: NetworkStatus) in }
        }
        #expect(weakScreen == nil)
        #expect(bus.subscriberCount(for: NetworkStatus.self) == 0)
        #expect(bus.stickyEvent(of: NetworkStatus.self) != nil)
    }

    @Test("the snapshot lists each type's sticky event")
    func snapshotLists() {
        let bus = EventBus()
        bus.publishSticky(Version(number: 1))
        bus.publishSticky(Version(number: 2))
        bus.publishSticky(NetworkStatus(isOnline: true))
        let sticky = bus.snapshot().stickyEvents
        #expect(sticky.map(\.typeName) == ["NetworkStatus", "Version"])
        #expect(sticky.last?.event as? Version == Version(number: 2))
        #expect(sticky[0].version > sticky[1].version, "the newest sticky publish has the largest version")
    }

    @Test("a handler that subscribes with sticky: true receives the event at once, too")
    func subscribingFromAHandler() {
        let bus = EventBus()
        bus.publishSticky(NetworkStatus(isOnline: false))
        let seen = Journal<Bool>()
        let tokens = LockedValue<[Subscription]>([])
        let opener = bus.subscribe(to: Tick.self) { _ in
            let token = bus.subscribe(to: NetworkStatus.self, sticky: true) { seen.append($0.isOnline) }
            tokens.withLock { $0.append(token) }
        }
        bus.publish(Tick(value: 1))
        #expect(seen.entries == [false])
        _ = opener
    }

    @Test("racing sticky publishes: every subscriber sees versions in order, none twice, and the last")
    func racingPublishes() async {
        let bus = EventBus()
        let last = 2_000
        bus.publishSticky(Version(number: 0))
        let subscriptions = LockedValue<[(Subscription, Journal<Int>)]>([])
        let started = DispatchSemaphore(value: 0)
        let publisher = Thread {
            started.signal()
            for number in 1...last { bus.publishSticky(Version(number: number)) }
        }
        publisher.start()
        started.wait()
        await withTaskGroup(of: Void.self) { group in
            for lane in 0..<2 {
                group.addTask {
                    for index in 0..<100 {
                        let seen = Journal<Int>()
                        let queue = index % 2 == 0 ? nil : DispatchQueue(label: "sticky \(lane) \(index)")
                        let token = bus.subscribe(to: Version.self, on: queue, sticky: true) {
                            seen.append($0.number)
                        }
                        subscriptions.withLock { $0.append((token, seen)) }
                    }
                }
            }
        }
        #expect(eventually { bus.stickyEvent(of: Version.self)?.number == last })
        for (_, seen) in subscriptions.current {
            #expect(eventually { seen.entries.last == last })
            let numbers = seen.entries
            #expect(!numbers.isEmpty)
            #expect(
                zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "in order, none twice: \(numbers)")
        }
    }
}
