import Synchronization

/// Everything the bus keeps about one event type.
///
/// Guarded by the bus's lock, except ``counters``, ``subscriberCount`` and ``published``, which are
/// atomic, and ``entries``, which this slot's ``lock`` also guards: whoever changes ``entries``
/// holds the bus's lock and then this one (never the reverse order), so holding either is enough
/// to read them.
///
/// A publish takes no lock at all: it reads an ``EntrySnapshot`` of the list through
/// ``protectedSnapshot(announcingIn:)``, so that publishes of one type from several threads
/// write nothing in common. A change to the list retires the snapshot, which is freed, with the
/// entries removed since, once no publish reads it (see `SnapshotPublication.swift`).
final class TypeSlot {
    /// The event type's identity, the key of the bus's table of slots.
    let typeID: ObjectIdentifier
    let name: String
    let qualifiedName: String
    let counters = TypeCounters()
    /// Guards ``entries`` (with the bus's lock for changes) and the building of snapshots.
    let lock = Lock()
    /// How many entries the list holds, stored after every change, so that a publish can skip
    /// the wildcard list when nobody watches every event.
    let subscriberCount = Atomic<Int>(0)
    /// The snapshot of ``entries`` that publishes read, when one was built since the last
    /// change. Published and retired under ``lock``.
    private let published = SnapshotPublication()
    // `@exclusivity(unchecked)`: guarded by the locks above, under which no handler runs, so
    // the dynamic exclusivity check could never fire; it would cost a thread-local lookup per
    // access.

    /// Subscribers in subscription order.
    @exclusivity(unchecked) private(set) var entries: [SubscriberEntry] = []
    /// How many entries each observer has here, to notice the same observer subscribing twice
    /// without scanning the list.
    @exclusivity(unchecked) var entriesPerObserver: [ObjectIdentifier: Int] = [:]
    @exclusivity(unchecked) var reclaimed = 0
    @exclusivity(unchecked) var unsubscribed = 0
    @exclusivity(unchecked) var cancelled = 0
    @exclusivity(unchecked) var duplicates = 0
    /// Snapshots no longer current that a publish may still be reading, and the entries removed
    /// since; guarded by the bus's lock.
    @exclusivity(unchecked) private var retired = RetiredSnapshots()

    init(typeID: ObjectIdentifier, name: String, qualifiedName: String) {
        self.typeID = typeID
        self.name = name
        self.qualifiedName = qualifiedName
    }

    /// Whether the list has any entry, as of its last change.
    @inline(__always)
    var hasSubscribers: Bool {
        subscriberCount.load(ordering: .acquiring) > 0
    }

    /// The current snapshot of the list, announced in `hazard` so that it stays allocated, with
    /// every entry in it, until the caller withdraws the announcement (see
    /// ``SnapshotPublication/snapshot(announcingIn:building:)``).
    @inline(__always)
    func protectedSnapshot(announcingIn hazard: borrowing SnapshotHazard) -> Unmanaged<EntrySnapshot> {
        published.snapshot(announcingIn: hazard) { buildSnapshot() }
    }

    /// Builds the snapshot of the list unless another publish did since the last change;
    /// returns the current one.
    @inline(never)
    private func buildSnapshot() -> Unmanaged<EntrySnapshot> {
        lock.lock()
        defer { lock.unlock() }
        return published.publishIfNeeded(entries)
    }

    /// A copy of the entries, taken under ``lock`` for a caller without the bus's lock.
    @inline(__always)
    func copyEntries() -> [SubscriberEntry] {
        lock.lock()
        let copy = entries
        lock.unlock()
        return copy
    }

    /// Appends `entry`; returns the entries already here with the same observer identity, so
    /// that the caller can tell, outside the lock, whether it is a duplicate subscription.
    /// The caller holds the bus's lock.
    func add(_ entry: SubscriberEntry) -> [SubscriberEntry] {
        var twins: [SubscriberEntry] = []
        if let observerID = entry.observerID {
            let existing = entriesPerObserver[observerID, default: 0]
            if existing > 0 {
                twins = entries.filter { $0.observerID == observerID }
            }
            entriesPerObserver[observerID] = existing + 1
        }
        lock.withLock {
            entries.append(entry)
            subscriberCount.store(entries.count, ordering: .releasing)
            retired.retire(published.retire(), removing: [])
        }
        return twins
    }

    /// Removes the entries matching `predicate`, keeping the others in order; returns them.
    /// The caller holds the bus's lock; the slot keeps the entries too, until no publish can
    /// reach them through a retired snapshot (see ``collectRetired(into:)``).
    func removeEntries(where predicate: (SubscriberEntry) -> Bool) -> [SubscriberEntry] {
        var removed: [SubscriberEntry] = []
        lock.withLock {
            entries.removeAll { entry in
                guard predicate(entry) else { return false }
                removed.append(entry)
                return true
            }
            subscriberCount.store(entries.count, ordering: .releasing)
            if !removed.isEmpty { retired.retire(published.retire(), removing: removed) }
        }
        for entry in removed {
            guard let observerID = entry.observerID else { continue }
            let remaining = entriesPerObserver[observerID, default: 1] - 1
            entriesPerObserver[observerID] = remaining > 0 ? remaining : nil
        }
        return removed
    }

    /// Whether retired snapshots or entries wait to be freed.
    var hasRetired: Bool {
        !retired.isEmpty
    }

    /// Hands what the list retired and no publish reads any more to `released`, for the caller to
    /// let go of once it has released the bus's lock; returns whether some is still in use. The
    /// caller holds the bus's lock.
    func collectRetired(into released: inout [AnyObject]) -> Bool {
        retired.collect(into: &released)
    }
}
