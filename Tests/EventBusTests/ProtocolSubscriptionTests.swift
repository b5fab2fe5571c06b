import Dispatch
import EventBus
import EventBusTesting
import TestSupport
import Testing

private protocol AuthEvent: Event {
    var userId: String { get }
}

private struct SignedIn: AuthEvent {
    let userId: String
}

private struct SignedOut: AuthEvent {
    let userId: String
}

private struct Refreshed: Event {
    let count: Int
}

@MainActor
private final class AccountBadge {
    private(set) var users: [String] = []

    func watch(_ bus: EventBus) {
        bus.subscribe(observer: self, conformingTo: (any AuthEvent).self) { [weak self] event in
            self?.users.append(event.userId)
        }
    }
}

@Suite("Subscribing to a protocol")
struct ProtocolSubscriptionTests {
    @Test("every conforming event arrives, after its own type's subscribers, before wildcards")
    func conformingEventsArriveInOrder() {
        let bus = EventBus()
        let order = Journal<String>()
        let own = bus.subscribe(to: SignedIn.self) { order.append("SignedIn \($0.userId)") }
        let auth = bus.subscribe(conformingTo: (any AuthEvent).self) { order.append("auth \($0.userId)") }
        let all = bus.subscribeAll { order.append("all \(type(of: $0))") }
        bus.publish(SignedIn(userId: "ada"))
        bus.publish(Refreshed(count: 1))
        bus.publish(SignedOut(userId: "ada"))
        #expect(
            order.entries == [
                "SignedIn ada", "auth ada", "all SignedIn", "all Refreshed", "auth ada", "all SignedOut",
            ])
        _ = (own, auth, all)
    }

    @Test("a type that conforms to no subscribed protocol is counted as before")
    func nonConformingTypes() {
        let bus = EventBus()
        let auth = bus.subscribe(conformingTo: (any AuthEvent).self) { _ in }
        bus.publish(Refreshed(count: 1))
        bus.publish(Refreshed(count: 2))
        let snapshot = bus.snapshot()
        #expect(snapshot[Refreshed.self]?.unheard == 2)
        #expect(snapshot["any AuthEvent"]?.delivered == 0)
        #expect(snapshot.totalPublished == 2, "nothing counted twice")
        _ = auth
    }

    @Test("the snapshot lists the subscription under the protocol's name, with its counts")
    func snapshotUnderTheProtocolsName() {
        let bus = EventBus()
        let auth = bus.subscribe(conformingTo: (any AuthEvent).self) { _ in }
        bus.publish(SignedIn(userId: "a"))
        bus.publish(SignedOut(userId: "a"))
        let row = bus.snapshot()["any AuthEvent"]
        #expect(row?.liveSubscribers == 1)
        #expect(row?.published == 0, "each event is published under its own type")
        #expect(row?.delivered == 2)
        #expect(bus.snapshot().totalPublished == 2)
        #expect(bus.snapshot()[SignedIn.self]?.unheard == 0, "a protocol's subscriber heard it")
        #expect(bus.snapshot()[SignedIn.self]?.delivered == 0, "its own type's row counts its own calls")
        auth.cancel()
        bus.publish(SignedIn(userId: "b"))
        #expect(bus.snapshot()["any AuthEvent"]?.liveSubscribers == 0)
        #expect(bus.snapshot()["any AuthEvent"]?.delivered == 2)
    }

    @Test("a protocol subscribed to after a type's first publish reaches that type too")
    func laterProtocols() {
        let bus = EventBus()
        bus.publish(SignedIn(userId: "before"))
        let seen = Journal<String>()
        let auth = bus.subscribe(conformingTo: (any AuthEvent).self) { seen.append($0.userId) }
        bus.publish(SignedIn(userId: "after"))
        #expect(seen.entries == ["after"])
        _ = auth
    }

    @Test("observers are held weakly and reclaimed, as with a type")
    func weakObservers() {
        let bus = EventBus()
        weak var weakScreen: TidyScreen?
        let seen = Journal<String>()
        do {
            let screen = TidyScreen(bus: bus)
            weakScreen = screen
            bus.subscribe(observer: screen, conformingTo: (any AuthEvent).self) { seen.append($0.userId) }
            bus.publish(SignedIn(userId: "alive"))
        }
        #expect(weakScreen == nil)
        bus.publish(SignedIn(userId: "gone"))
        #expect(seen.entries == ["alive"])
        #expect(bus.snapshot()["any AuthEvent"]?.liveSubscribers == 0)
    }

    @Test("a main-actor handler runs on the main actor")
    @MainActor
    func mainActorObserver() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        let badge = AccountBadge()
        badge.watch(bus)
        bus.publish(SignedIn(userId: "here"))
        #expect(badge.users == ["here"], "published on the main actor, it ran before publish returned")
        DispatchQueue.global().async {
            bus.publish(SignedOut(userId: "there"))
            bus.publish(Tick(value: 1))
        }
        await recorder.next(Tick.self)
        await MainActor.run {}
        #expect(await waitUntil { badge.users == ["here", "there"] })
    }

    @Test("a queued subscriber gets them on its queue, in order")
    func queuedSubscriber() async {
        let bus = EventBus()
        let queue = DispatchQueue(label: "auth queue")
        let seen = Journal<String>()
        let auth = bus.subscribe(conformingTo: (any AuthEvent).self, on: queue) {
            dispatchPrecondition(condition: .onQueue(queue))
            seen.append($0.userId)
        }
        for index in 1...5 { bus.publish(SignedIn(userId: "\(index)")) }
        queue.sync {}
        #expect(seen.entries == ["1", "2", "3", "4", "5"])
        _ = auth
    }

    @Test("a protocol handler that publishes counts in the cascade, and a loop is stopped")
    func cascades() {
        let bus = EventBus(cascadeLimit: 100)
        let recorder = EventRecorder(bus: bus)
        let loop = bus.subscribe(conformingTo: (any AuthEvent).self) { event in
            bus.publish(SignedIn(userId: event.userId))
        }
        bus.publish(SignedIn(userId: "loop"))
        #expect(recorder.count(of: SignedIn.self) == 101)
        #expect(recorder.lifecycleEvents.contains { $0.kind == .cascadeStopped })
        _ = loop
    }

    @Test("while something watches, protocol handlers are timed under the protocol's name")
    func timing() {
        let bus = EventBus()
        let watch = bus.observeDeliveries { _ in }
        let auth = bus.subscribe(conformingTo: (any AuthEvent).self) { _ in }
        bus.publish(SignedIn(userId: "timed"))
        let row = bus.snapshot().handlers.first { $0.eventTypeName == "any AuthEvent" }
        #expect(row?.calls == 1)
        _ = (watch, auth)
    }
}

/// Waits, on the main actor, until `condition` holds, letting queued main-actor jobs run.
@MainActor
private func waitUntil(_ condition: @MainActor () -> Bool) async -> Bool {
    for _ in 0..<10_000 {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}
