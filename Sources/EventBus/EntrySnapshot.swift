/// An immutable copy of one event type's subscriber list, which publishes read without a lock.
///
/// The entries are held unretained, so that building a snapshot copies pointers and touches no
/// reference count: the list they were copied from holds them, and an entry removed from it is
/// kept by its slot until no publish can reach it through a snapshot (see
/// ``TypeSlot/collectRetired(protected:into:)``).
final class EntrySnapshot {
    /// How many entries the snapshot holds.
    let count: Int
    private let storage: UnsafeMutablePointer<Unmanaged<SubscriberEntry>>

    /// Copies `entries`, in order.
    init(_ entries: [SubscriberEntry]) {
        count = entries.count
        storage = .allocate(capacity: max(1, entries.count))
        for (index, entry) in entries.enumerated() {
            (storage + index).initialize(to: Unmanaged.passUnretained(entry))
        }
    }

    deinit {
        storage.deallocate()
    }

    /// The entry at `index`, unretained.
    @inline(__always)
    subscript(index: Int) -> Unmanaged<SubscriberEntry> {
        storage[index]
    }

    /// The snapshot's address, as announced by publishes reading it.
    var address: UInt {
        UInt(bitPattern: ObjectIdentifier(self))
    }

    /// The addresses of the entries the snapshot holds.
    var entryAddresses: [UInt] {
        (0..<count).map { UInt(bitPattern: storage[$0].toOpaque()) }
    }

    /// The snapshot's address, with one more reference held for whoever stores it.
    var retainedAddress: UInt {
        UInt(bitPattern: Unmanaged.passRetained(self).toOpaque())
    }

    /// The snapshot at `address`, unretained.
    @inline(__always)
    static func fromAddress(_ address: UInt) -> Unmanaged<EntrySnapshot> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: address)!)
    }
}
