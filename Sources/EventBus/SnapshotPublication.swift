import Synchronization

// How a publish reads a subscriber list without taking a lock, and how a change to the list
// frees what the publish may still be reading: every hazard pointer of the bus is in this file,
// and its references are counted through UnsafeReference (invariants 4 and 5 there).
//
// Invariants:
// 1. A slot's current snapshot is owned by its ``SnapshotPublication``: one reference, taken in
//    ``SnapshotPublication/publishIfNeeded(_:)``, handed over in ``SnapshotPublication/retire()``
//    or given up when the publication is destroyed. It is published and retired under the lock
//    that guards the list it copies.
// 2. A publish reads a snapshot only while its thread's ``SnapshotHazard`` announces it, and
//    only after finding it still current once announced (sequentially consistent store, then
//    load); a thread announces at most one snapshot per hazard, and withdraws it when done.
// 3. A retired snapshot is owned by ``RetiredSnapshots`` until a collection, which reads every
//    hazard after the snapshot was retired, finds none announcing it. A publish that announces
//    it later finds it no longer current, and never reads it.
// 4. A snapshot holds its entries unretained. An entry removed from the list while a retired
//    snapshot waits is kept by ``RetiredSnapshots`` until no retired snapshot still in use holds
//    it; an entry removed while none waits is in no snapshot anyone can read.
// 5. An announced snapshot may already be freed (a publish may announce one just as it is
//    retired and collected), so collections compare announced snapshots by address only.

/// One thread's announcement of the snapshot it is reading: a hazard pointer.
///
/// Each thread's ``DeliveryMarker`` has two, for the typed and the wildcard list of its
/// outermost delivery; a collection reads them all (see ``DeliveryMarker/announcedSnapshots()``).
struct SnapshotHazard: ~Copyable, Sendable {
    /// The snapshot being read, or `nil`.
    private let announced = Atomic<UnsafeReference<EntrySnapshot>?>(nil)

    /// Creates a hazard that announces nothing.
    init() {}

    /// The announced snapshot's address, to compare with retired ones; never dereferenced, since
    /// the snapshot may already be freed.
    var announcedAddress: UnsafeMutableRawPointer? {
        announced.load(ordering: .sequentiallyConsistent)?.opaque
    }

    /// Announces `snapshot`, before checking that it is still current.
    @inline(__always)
    fileprivate func announce(_ snapshot: UnsafeReference<EntrySnapshot>) {
        announced.store(snapshot, ordering: .sequentiallyConsistent)
    }

    /// Ends the announcement made by ``SnapshotPublication/snapshot(announcingIn:building:)``;
    /// the snapshot must not be read afterwards.
    @inline(__always)
    func withdraw() {
        announced.store(nil, ordering: .releasing)
    }
}

/// A subscriber list's current snapshot, which publishes read without a lock.
///
/// Readers call ``snapshot(announcingIn:building:)``; writers, holding the lock that guards
/// the list, call ``publishIfNeeded(_:)`` to build one and ``retire()`` when the list changes.
struct SnapshotPublication: ~Copyable, Sendable {
    /// The current snapshot, retained, or `nil` when none was built since the last change.
    private let current = Atomic<UnsafeReference<EntrySnapshot>?>(nil)

    /// Creates a publication with no snapshot yet.
    init() {}

    deinit {
        if let snapshot = current.load(ordering: .acquiring) {
            RetainedReference(adopting: snapshot).release()
        }
    }

    /// The current snapshot, announced in `hazard` so that it stays allocated, with every entry
    /// in it, until the caller withdraws the announcement.
    ///
    /// The snapshot is read, announced with a sequentially consistent store, and read again; if
    /// it is still current, any writer that retires it afterwards sees the announcement when it
    /// collects, and keeps it. If it changed meanwhile, the new one is announced and checked in
    /// turn.
    ///
    /// - Parameters:
    ///   - hazard: The calling thread's hazard for this list, announcing nothing.
    ///   - build: Publishes a snapshot of the list, when there is none; see
    ///     ``publishIfNeeded(_:)``.
    /// - Returns: The snapshot, unretained: the announcement keeps it.
    @inline(__always)
    func snapshot(
        announcingIn hazard: borrowing SnapshotHazard, building build: () -> UnsafeReference<EntrySnapshot>
    ) -> UnsafeReference<EntrySnapshot> {
        #if DEBUG
            assert(hazard.announcedAddress == nil, "a hazard announces one snapshot at a time")
        #endif
        var snapshot = current.load(ordering: .acquiring)
        while true {
            let candidate = snapshot ?? build()
            hazard.announce(candidate)
            let again = current.load(ordering: .sequentiallyConsistent)
            if again?.opaque == candidate.opaque { return candidate }
            snapshot = again
        }
    }

