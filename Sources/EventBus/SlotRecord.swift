/// What the bus's lock guards about one event type: who holds entries in its list, and how
/// the subscriptions that left it ended.
///
/// Part of ``BusState``; the list itself is in the ``TypeSlot``, which publishes read.
struct SlotRecord {
    /// The slot this record is about.
    let slot: TypeSlot
    /// How many entries each observer has in the list, to notice the same observer subscribing
    /// twice without scanning the list.
    var entriesPerObserver: [ObjectIdentifier: Int] = [:]
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

    /// Notes that `entry` joined the list; returns how many entries its observer had before.
    mutating func noteAdded(_ entry: SubscriberEntry) -> Int {
        guard let observerID = entry.observerID else { return 0 }
        let existing = entriesPerObserver[observerID, default: 0]
        entriesPerObserver[observerID] = existing + 1
        return existing
    }

    /// Notes that `removed` left the list.
    mutating func noteRemoved(_ removed: [SubscriberEntry]) {
        for entry in removed {
            guard let observerID = entry.observerID else { continue }
            let remaining = entriesPerObserver[observerID, default: 1] - 1
            entriesPerObserver[observerID] = remaining > 0 ? remaining : nil
        }
    }
}
