/// What the bus's lock guards about one event type: who holds entries in its list, and how
/// the subscriptions that left it ended.
///
/// Part of ``BusState``; the list itself is in the ``TypeSlot``, which publishes read.
struct SlotRecord {
    /// The slot this record is about.
    let slot: TypeSlot
    /// The entries each observer has in the list, to notice the same observer subscribing
    /// twice without scanning the list (an observer's address is reused by a later one often
    /// enough, before the dead one's entries go, that a scan per subscription was the largest
    /// cost of subscribing).
    var entriesPerObserver: [ObjectIdentifier: [SubscriberEntry]] = [:]
    /// Entries removed because their observer was deallocated.
    var reclaimed = 0
    /// Entries removed by `unsubscribe(observer:)`.
    var unsubscribed = 0
    /// Entries removed by `Subscription.cancel()`.
    var cancelled = 0
    /// Subscriptions made by an observer that already had one here.
    var duplicates = 0

    /// Creates the record of a slot with an empty list.
    init(slot: TypeSlot) {
        self.slot = slot
    }

    /// Whether any entry in the list is bound to an observer object, and may die with it.
    var hasObservers: Bool {
        !entriesPerObserver.isEmpty
    }

    /// Notes that `entry` joined the list; returns the entries its observer had there before.
    mutating func noteAdded(_ entry: SubscriberEntry) -> [SubscriberEntry] {
        guard let observerID = entry.observerID else { return [] }
        let existing = entriesPerObserver[observerID] ?? []
        entriesPerObserver[observerID] = existing + [entry]
        return existing
    }

    /// Notes that `removed` left the list.
    mutating func noteRemoved(_ removed: [SubscriberEntry]) {
        for entry in removed {
            guard let observerID = entry.observerID, var remaining = entriesPerObserver[observerID] else {
                continue
            }
            remaining.removeAll { $0 === entry }
            entriesPerObserver[observerID] = remaining.isEmpty ? nil : remaining
        }
    }
}
