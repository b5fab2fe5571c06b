import Dispatch
import EventBus
import Foundation

/// What a screen model on the main actor keeps: the sum and number of the values its handlers
/// were given, and who to wake once the expected number has arrived.
@MainActor
final class MainActorTally {
    private(set) var sum = 0
    private(set) var count = 0
    private var expected = Int.max
    private var whenComplete: CheckedContinuation<Void, Never>?

    func add(_ value: Int) {
        sum &+= value
        count += 1
        if count == expected, let waiter = whenComplete {
            whenComplete = nil
            waiter.resume()
        }
    }

    /// Resumes `waiter` once `total` values have arrived in all.
    func wake(_ waiter: CheckedContinuation<Void, Never>, after total: Int) {
        expected = total
        if count >= total { waiter.resume() } else { whenComplete = waiter }
    }
}

/// An observer object, as a screen on the main actor.
@MainActor
final class BenchScreen {}

/// A way of getting ``BenchEvent`` to handlers that must run on the main actor.
enum MainActorVariantKind: CaseIterable {
    /// The bus's own: a main-actor closure given to `subscribe(observer:handler:)`.
    case busMainActor
    /// A nonisolated handler that asserts it is on the main actor; valid only when published there.
    case assumeIsolated
    /// A nonisolated handler that hops with `DispatchQueue.main.async`.
    case dispatchMainAsync

    var label: String {
        switch self {
        case .busMainActor: "EventBus, main-actor handler"
        case .assumeIsolated: "@Sendable handler + MainActor.assumeIsolated"
        case .dispatchMainAsync: "@Sendable handler + DispatchQueue.main.async"
        }
    }
}

/// Subscribers whose handlers add each event's value into one main-actor tally.
@MainActor
final class MainActorDelivery {
    let kind: MainActorVariantKind
    let subscribers: Int
    let bus = EventBus(name: "busbench-main-actor")
    let tally = MainActorTally()
    private let screens: [BenchScreen]
    /// What every handler should have added up, and how many events were published in all.
    private var expectedSum = 0
    private var published = 0

    init(_ kind: MainActorVariantKind, subscribers: Int) {
        self.kind = kind
        self.subscribers = subscribers
        screens = (0..<subscribers).map { _ in BenchScreen() }
        let tally = tally
        for screen in screens {
            switch kind {
            case .busMainActor:
                // Written on the main actor, so the closure is a main-actor closure.
                bus.subscribe(observer: screen) { (event: BenchEvent) in tally.add(event.value) }
            case .assumeIsolated:
                // `on: nil`: a plain handler on the publisher's thread, as before main-actor handlers.
                bus.subscribe(observer: screen, on: nil) { (event: BenchEvent) in
                    MainActor.assumeIsolated { tally.add(event.value) }
                }
            case .dispatchMainAsync:
                bus.subscribe(observer: screen, on: nil) { (event: BenchEvent) in
                    DispatchQueue.main.async { MainActor.assumeIsolated { tally.add(event.value) } }
                }
            }
        }
    }

    /// Publishes `0..<count` on the calling thread, the main actor.
    var publishingOnMainActor: Workload {
        Workload(unitsPerIteration: subscribers) { count in
            for value in 0..<count { self.bus.publish(BenchEvent(value: value, lane: 0)) }
            self.notePublished(count)
        }
    }

    /// Publishes `events` events from another thread and waits, without blocking the main actor,
    /// until every handler call has run on it.
    ///
    /// - Returns: Nanoseconds per handler call from the first publish to the last call, and the
    ///   publisher's own nanoseconds per publish.
    func publishFromAnotherThread(events: Int) async -> (perCall: Double, perPublish: Double) {
        let publisherNanoseconds = LockedValue<Double>(0)
        notePublished(events)
        let bus = bus
        let total = tally.count + events * subscribers
        let clock = ContinuousClock()
        let start = clock.now
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            tally.wake(waiter, after: total)
            // The handlers cannot run before this function suspends, so the wake-up is in place.
            Thread.detachNewThread {
                let nanoseconds = Sampler.time {
                    for value in 0..<events { bus.publish(BenchEvent(value: value, lane: 0)) }
                }
                publisherNanoseconds.withLock { $0 = nanoseconds }
            }
        }
        let elapsed = start.duration(to: clock.now)
        let wall = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        return (wall / Double(events * subscribers), publisherNanoseconds.current / Double(events))
    }

    private func notePublished(_ count: Int) {
        expectedSum &+= Accumulators.sumOfValues(below: count) &* subscribers
        published += count
    }

    /// Whether every handler call has run with the right value, and the bus's counters agree.
    func verify() -> Bool {
        tally.sum == expectedSum && tally.count == published * subscribers
            && bus.countersAreExact(for: BenchEvent.self, subscribers: subscribers)
    }

    func tearDown() {
        for screen in screens { bus.unsubscribe(observer: screen) }
    }
}

/// The same handler, written outside any actor or in main-actor code, subscribed in either
/// form and published on the main actor: what a main-actor handler costs over a plain one.
@MainActor
final class MainActorParity {
    /// How a subscriber subscribes.
    enum Form: CaseIterable {
        case token
        case observer

        var label: String {
            switch self {
            case .token: "token form"
            case .observer: "observer form"
            }
        }
    }

    let form: Form
    let isMainActor: Bool
    let accumulators: Accumulators
    let bus = EventBus(name: "busbench-main-actor-parity")
    private var tokens: [Subscription] = []
    private var screens: [BenchScreen] = []

    init(form: Form, mainActor: Bool, subscribers: Int) {
        self.form = form
        isMainActor = mainActor
        accumulators = Accumulators(subscribers: subscribers)
        screens = (0..<subscribers).map { _ in BenchScreen() }
        for (index, screen) in screens.enumerated() {
            let cell = accumulators.cell(index)
            switch (form, mainActor) {
            case (.token, true):
                // Written here, on the main actor, so the closure is a main-actor closure.
                tokens.append(bus.subscribe(to: BenchEvent.self) { event in cell.add(event) })
            case (.token, false):
                tokens.append(bus.subscribe(to: BenchEvent.self, handler: Self.handler(adding: cell)))
            case (.observer, true):
                bus.subscribe(observer: screen) { (event: BenchEvent) in cell.add(event) }
            case (.observer, false):
                bus.subscribe(observer: screen, handler: Self.handler(adding: cell))
            }
        }
    }

    /// The same body as the main-actor closures, written outside any actor.
    private nonisolated static func handler(adding cell: AccumulatorCell) -> @Sendable (BenchEvent) -> Void {
        { event in cell.add(event) }
    }

    /// Publishes `0..<count` on the calling thread, the main actor.
    var workload: Workload {
        Workload(unitsPerIteration: accumulators.subscriberCount) { count in
            for value in 0..<count { self.bus.publish(BenchEvent(value: value, lane: 0)) }
            self.accumulators.expectPublished(count: count)
        }
    }

    /// Whether every handler ran, in place, with every value, and the bus's counters agree.
    func verify() -> Bool {
        accumulators.verify()
            && bus.countersAreExact(for: BenchEvent.self, subscribers: accumulators.subscriberCount)
    }

    func tearDown() {
        for token in tokens { token.cancel() }
        tokens = []
        screens = []
    }
}
