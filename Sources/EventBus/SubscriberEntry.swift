import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One subscription as the bus stores it.
///
/// Entries are shared between the bus's tables, the token given to the subscriber and the copies
/// of the subscriber list that a publisher iterates outside the lock. Their mutable parts are an
/// atomic state word and a weak reference set once at creation, so sharing them is safe.
class SubscriberEntry: @unchecked Sendable {
    /// The bit of ``state`` set once the entry is cancelled, unsubscribed or reclaimed.
    static let cancelledBit = 1 << 62
    /// The bit of ``state`` set once a canceller sleeps waiting for deliveries to return, so
    /// that the last one wakes it.
    static let waiterBit = 1 << 61
    /// The bits of ``state`` that count deliveries in progress.
    static let inFlightMask = waiterBit - 1

    let id: UInt64
    /// The counters of the event type this entry listens to.
    let counters: TypeCounters
    /// The observer's identity, kept apart from the weak reference because a weak reference
    /// already reads `nil` inside the observer's `deinit`, where `unsubscribe(observer:)` runs.
    let observerID: ObjectIdentifier?
    /// The observer's class, for monitors.
    let observerType: AnyObject.Type?
    weak var observer: AnyObject?
    /// Where the handler runs when not on the publisher's thread: a dispatch queue, or the
    /// actor the handler is isolated to. `nil` means on the publisher's thread, before `publish`
    /// returns.
    let scheduler: (any DeliveryScheduler)?
    /// ``cancelledBit`` plus the number of deliveries that have started and not yet returned.
    let state = Atomic<Int>(0)

    init(
        id: UInt64, counters: TypeCounters, observer: AnyObject?, scheduler: (any DeliveryScheduler)?
    ) {
        self.id = id
        self.counters = counters
        self.observer = observer
        self.observerID = observer.map { ObjectIdentifier($0) }
        self.observerType = observer.map { type(of: $0) }
        self.scheduler = scheduler
    }

    /// Whether the entry is bound to an observer object that has been deallocated.
    var isDead: Bool {
        observerID != nil && observer == nil
    }

    var isCancelled: Bool {
        state.load(ordering: .acquiring) & Self.cancelledBit != 0
    }

    /// Marks the entry cancelled; returns `false` if it already was.
    func markCancelled() -> Bool {
        let old = state.bitwiseOr(Self.cancelledBit, ordering: .sequentiallyConsistent).oldValue
        return old & Self.cancelledBit == 0
    }

    /// Counts a delivery as started unless the entry is cancelled.
    ///
    /// The increment and the cancel flag share one atomic word, so a delivery either starts
    /// before `cancel()` (which then waits for it) or sees the flag and never starts.
    @inline(__always)
    func beginDelivery() -> Bool {
        let old = state.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
        if old & Self.cancelledBit != 0 {
            state.wrappingSubtract(1, ordering: .releasing)
            return false
        }
        return true
    }

    @inline(__always)
    func endDelivery() {
        let old = state.wrappingSubtract(1, ordering: .releasing).oldValue
        if old & Self.waiterBit != 0 { CancellationWait.shared.wakeWaiters() }
    }

    /// Starts a delivery on the publisher's thread: announced in `marker` when the thread's
    /// outermost delivery loop provides one (see ``DeliveryMarker``), counted otherwise.
    /// Returns `false`, having undone the announcement, if the entry is cancelled.
    ///
    /// The marker is passed unretained: the thread's state owns it for the thread's lifetime,
    /// and retaining it here would add two atomic operations per delivery.
    @inline(__always)
    func beginDelivery(_ marker: Unmanaged<DeliveryMarker>?) -> Bool {
        guard let marker else { return beginDelivery() }
        return marker._withUnsafeGuaranteedRef { marker in
            marker.begin(self)
            // Sequentially consistent, to pair with `markCancelled()` and the canceller's
            // reading of the marker; on x86 and arm64 this costs no more than an acquiring load.
            if state.load(ordering: .sequentiallyConsistent) & Self.cancelledBit != 0 {
                marker.end()
                return false
            }
            return true
        }
    }

