import Synchronization

/// Counters of one event type that publishes update without taking a lock.
///
/// Each thread adds to one of several stripes, chosen by ``ThreadDeliveryState/counterStripe``,
/// each on cache lines of its own: two threads publishing the same type at once then write
/// different lines, where one shared counter would move its line between their cores on every
/// publish. Reading sums the stripes, exact once the publishes being counted have returned.
final class TypeCounters: Sendable {
    /// How many stripes each type has: the processors online rounded up to a power of two, at
    /// most 16, since threads beyond that share stripes anyway.
    static let stripeCount: Int = {
        let processors = max(1, min(16, System.processorsOnline))
        var count = 1
        while count < processors { count <<= 1 }
        return count
    }()

    /// The stripes, kept alive by this array.
    private let owned: [CounterStripe]
    /// The same stripes, borrowed (UnsafeReference, invariant 3), so that a publish reads its
    /// stripe without retaining and releasing it.
    private let stripes: [UnsafeReference<CounterStripe>]

    init() {
        owned = (0..<Self.stripeCount).map { _ in CounterStripe() }
        stripes = owned.map { UnsafeReference(unretained: $0) }
    }

    /// The stripe a thread with the given stripe number adds to, unretained: it lives as long
    /// as these counters.
    @inline(__always)
    func stripe(_ number: Int) -> UnsafeReference<CounterStripe> {
        // The mask comes from the array, not from `stripeCount`: a `static let` is initialized
        // lazily, and every read of it calls `swift_once`, twice per publish here.
        stripes[number & (stripes.count - 1)]
    }

    /// Counts deliveries made on the calling thread, outside a publish's own counting.
    func recordDeliveries(_ count: Int) {
        stripe(ThreadDeliveryState.current.counterStripe).borrow {
            _ = $0.delivered.wrappingAdd(count, ordering: .relaxed)
        }
    }

    var publishedCount: Int { sum { $0.published.load(ordering: .relaxed) } }
    var deliveredCount: Int { sum { $0.delivered.load(ordering: .relaxed) } }
    var unheardCount: Int { sum { $0.unheard.load(ordering: .relaxed) } }

    private func sum(_ counter: (CounterStripe) -> Int) -> Int {
        stripes.reduce(0) { total, stripe in total + stripe.borrow(counter) }
    }
}
