import Dispatch
import EventBus
import TestSupport
import Testing

/// The article's view controller, as written there, on the main actor as every UIKit view
/// controller is.
@MainActor
final class ArticleLoginViewController {
    private(set) var welcomeText = ""
    private(set) var updates = 0

    func viewDidLoad() {
        EventBus.shared.subscribe(observer: self) { [weak self] (event: ArticleLoginEvent) in
            guard let self = self else { return }
            self.updateUI(with: event.userName)
        }
    }

    func updateUI(with userName: String) {
        welcomeText = "Welcome, \(userName)"
        updates += 1
    }

    deinit {
        EventBus.shared.unsubscribe(observer: self)
    }
}

/// The article's login event under a name of its own, since the shared bus is one for the
/// whole test run.
struct ArticleLoginEvent: Event {
    let userId: String
    let userName: String
}

/// A main-actor screen model that keeps what its handlers saw, through the three subscribe forms.
@MainActor
final class TickScreen {
    private(set) var ticks: [Int] = []
    private(set) var everything: [String] = []
    private var tokens: Set<Subscription> = []
    let calls: Journal<Int>?

    init(calls: Journal<Int>? = nil) {
        self.calls = calls
    }

    func observe(_ bus: EventBus) {
        bus.subscribe(observer: self) { [weak self] (event: Tick) in
            MainActor.assertIsolated()
            self?.ticks.append(event.value)
            self?.calls?.append(event.value)
        }
    }

    func observeWithToken(_ bus: EventBus) {
        bus.subscribe(to: Tick.self) { [weak self] event in
            MainActor.assertIsolated()
            self?.ticks.append(event.value)
        }.store(in: &tokens)
    }

    func observeEverything(_ bus: EventBus) {
        bus.subscribeAll(observer: self) { [weak self] event in
            MainActor.assertIsolated()
            self?.everything.append(String(describing: type(of: event)))
        }
    }
}

/// A main-actor screen that unsubscribes in `deinit`, as the article's does.
@MainActor
final class TidyTickScreen {
    let bus: EventBus
    init(bus: EventBus, calls: Journal<Int>) {
        self.bus = bus
        bus.subscribe(observer: self) { (event: Tick) in calls.append(event.value) }
    }
    deinit { bus.unsubscribe(observer: self) }
}

/// Collects ticks in an actor instance: the handler is isolated to the actor it was written in.
actor TickCollector {
    private(set) var values: [Int] = []

    func start(on bus: EventBus) -> Subscription {
        bus.subscribe(to: Tick.self) { event in
            self.assertIsolated()
            self.values.append(event.value)
        }
    }
}

/// A global actor other than the main actor.
@globalActor
actor StorageActor {
    static let shared = StorageActor()
}

@StorageActor
final class TickStore {
    private(set) var values: [Int] = []

    func start(on bus: EventBus) {
        bus.subscribe(observer: self) { [weak self] (event: Tick) in
            StorageActor.assertIsolated()
            self?.values.append(event.value)
        }
    }
}

/// Publishes `values` on a thread of its own and returns once every publish has returned,
/// without waiting for the main actor.
func publishFromAnotherThread(_ bus: EventBus, _ values: some Sequence<Int> & Sendable) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            for value in values { bus.publish(Tick(value: value)) }
            done.resume()
        }
    }
}

/// Publishes `values` from another thread while the caller keeps the main actor busy, and
/// returns whether every publish returned within five seconds, which it can only do if no
/// publish waited for the main actor.
@MainActor
func publishWhileMainActorIsBusy(_ bus: EventBus, _ values: [Int]) -> Bool {
    let finished = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        for value in values { bus.publish(Tick(value: value)) }
        finished.signal()
    }
    return finished.wait(timeout: .now() + 5) == .success
}