    @inline(__always)
    func endDelivery(_ marker: Unmanaged<DeliveryMarker>?) {
        if let marker {
            marker._withUnsafeGuaranteedRef { $0.end() }
        } else {
            endDelivery()
        }
    }

    /// Waits until no delivery to this entry is running on another thread.
    ///
    /// Called after the entry is marked cancelled, and only from threads that are not inside a
    /// handler themselves, so the wait cannot close a cycle of threads waiting on each other.
    /// Most handlers return within microseconds, so the canceller yields a few times first;
    /// after that it sleeps in ``CancellationWait`` until the deliveries it waits for end.
    func waitForDeliveriesInProgress() {
        let markers = DeliveryMarker.registeredMarkers()
        func isDone() -> Bool {
            state.load(ordering: .acquiring) & Self.inFlightMask == 0
                && !markers.contains(where: { $0.isDelivering(self) })
        }
        for _ in 0..<16 {
            if isDone() { return }
            sched_yield()
        }
        _ = state.bitwiseOr(Self.waiterBit, ordering: .sequentiallyConsistent)
        // Only a thread running the handler now can be running it later (the entry is already
        // cancelled), so only those threads are asked to wake this one.
        let delivering = markers.filter { $0.isDelivering(self) }
        for marker in delivering { marker.addWaitingCanceller() }
        CancellationWait.shared.wait(until: isDone)
        for marker in delivering { marker.removeWaitingCanceller() }
    }
}

/// The outcome of offering an event to one entry.
enum DeliveryOutcome {
    case delivered
    /// Handed to the subscriber's queue or actor; counted as delivered when the handler runs.
    case scheduled
    case skipped
    case observerDied
}

/// A subscription to one event type, or to every event when `Payload` is `any Event`.
final class Entry<Payload>: SubscriberEntry, @unchecked Sendable {
    let handler: @Sendable (Payload) -> Void

    init(
        id: UInt64, counters: TypeCounters, observer: AnyObject?, scheduler: (any DeliveryScheduler)?,
        handler: @escaping @Sendable (Payload) -> Void
    ) {
        self.handler = handler
        super.init(id: id, counters: counters, observer: observer, scheduler: scheduler)
    }

    /// Offers `event` to the handler, on this thread or through the entry's scheduler.
    ///
    /// - Parameter marker: The calling thread's ``DeliveryMarker`` when this is its outermost
    ///   delivery loop, or `nil` to count the delivery in the entry instead.
    @inline(__always)
    func offer(
        _ event: Payload, marker: Unmanaged<DeliveryMarker>? = nil
    ) -> DeliveryOutcome where Payload: Sendable {
        if let scheduler, let outcome = offerThroughScheduler(event, scheduler) {
            return outcome
        }
        if observerID == nil {
            guard beginDelivery(marker) else { return .skipped }
            handler(event)
            endDelivery(marker)
            return .delivered
        }
        // Holding the observer strongly for the call keeps it alive until the handler returns.
        guard let observer else { return .observerDied }
        guard beginDelivery(marker) else { return .skipped }
        handler(event)
        endDelivery(marker)
        // Not `withExtendedLifetime(observer) {}`: its generic body was not inlined here and
        // cost a call and about 40 instructions per delivery; this keeps the same guarantee.
        _fixLifetime(observer)
        return .delivered
    }

    /// Hands `event` to the scheduler, or returns `nil` when it may run here and now.
    ///
    /// Kept out of line: the publish path inlines ``offer(_:marker:)`` for every list, and the
    /// plain handlers' path stays as small as it was without this branch.
    @inline(never)
    private func offerThroughScheduler(
        _ event: Payload, _ scheduler: any DeliveryScheduler
    ) -> DeliveryOutcome? where Payload: Sendable {
        if isCancelled { return .skipped }
        if observerID != nil && observer == nil { return .observerDied }
        // A main-actor handler offered an event on the main actor runs now, like the plain
        // handlers around it; everything else waits for its queue or actor.
        if scheduler.runsInlineNow() { return nil }
        scheduler.schedule { self.deliverScheduled(event) }
        return .scheduled
    }

