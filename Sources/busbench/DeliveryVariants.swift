import EventBus
import Foundation

/// One way of delivering ``BenchEvent`` to a number of subscribers, set up and ready to time.
///
/// `publish(count:)` publishes events with values `0..<count`; every subscriber's handler adds
/// each value into its accumulator, which ``verify()`` then checks.
protocol DeliveryVariant: AnyObject {
    var accumulators: Accumulators { get }
    func publish(count: Int)
    /// Whether the bus's own counters agree with the deliveries made; `true` for non-bus variants.
    func countersAreExact() -> Bool
    /// Ends the subscriptions, so that nothing outlives the measurement.
    func tearDown()
}

extension DeliveryVariant {
    /// A workload quoted per handler call: each iteration is one publish to every subscriber.
    var workload: Workload {
        Workload(unitsPerIteration: accumulators.subscriberCount) { count in
            self.publish(count: count)
            self.accumulators.expectPublished(count: count)
        }
    }

    func verify() -> Bool {
        accumulators.verify()
    }

    func countersAreExact() -> Bool {
        true
    }
}

extension EventBus {
    /// Whether every publish of `T` so far reached exactly `subscribers` handlers by the counters.
    func countersAreExact<T: Event>(for type: T.Type, subscribers: Int) -> Bool {
        guard let statistics = snapshot()[type] else { return false }
        return statistics.delivered == statistics.published * subscribers
    }
}

/// The variants of the per-delivery table, in the order of its rows.
enum DeliveryVariantKind: CaseIterable {
    case busToken
    case busObserver
    case notificationCenter
    case naiveBus
    case closureArray

    var label: String {
        switch self {
        case .busToken: "EventBus, token form"
        case .busObserver: "EventBus, observer form"
        case .notificationCenter: "NotificationCenter"
        case .naiveBus: "naive bus (article style)"
        case .closureArray: "closure array (floor)"
        }
    }

    func make(subscribers: Int) -> any DeliveryVariant {
        switch self {
        case .busToken: BusTokenVariant(subscribers: subscribers)
        case .busObserver: BusObserverVariant(subscribers: subscribers)
        case .notificationCenter: NotificationCenterVariant(subscribers: subscribers)
        case .naiveBus: NaiveBusVariant(subscribers: subscribers)
        case .closureArray: ClosureArrayVariant(subscribers: subscribers)
        }
    }
}

/// `bus.subscribe(to:)` tokens, kept for the whole measurement.
final class BusTokenVariant: DeliveryVariant {
    let accumulators: Accumulators
    let bus: EventBus
    private var tokens: [Subscription] = []

    /// - Parameter cascadeLimit: The bus's limit; the default is the bus's own.
    init(subscribers: Int, cascadeLimit: Int? = 10_000) {
        bus = EventBus(name: "busbench-token", cascadeLimit: cascadeLimit)
        accumulators = Accumulators(subscribers: subscribers)
        tokens = (0..<subscribers).map { index in
            let cell = accumulators.cell(index)
            return bus.subscribe(to: BenchEvent.self) { event in cell.add(event) }
        }
    }

    func publish(count: Int) {
        for value in 0..<count {
            bus.publish(BenchEvent(value: value, lane: 0))
        }
    }

    func countersAreExact() -> Bool {
        bus.countersAreExact(for: BenchEvent.self, subscribers: accumulators.subscriberCount)
    }

    func tearDown() {
        for token in tokens { token.cancel() }
        tokens = []
    }
}

/// `bus.subscribe(observer:)` with observers kept alive for the whole measurement.
final class BusObserverVariant: DeliveryVariant {
    let accumulators: Accumulators
    let bus = EventBus(name: "busbench-observer")
    private var observers: [BenchObserver] = []

    init(subscribers: Int) {
        accumulators = Accumulators(subscribers: subscribers)
        observers = (0..<subscribers).map { _ in BenchObserver() }
        for (index, observer) in observers.enumerated() {
            let cell = accumulators.cell(index)
            bus.subscribe(observer: observer) { (event: BenchEvent) in cell.add(event) }
        }
    }

    func publish(count: Int) {
        for value in 0..<count {
            bus.publish(BenchEvent(value: value, lane: 0))
        }
    }

    func countersAreExact() -> Bool {
        bus.countersAreExact(for: BenchEvent.self, subscribers: accumulators.subscriberCount)
    }

    func tearDown() {
        observers = []
    }
}

/// Foundation's NotificationCenter: block observers on a private center, the event carried as
/// the notification's `object`.
final class NotificationCenterVariant: DeliveryVariant {
    static let name = Notification.Name("busbench.BenchEvent")

    let accumulators: Accumulators
    let center = NotificationCenter()
    private var tokens: [any NSObjectProtocol] = []

    init(subscribers: Int) {
        accumulators = Accumulators(subscribers: subscribers)
        tokens = (0..<subscribers).map { index in
            let cell = accumulators.cell(index)
            return center.addObserver(forName: Self.name, object: nil, queue: nil) { notification in
                guard let box = notification.object as? BenchEventBox else { return }
                cell.add(box.event)
            }
        }
    }

    func publish(count: Int) {
        for value in 0..<count {
            center.post(name: Self.name, object: BenchEventBox(BenchEvent(value: value, lane: 0)))
        }
    }

    func tearDown() {
        for token in tokens { center.removeObserver(token) }
        tokens = []
    }
}

/// ``NaiveEventBus`` with observers kept alive.
final class NaiveBusVariant: DeliveryVariant {
    let accumulators: Accumulators
    let bus = NaiveEventBus()
    private var observers: [BenchObserver] = []

    init(subscribers: Int) {
        accumulators = Accumulators(subscribers: subscribers)
        observers = (0..<subscribers).map { _ in BenchObserver() }
        for (index, observer) in observers.enumerated() {
            let cell = accumulators.cell(index)
            bus.subscribe(observer: observer) { (event: BenchEvent) in cell.add(event) }
        }
    }

    func publish(count: Int) {
        for value in 0..<count {
            bus.publish(event: BenchEvent(value: value, lane: 0))
        }
    }

    func tearDown() {
        observers = []
    }
}

/// An array of closures called in a loop: the least any delivery can cost.
final class ClosureArrayVariant: DeliveryVariant {
    let accumulators: Accumulators
    private let handlers: [(BenchEvent) -> Void]

    init(subscribers: Int) {
        let accumulators = Accumulators(subscribers: subscribers)
        self.accumulators = accumulators
        handlers = (0..<subscribers).map { index in
            let cell = accumulators.cell(index)
            return { event in cell.add(event) }
        }
    }

    func publish(count: Int) {
        for value in 0..<count {
            let event = BenchEvent(value: value, lane: 0)
            for handler in handlers { handler(event) }
        }
    }

    func tearDown() {}
}