/// Lets the main actor run what waits for it until `condition` holds or five seconds pass.
@MainActor
func mainActorEventually(_ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(5)
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

@Suite("Observers isolated to the main actor or another actor")
struct IsolatedObserverTests {
    @Test("the article's view controller updates its UI before publish returns on the main actor")
    @MainActor
    func articleViewController() {
        var controller: ArticleLoginViewController? = ArticleLoginViewController()
        controller?.viewDidLoad()

        EventBus.shared.publish(event: ArticleLoginEvent(userId: "42", userName: "Ada"))

        #expect(controller?.welcomeText == "Welcome, Ada")
        weak let released = controller
        controller = nil
        #expect(released == nil)
        #expect(EventBus.shared.subscriberCount(for: ArticleLoginEvent.self) == 0)
    }

    @Test("published from another thread, a main-actor handler runs on the main actor in publish order")
    @MainActor
    func publishedElsewhere() async {
        let bus = EventBus()
        let screen = TickScreen()
        screen.observe(bus)

        await publishFromAnotherThread(bus, Array(0..<500))

        #expect(await mainActorEventually { screen.ticks.count == 500 })
        #expect(screen.ticks == Array(0..<500))
        #expect(bus.snapshot()[Tick.self]?.delivered == 500)
    }

    @Test(
        "a plain handler after a main-actor subscriber finds that delivery queued: a publish it has made on the main actor comes after it"
    )
    @MainActor
    func aPublishOnTheMainActorFromALaterHandlerComesAfter() async {
        let bus = EventBus(name: "order")
        let seen = Journal<Int>()
        let screen = bus.subscribe(to: Tick.self) { @MainActor tick in seen.append(tick.value) }
        let published = Journal<Bool>()
        let relay = Self.subscribeRelay(on: bus, noting: published) { bus, value in
            // On the main thread, where a main-actor delivery runs in place after what waits.
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.main.async {
                bus.publish(Tick(value: value + 100))
                done.signal()
            }
            return done.wait(timeout: .now() + 5) == .success
        }

        await publishFromAnotherThread(bus, [1, 2])

        #expect(await mainActorEventually { seen.entries.count == 4 })
        #expect(seen.entries == [1, 101, 2, 102])
        #expect(published.entries == [true, true])
        _ = (screen, relay)
    }

    @Test("a plain handler after a main-actor subscriber may wait for that delivery to run")
    @MainActor
    func aLaterHandlerMayWaitForAMainActorDelivery() async {
        let bus = EventBus(name: "order")
        let ran = DispatchSemaphore(value: 0)
        let screen = bus.subscribe(to: Tick.self) { @MainActor _ in ran.signal() }
        let waited = Journal<Bool>()
        let relay = Self.subscribeRelay(on: bus, noting: waited) { _, _ in
            ran.wait(timeout: .now() + 5) == .success
        }

        await publishFromAnotherThread(bus, [1, 2])

        #expect(await mainActorEventually { waited.entries.count == 2 })
        #expect(waited.entries == [true, true])
        _ = (screen, relay)
    }

    @Test(
        "main-actor deliveries from another thread run event by event, typed, protocol and wildcard subscribers each in order, and a cancel stops the rest",
        arguments: [false, true])
    @MainActor
    func queuedMainActorDeliveriesKeepTheirOrder(watched: Bool) async {
        let bus = EventBus(name: "order")
        // Watched, each delivery's wait is measured from when it was handed over.
        let watch = watched ? bus.observeLifecycle { _ in } : nil
        let seen = Journal<String>()
        let second = LockedValue<Subscription?>(nil)
        var tokens: [Subscription] = []
        for index in 0..<3 {
            let token = bus.subscribe(to: Tick.self) { @MainActor tick in
                seen.append("t\(index):\(tick.value)")
                // The second subscriber's delivery of this event waits behind this one.
                if index == 0 && tick.value == 250 { second.current?.cancel() }
            }
            if index == 1 { second.withLock { $0 = token } }
            tokens.append(token)
            // Handlers that run in the publish, between the queued ones; the first publishes an
            // echo, which is delivered once every list has had the tick.
            tokens.append(Self.subscribeCounter(on: bus, echoing: index == 0))
        }
        tokens.append(bus.subscribe(to: Echo.self) { @MainActor echo in seen.append("n:\(echo.value)") })
        tokens.append(
            bus.subscribe(conformingTo: (any NumberedTick).self) { @MainActor tick in
                seen.append("p:\(tick.value)")
            })
        tokens.append(
            bus.subscribeAll { @MainActor event in
                if let tick = event as? Tick { seen.append("w:\(tick.value)") }
            })
        let values = Array(1...500)

        // While the main actor runs deliveries as they come, the publisher adds more.
        await publishFromAnotherThread(bus, values)

        let expected = values.flatMap { value in
            (value < 250 ? ["t0", "t1", "t2"] : ["t0", "t2"]).map { "\($0):\(value)" } + [
                "p:\(value)", "w:\(value)", "n:\(value)",
            ]
        }
        #expect(await mainActorEventually { seen.count >= expected.count })
        let entries = seen.entries
        let firstDifference =
            zip(entries, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(entries.count, expected.count)
        #expect(
            entries == expected,
            "from \(firstDifference): \(entries.dropFirst(firstDifference).prefix(8)), expected \(expected.dropFirst(firstDifference).prefix(8))"
        )
        if watched {
            // Every call was timed and every wait measured: 1,500 in the publish (waiting for
            // nothing), 1,249 queued on the main actor.
            let ticks = bus.snapshot().handlers.first { $0.eventTypeName == "Tick" }
            #expect(ticks?.calls == 2_749)
            #expect(ticks?.waits.count == 2_749)
            #expect((ticks?.waits.maximum ?? .zero) > .zero)
        }
        _ = (tokens, watch)
    }

    /// A plain handler of ticks (outside any actor: written here, not in a main-actor test)
    /// that counts them, and with `echoing` publishes an echo of each.
    private nonisolated static func subscribeCounter(on bus: EventBus, echoing: Bool) -> Subscription {
        let count = Journal<Int>()
        // The bus weakly: a handler holding its own bus strongly makes a cycle that only the
        // bus's removal of its entry breaks.
        return bus.subscribe(to: Tick.self) { [weak bus] tick in
            count.append(tick.value)
            if echoing { bus?.publish(Echo(value: tick.value)) }
        }
    }

    /// A plain handler (outside any actor: written here, not in a main-actor test) of ticks
    /// below 100, which notes what `body` returns.
    private nonisolated static func subscribeRelay(
        on bus: EventBus, noting results: Journal<Bool>,
        _ body: @escaping @Sendable (EventBus, Int) -> Bool
    ) -> Subscription {
        bus.subscribe(to: Tick.self) { tick in
            guard tick.value < 100 else { return }
            results.append(body(bus, tick.value))
        }
    }

    @Test("the publisher does not wait for the main actor, and a queued delivery counts when it runs")
    @MainActor
    func publisherDoesNotWait() async {
        let bus = EventBus()
        let screen = TickScreen()
        screen.observe(bus)

        #expect(publishWhileMainActorIsBusy(bus, [1, 2, 3]))

        // Given the main actor was busy, nothing has run yet; the publishes were heard.
        #expect(screen.ticks.isEmpty)
        let queued = bus.snapshot()[Tick.self]
        #expect(queued?.published == 3)
        #expect(queued?.delivered == 0)
        #expect(queued?.unheard == 0)
        #expect(await mainActorEventually { screen.ticks == [1, 2, 3] })
        #expect(bus.snapshot()[Tick.self]?.delivered == 3)
    }

    @Test("a publish on the main actor first delivers what waits, so no event overtakes another")
    @MainActor
    func publishOnMainKeepsOrder() {
        let bus = EventBus()
        let screen = TickScreen()
        screen.observe(bus)

        #expect(publishWhileMainActorIsBusy(bus, [1, 2, 3]))
        bus.publish(Tick(value: 4))

        #expect(screen.ticks == [1, 2, 3, 4])
    }

    @Test("on the main actor, isolated and plain handlers run in subscription order")
    @MainActor
    func subscriptionOrder() {
        let bus = EventBus()
        let order = Journal<String>()
        let token1 = bus.subscribe(to: Tick.self) { @Sendable _ in order.append("plain 1") }
        let token2 = bus.subscribe(to: Tick.self) { _ in
            MainActor.assertIsolated()
            order.append("main actor")
        }
        let token3 = bus.subscribe(to: Tick.self) { @Sendable _ in order.append("plain 2") }

        bus.publish(Tick(value: 1))

        #expect(order.entries == ["plain 1", "main actor", "plain 2"])
        withExtendedLifetime((token1, token2, token3)) {}
    }

    @Test("the token form and subscribeAll(observer:) take main-actor handlers too")
    @MainActor
    func tokenAndWildcardForms() async {
        let bus = EventBus()
        let screen = TickScreen()
        screen.observeWithToken(bus)
        screen.observeEverything(bus)

        bus.publish(Tick(value: 7))
        #expect(screen.ticks == [7])
        #expect(screen.everything == ["Tick"])

        await publishFromAnotherThread(bus, [8])
        #expect(await mainActorEventually { screen.ticks == [7, 8] && screen.everything.count == 2 })
    }

    @Test("a screen released while deliveries wait for it is never called, and they do not keep it")
    @MainActor
    func releasedWhileQueued() async {
        let bus = EventBus()
        let calls = Journal<Int>()
        var screen: TickScreen? = TickScreen(calls: calls)
        screen?.observe(bus)
        let witness = TickScreen()
        witness.observeWithToken(bus)

        #expect(publishWhileMainActorIsBusy(bus, [1, 2, 3]))
        weak let released = screen
        screen = nil

        // The queued deliveries hold the subscription, not the screen.
        #expect(released == nil)
        // The witness subscribed after the screen, so once it has every event the screen's
        // deliveries have been dealt with.
        #expect(await mainActorEventually { witness.ticks == [1, 2, 3] })
        #expect(calls.entries.isEmpty)
        #expect(bus.snapshot()[Tick.self]?.delivered == 3)
    }

    @Test("unsubscribe(observer:) in deinit stops deliveries already queued")
    @MainActor
    func unsubscribeInDeinitStopsQueued() async {
        let bus = EventBus()
        let calls = Journal<Int>()
        var screen: TidyTickScreen? = TidyTickScreen(bus: bus, calls: calls)
        let witness = TickScreen()
        witness.observeWithToken(bus)

        #expect(publishWhileMainActorIsBusy(bus, [1, 2]))
        screen = nil

        #expect(await mainActorEventually { witness.ticks == [1, 2] })
        #expect(calls.entries.isEmpty)
        #expect(bus.snapshot()[Tick.self]?.unsubscribedSubscribers == 1)
        withExtendedLifetime(screen) {}
    }

    @Test("a handler written in an actor runs on that actor, in publish order")
    func actorInstance() async {
        let bus = EventBus()
        let collector = TickCollector()
        let token = await collector.start(on: bus)

        await publishFromAnotherThread(bus, Array(0..<300))
        bus.publish(Tick(value: 300))

        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        while await collector.values.count < 301, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
        #expect(await collector.values == Array(0...300))
        token.cancel()
    }

    @Test("a handler written in a global actor's class runs on that global actor")
    func globalActor() async {
        let bus = EventBus()
        let store = TickStore()
        await store.start(on: bus)

        await publishFromAnotherThread(bus, Array(0..<100))

        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        while await store.values.count < 100, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
        #expect(await store.values == Array(0..<100))
        withExtendedLifetime(store) {}
    }

    @Test("a handler written outside any actor still runs on the publisher's thread")
    func nonisolatedHandlerRunsInline() async {
        let bus = EventBus()
        let calls = Journal<Int>()
        let token = bus.subscribe(to: Tick.self) { calls.append($0.value) }

        await publishFromAnotherThread(bus, [1, 2])
        bus.publish(Tick(value: 3))

        // No waiting: each publish returned after its handler ran.
        #expect(calls.entries == [1, 2, 3])
        token.cancel()
    }
}

/// Ticks seen through a protocol they conform to.
protocol NumberedTick: Event {
    var value: Int { get }
}

extension Tick: NumberedTick {}

/// An event a handler publishes for each tick it gets.
private struct Echo: Event {
    let value: Int
}