    /// Runs the handler for a delivery that waited on a queue or an actor, unless the entry was
    /// cancelled or its observer died meanwhile. The waiting job holds the entry, never the
    /// observer, so a queued delivery does not keep a screen alive.
    private func deliverScheduled(_ event: Payload) {
        let observer = self.observer
        if observerID != nil && observer == nil { return }
        guard beginDelivery() else { return }
        let thread = DispatchThreadState.current
        thread.queuedHandlerDepth += 1
        handler(event)
        thread.queuedHandlerDepth -= 1
        endDelivery()
        withExtendedLifetime(observer) {}
        counters.recordDeliveries(1)
    }
}

/// 64 bytes of nothing, placed around data that publishes write so that no other object (nor
/// the header of the one holding it, whose reference count is written on retains) shares its
/// cache lines: a line written by two threads moves between their cores on every write.
///
/// Swift lays out a class's stored properties in declaration order, after a 16-byte header, in
/// blocks aligned to 16 bytes; a padding before and one after the written fields therefore
/// keep every line those fields touch inside the object.
struct CacheLinePadding: Sendable {
    private let words: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
}

/// Counters of one event type that publishes update without taking a lock.
///
/// Each thread adds to one of several stripes, chosen by ``DispatchThreadState/counterStripe``,
/// each on cache lines of its own: two threads publishing the same type at once then write
/// different lines, where one shared counter would move its line between their cores on every
/// publish. Reading sums the stripes, exact once the publishes being counted have returned.
final class TypeCounters: Sendable {
    /// How many stripes each type has: the processors online rounded up to a power of two, at
    /// most 16, since threads beyond that share stripes anyway.
    static let stripeCount: Int = {
        let processors = max(1, min(16, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        var count = 1
        while count < processors { count <<= 1 }
        return count
    }()

    /// Retained here and released in `deinit`, so that a publish can borrow its stripe
    /// instead of retaining and releasing it.
    private let stripes: [Unmanaged<CounterStripe>]

    init() {
        stripes = (0..<Self.stripeCount).map { _ in Unmanaged.passRetained(CounterStripe()) }
    }

    deinit {
        for stripe in stripes { stripe.release() }
    }

    /// The stripe a thread with the given stripe number adds to, unretained: it lives as long
    /// as these counters.
    @inline(__always)
    func stripe(_ number: Int) -> Unmanaged<CounterStripe> {
        stripes[number & (Self.stripeCount - 1)]
    }

    /// Counts deliveries made on the calling thread, outside a publish's own counting.
    func recordDeliveries(_ count: Int) {
        stripe(DispatchThreadState.current.counterStripe)._withUnsafeGuaranteedRef {
            _ = $0.delivered.wrappingAdd(count, ordering: .relaxed)
        }
    }

    var publishedCount: Int { sum { $0.published.load(ordering: .relaxed) } }
    var deliveredCount: Int { sum { $0.delivered.load(ordering: .relaxed) } }
    var unheardCount: Int { sum { $0.unheard.load(ordering: .relaxed) } }

    private func sum(_ counter: (CounterStripe) -> Int) -> Int {
        stripes.reduce(0) { total, stripe in total + stripe._withUnsafeGuaranteedRef(counter) }
    }
}

/// One stripe of ``TypeCounters``, alone on its cache lines.
final class CounterStripe: Sendable {
    private let leadingPadding = CacheLinePadding()
    let published = Atomic<Int>(0)
    let delivered = Atomic<Int>(0)
    let unheard = Atomic<Int>(0)
    private let trailingPadding = CacheLinePadding()
}

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
