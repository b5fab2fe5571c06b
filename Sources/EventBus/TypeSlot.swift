import Synchronization

/// What publishes of one event type read: its subscriber list, the snapshot of that list, and
/// its counters.
///
/// Every field is immutable, atomic, or guarded by the list's own lock. The list changes only
/// through ``BusState``, which holds the bus's lock meanwhile and keeps its bookkeeping of the
/// list (``SlotRecord``) in step; the bus's lock is always taken before this one.
///
/// A publish takes no lock at all: it reads an ``EntrySnapshot`` of the list through
/// ``protectedSnapshot(announcingIn:)``, so that publishes of one type from several threads
/// write nothing in common. A change to the list retires the snapshot, which is freed, with the
/// entries removed since, once no publish reads it (see `SnapshotPublication.swift`).
final class TypeSlot: Sendable {
    /// The event type's identity, the key of the bus's table of slots.
    let typeID: ObjectIdentifier
    let name: String
    let qualifiedName: String
    let counters = TypeCounters()
    /// How many entries the list holds, stored after every change, so that a publish can skip
    /// the wildcard list when nobody watches every event.
    let subscriberCount = Atomic<Int>(0)
    /// The ``ProtocolRoutes/generation`` as of which this type is known to conform to no
    /// subscribed protocol; equal to the bus's, a publish skips the protocols without a lock.
    let noProtocolRoutesAsOf = Atomic<Int>(0)
    /// The routes of the subscribed protocols this type conforms to, and the generation they
    /// were found at; read only when the type conforms to one.
    let protocolMatches = LockedValue<(generation: Int, routes: [any ProtocolRouting])>((0, []))
    /// Subscribers in subscription order. The lock also guards publishing and retiring
    /// ``published``.
    private let list = LockedValue<[SubscriberEntry]>([])
    /// The snapshot of the list that publishes read, when one was built since the last change.
    private let published = SnapshotPublication()

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
    func protectedSnapshot(announcingIn hazard: borrowing SnapshotHazard) -> UnsafeReference<EntrySnapshot> {
        published.snapshot(announcingIn: hazard) { buildSnapshot() }
    }

    /// Builds the snapshot of the list unless another publish did since the last change;
    /// returns the current one.
    @inline(never)
    private func buildSnapshot() -> UnsafeReference<EntrySnapshot> {
        list.withLock { published.publishIfNeeded($0) }
    }

    /// A copy of the entries, in order.
    @inline(__always)
    func copyEntries() -> [SubscriberEntry] {
        list.withLock { $0 }
    }

    /// Appends `entry`; returns the snapshot the change retired, for ``RetiredSnapshots``.
    /// Called by ``BusState`` only.
    func append(_ entry: SubscriberEntry) -> EntrySnapshot? {
        list.withLock { entries in
            entries.append(entry)
            subscriberCount.store(entries.count, ordering: .releasing)
            return published.retire()
        }
    }

    /// Removes the entries matching `predicate`, keeping the others in order; returns them, and
    /// the snapshot the change retired, for ``RetiredSnapshots``. Called by ``BusState`` only.
    func removeEntries(
        where predicate: (SubscriberEntry) -> Bool
    ) -> (removed: [SubscriberEntry], retired: EntrySnapshot?) {
        list.withLock { entries in
            var removed: [SubscriberEntry] = []
            entries.removeAll { entry in
                guard predicate(entry) else { return false }
                removed.append(entry)
                return true
            }
            subscriberCount.store(entries.count, ordering: .releasing)
            return (removed, removed.isEmpty ? nil : published.retire())
        }
    }
}
