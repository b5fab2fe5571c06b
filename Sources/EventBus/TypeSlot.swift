import Synchronization

/// Everything the bus keeps about one event type.
///
/// Guarded by the bus's lock, except ``counters``, ``subscriberCount`` and ``current``, which are
/// atomic, and ``entries``, which this slot's ``lock`` also guards: whoever changes ``entries``
/// holds the bus's lock and then this one (never the reverse order), so holding either is enough
/// to read them.
///
/// A publish takes no lock at all: it reads an ``EntrySnapshot`` of the list through
/// ``protectedSnapshot(announcingIn:)``, so that publishes of one type from several threads
/// write nothing in common. A change to the list retires the snapshot, which is freed, with the
/// entries removed since, once no publish reads it (see ``collectRetired(protected:into:)``).
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
    /// The address of the snapshot of ``entries`` (retained), or 0 when none has been built
    /// since the last change. Written under ``lock``.
    private let current = Atomic<UInt>(0)
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
    /// Snapshots no longer current that a publish may still be reading; guarded by the bus's lock.
    @exclusivity(unchecked) private var retiredSnapshots: [EntrySnapshot] = []
    /// Entries removed from the list that a retired snapshot may still point to (snapshots do
    /// not retain their entries); kept alive here until no publish can reach them. Guarded by
    /// the bus's lock.
    @exclusivity(unchecked) private var retiredEntries: [SubscriberEntry] = []

    init(typeID: ObjectIdentifier, name: String, qualifiedName: String) {
        self.typeID = typeID
        self.name = name
        self.qualifiedName = qualifiedName
    }

    deinit {
        let address = current.load(ordering: .acquiring)
        if address != 0 { EntrySnapshot.fromAddress(address).release() }
    }

    /// Whether the list has any entry, as of its last change.
    @inline(__always)
    var hasSubscribers: Bool {
        subscriberCount.load(ordering: .acquiring) > 0
    }

    /// The current snapshot of the list, announced in `hazard` so that it stays allocated, with
    /// every entry in it, until the caller stores 0 there.
    ///
    /// The announcement is a hazard pointer: the snapshot is read, announced with a sequentially
    /// consistent store, and read again; if it is still current, any writer that retires it
    /// afterwards sees the announcement when it looks (``collectRetired(protected:into:)``) and
    /// keeps it. If it changed meanwhile, the new one is announced and checked in turn.
    @inline(__always)
    func protectedSnapshot(announcingIn hazard: borrowing Atomic<UInt>) -> Unmanaged<EntrySnapshot> {
        var address = current.load(ordering: .acquiring)
        while true {
            if address == 0 { address = buildSnapshot() }
            hazard.store(address, ordering: .sequentiallyConsistent)
            let again = current.load(ordering: .sequentiallyConsistent)
            if again == address { return EntrySnapshot.fromAddress(address) }
            address = again
        }
    }

    /// Builds the snapshot of the list unless another publish did since the last change;
    /// returns the current one's address.
    private func buildSnapshot() -> UInt {
        lock.lock()
        defer { lock.unlock() }
        let existing = current.load(ordering: .acquiring)
        if existing != 0 { return existing }
        let address = EntrySnapshot(entries).retainedAddress
        current.store(address, ordering: .sequentiallyConsistent)
        return address
    }

    /// Takes the current snapshot out, when there is one, to keep until no publish reads it.
    /// The caller holds the bus's lock and this slot's lock, and is changing the list.
    private func retireCurrentSnapshot() {
        let address = current.exchange(0, ordering: .sequentiallyConsistent)
        if address != 0 { retiredSnapshots.append(EntrySnapshot.fromAddress(address).takeRetainedValue()) }
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
            retireCurrentSnapshot()
        }
        return twins
    }

    /// Removes the entries matching `predicate`, keeping the others in order; returns them.
    /// The caller holds the bus's lock; the slot keeps the entries too, until no publish can
    /// reach them through a retired snapshot (see ``collectRetired(protected:into:)``).
    func removeEntries(where predicate: (SubscriberEntry) -> Bool) -> [SubscriberEntry] {
        var removed: [SubscriberEntry] = []
        lock.withLock {
            entries.removeAll { entry in
                guard predicate(entry) else { return false }
                removed.append(entry)
                return true
            }
            subscriberCount.store(entries.count, ordering: .releasing)
            if !removed.isEmpty { retireCurrentSnapshot() }
        }
        for entry in removed {
            guard let observerID = entry.observerID else { continue }
            let remaining = entriesPerObserver[observerID, default: 1] - 1
            entriesPerObserver[observerID] = remaining > 0 ? remaining : nil
        }
        if !retiredSnapshots.isEmpty { retiredEntries += removed }
        return removed
    }

    /// Whether retired snapshots or entries wait to be freed.
    var hasRetired: Bool {
        !retiredSnapshots.isEmpty || !retiredEntries.isEmpty
    }

    /// Hands the retired snapshots that no publish announces, and the retired entries that no
    /// announced snapshot holds, to `released`, for the caller to let go of once it has
    /// released the bus's lock (their `deinit`s may run user code). Returns whether any are
    /// still in use. The caller holds the bus's lock.
    ///
    /// - Parameter protected: Every thread's announced snapshot addresses (see
    ///   ``DeliveryMarker/announcedSnapshots()``), read after the snapshots were retired.
    func collectRetired(protected: Set<UInt>, into released: inout [AnyObject]) -> Bool {
        var inUse: [EntrySnapshot] = []
        for snapshot in retiredSnapshots {
            if protected.contains(snapshot.address) {
                inUse.append(snapshot)
            } else {
                released.append(snapshot)
            }
        }
        retiredSnapshots = inUse
        if inUse.isEmpty {
            released += retiredEntries as [AnyObject]
            retiredEntries = []
            return false
        }
        let reachable = Set(inUse.flatMap(\.entryAddresses))
        var stillReachable: [SubscriberEntry] = []
        for entry in retiredEntries {
            if reachable.contains(UInt(bitPattern: ObjectIdentifier(entry))) {
                stillReachable.append(entry)
            } else {
                released.append(entry)
            }
        }
        retiredEntries = stillReachable
        return true
    }
}
