/// An immutable copy of one event type's subscriber list, which publishes read without a lock.
///
/// The entries are held unretained, so that building a snapshot copies pointers and touches no
/// reference count: the list they were copied from holds them, and an entry removed from it is
/// kept by its slot until no publish can reach it through a snapshot (see
/// ``RetiredSnapshots``). Snapshots are published and retired in `SnapshotPublication.swift`.
///
/// `@unchecked Sendable`: the storage is written once, in `init`, and only read afterwards.
final class EntrySnapshot: @unchecked Sendable {
    /// How many entries the snapshot holds.
    let count: Int
    private let storage: UnsafeMutablePointer<UnsafeReference<SubscriberEntry>>

    /// Copies `entries`, in order.
    init(_ entries: [SubscriberEntry]) {
        count = entries.count
        storage = .allocate(capacity: max(1, entries.count))
        for (index, entry) in entries.enumerated() {
            (storage + index).initialize(to: UnsafeReference(unretained: entry))
        }
    }

    deinit {
        storage.deallocate()
    }

    /// The entry at `index`, unretained.
    @inline(__always)
    subscript(index: Int) -> UnsafeReference<SubscriberEntry> {
        storage[index]
    }

    /// The entries, unretained, where the snapshot keeps them.
    @inline(__always)
    var entries: UnsafeBufferPointer<UnsafeReference<SubscriberEntry>> {
        UnsafeBufferPointer(start: storage, count: count)
    }

    /// The addresses of the entries the snapshot holds, to compare with retired entries.
    var entryAddresses: [UnsafeMutableRawPointer] {
        (0..<count).map { storage[$0].opaque }
    }
}

extension Array where Element == SubscriberEntry {
    /// Calls `body` with the entries, unretained, in the array's own storage, which the array
    /// keeps (and the entries alive) until `body` returns.
    @inline(__always)
    func withUnretainedEntries<Result>(
        _ body: (UnsafeBufferPointer<UnsafeReference<SubscriberEntry>>) -> Result
    ) -> Result {
        // A strong reference and an `UnsafeReference` (an `Unmanaged`) are one pointer each.
        withUnsafeBufferPointer { $0.withMemoryRebound(to: UnsafeReference<SubscriberEntry>.self, body) }
    }
}