    /// Publishes a snapshot of `entries` unless one is current; returns the current one.
    ///
    /// The caller holds the lock that guards the list `entries` is.
    func publishIfNeeded(_ entries: [SubscriberEntry]) -> UnsafeReference<EntrySnapshot> {
        if let existing = current.load(ordering: .acquiring) { return existing }
        let snapshot = RetainedReference(retaining: EntrySnapshot(entries)).handOver()
        current.store(snapshot, ordering: .sequentiallyConsistent)
        return snapshot
    }

    /// Takes the current snapshot out, when there is one, for the caller to hand to
    /// ``RetiredSnapshots/retire(_:removing:)``. The caller holds the lock that guards the list,
    /// and is changing it.
    func retire() -> EntrySnapshot? {
        guard let snapshot = current.exchange(nil, ordering: .sequentiallyConsistent) else { return nil }
        return RetainedReference(adopting: snapshot).take()
    }
}

/// Retired snapshots, and entries removed since, kept until no publish can read them.
///
/// Guarded by the lock of whoever owns it. Nothing is freed under that lock:
/// ``collect(into:)`` hands what may go to the caller, to let go of once the lock is released
/// (their `deinit`s may run user code).
struct RetiredSnapshots {
    private var snapshots: [EntrySnapshot] = []
    /// Entries removed from the list that a retired snapshot may still point to.
    private var entries: [SubscriberEntry] = []

    /// Whether anything waits to be freed.
    var isEmpty: Bool {
        snapshots.isEmpty && entries.isEmpty
    }

    /// Keeps `snapshot`, just retired, and `removed`, entries just taken out of the list, for as
    /// long as a publish may read them.
    mutating func retire(_ snapshot: EntrySnapshot?, removing removed: [SubscriberEntry]) {
        if let snapshot { snapshots.append(snapshot) }
        // With no retired snapshot waiting, no publish can reach the removed entries any more.
        if !snapshots.isEmpty { entries += removed }
        checkInvariants()
    }

    /// Hands the retired snapshots that no thread announces, and the removed entries that no
    /// announced snapshot holds, to `released`.
    ///
    /// Reads every thread's hazards, after the snapshots were retired with a sequentially
    /// consistent operation. What is still in use waits for a later collection.
    mutating func collect(into released: inout [AnyObject]) {
        guard !isEmpty else { return }
        let announced = DeliveryMarker.announcedSnapshots()
        var inUse: [EntrySnapshot] = []
        for snapshot in snapshots {
            if announced.contains(UnsafeReference(unretained: snapshot).opaque) {
                inUse.append(snapshot)
            } else {
                released.append(snapshot)
            }
        }
        snapshots = inUse
        if inUse.isEmpty {
            released += entries as [AnyObject]
            entries = []
        } else {
            let reachable = Set(inUse.flatMap(\.entryAddresses))
            var stillReachable: [SubscriberEntry] = []
            for entry in entries {
                if reachable.contains(UnsafeReference(unretained: entry).opaque) {
                    stillReachable.append(entry)
                } else {
                    released.append(entry)
                }
            }
            entries = stillReachable
        }
        checkInvariants()
    }

    /// Checks, in debug builds, that nothing is kept twice and that entries wait only behind a
    /// snapshot.
    private func checkInvariants() {
        #if DEBUG
            let snapshotAddresses = Set(snapshots.map { ObjectIdentifier($0) })
            assert(snapshotAddresses.count == snapshots.count, "a snapshot was retired twice")
            assert(
                Set(entries.map { ObjectIdentifier($0) }).count == entries.count, "an entry was retired twice"
            )
            assert(
                entries.isEmpty || !snapshots.isEmpty, "entries wait without a snapshot that may hold them")
        #endif
    }
}
