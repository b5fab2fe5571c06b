import Synchronization

/// The entry whose handler one thread is running, published for `cancel()` on other threads.
///
/// A delivery must not start once `cancel()` has returned, and `cancel()` waits for calls that
/// already started. Counting calls in the entry's own atomic word does both, but costs two
/// atomic read-modify-writes per delivery on a cache line that every publishing thread writes.
/// The outermost delivery loop of each thread instead announces the entry in its own marker
/// (one sequentially consistent store on a line only this thread writes), then reads the
/// entry's cancelled flag; `cancel()` sets the flag, then waits while any thread's marker
/// names the entry. Sequential consistency orders the two pairs of operations: either the
/// publisher's load sees the flag and skips the handler, or the canceller's load sees the
/// marker and waits for the handler to return (the publisher clears the marker with a release
/// store, so the handler's effects are visible when `cancel()` returns).
///
/// A thread has one marker, so only its outermost delivery uses it; a delivery nested inside a
/// handler (another bus published from a handler) or run on a subscriber's queue still counts
/// in the entry's word, and `cancel()` waits for both.
///
/// The marker also announces the two subscriber lists the outermost delivery reads, typed and
/// wildcard, as hazard pointers (see ``SnapshotHazard``).
final class DeliveryMarker: Sendable {
    /// The entry being delivered, unretained (the list being read holds it), or `nil`.
    private let deliveredEntry = Atomic<UnsafeReference<SubscriberEntry>?>(nil)
    /// The typed subscribers' ``EntrySnapshot`` being read.
    let typedSnapshot = SnapshotHazard()
    /// The wildcard observers' ``EntrySnapshot`` being read.
    let wildcardSnapshot = SnapshotHazard()
    /// How many cancellers sleep until this thread's handler returns; read by this thread only,
    /// on a line it writes anyway, after each handler.
    private let waitingCancellers = Atomic<Int>(0)

    /// Every registered thread's marker; a thread registers before its first delivery.
    private static let registered = LockedValue<[DeliveryMarker]>([])

    private init() {}

    /// A marker for the calling thread, registered so that cancellers see it.
    static func registerNew() -> DeliveryMarker {
        let marker = DeliveryMarker()
        registered.withLock { $0.append(marker) }
        return marker
    }

    /// Stops watching `marker`, whose thread is exiting and delivers nothing any more.
    static func unregister(_ marker: DeliveryMarker) {
        registered.withLock { markers in markers.removeAll { $0 === marker } }
    }

    /// Announces that the calling thread is about to call `entry`'s handler.
    ///
    /// Must be followed by a check of the entry's cancelled flag with
    /// a sequentially consistent load, as ``SubscriberEntry/beginDelivery(_:)`` does, and by ``end()``.
    @inline(__always)
    func begin(_ entry: SubscriberEntry) {
        deliveredEntry.store(UnsafeReference(unretained: entry), ordering: .sequentiallyConsistent)
    }

    /// Announces that the handler announced by ``begin(_:)`` returned or was skipped.
    @inline(__always)
    func end() {
        deliveredEntry.store(nil, ordering: .releasing)
        if waitingCancellers.load(ordering: .relaxed) > 0 { CancellationWait.shared.wakeWaiters() }
    }

    /// Notes a canceller about to sleep until this marker's thread ends its delivery.
    func addWaitingCanceller() {
        _ = waitingCancellers.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }

    /// Notes that a canceller noted by ``addWaitingCanceller()`` has stopped waiting.
    func removeWaitingCanceller() {
        _ = waitingCancellers.wrappingSubtract(1, ordering: .relaxed)
    }

    /// The markers of every thread registered so far, to pass to ``isDelivering(_:)``.
    ///
    /// Take the snapshot after marking the entry cancelled with a sequentially consistent
    /// operation: a thread that registers later sees the flag and never calls the handler.
    static func registeredMarkers() -> [DeliveryMarker] {
        registered.current
    }

    /// The snapshot addresses every registered thread announces now.
    ///
    /// Read after retiring snapshots with a sequentially consistent operation: a thread that
    /// announces one of them later finds it no longer current and never reads it.
    static func announcedSnapshots() -> Set<UnsafeMutableRawPointer> {
        var addresses = Set<UnsafeMutableRawPointer>()
        for marker in registered.current {
            if let typed = marker.typedSnapshot.announcedAddress { addresses.insert(typed) }
            if let wildcard = marker.wildcardSnapshot.announcedAddress { addresses.insert(wildcard) }
        }
        return addresses
    }

    /// Whether this marker's thread is running `entry`'s handler as its outermost delivery.
    func isDelivering(_ entry: SubscriberEntry) -> Bool {
        deliveredEntry.load(ordering: .sequentiallyConsistent)?.opaque
            == UnsafeReference(unretained: entry).opaque
    }
}
