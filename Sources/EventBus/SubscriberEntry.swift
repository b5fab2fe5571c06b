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
    /// The bits of ``state`` that count deliveries in progress.
    static let inFlightMask = cancelledBit - 1

    let id: UInt64
    /// The counters of the event type this entry listens to.
    let counters: TypeCounters
    /// The observer's identity, kept apart from the weak reference because a weak reference
    /// already reads `nil` inside the observer's `deinit`, where `unsubscribe(observer:)` runs.
    let observerID: ObjectIdentifier?
    /// The observer's class, for monitors.
    let observerType: AnyObject.Type?
    weak var observer: AnyObject?
    /// Where the handler runs; `nil` means on the publisher's thread, before `publish` returns.
    let queue: DispatchQueue?
    /// ``cancelledBit`` plus the number of deliveries that have started and not yet returned.
    let state = Atomic<Int>(0)

    init(
        id: UInt64, counters: TypeCounters, observer: AnyObject?, queue: DispatchQueue?
    ) {
        self.id = id
        self.counters = counters
        self.observer = observer
        self.observerID = observer.map { ObjectIdentifier($0) }
        self.observerType = observer.map { type(of: $0) }
        self.queue = queue
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
        state.wrappingSubtract(1, ordering: .releasing)
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
    func waitForDeliveriesInProgress() {
        let markers = DeliveryMarker.registeredMarkers()
        var spins = 0
        while state.load(ordering: .acquiring) & Self.inFlightMask != 0
            || markers.contains(where: { $0.isDelivering(self) })
        {
            spins += 1
            if spins < 100 {
                sched_yield()
            } else {
                usleep(50)
            }
        }
    }
}

/// The outcome of offering an event to one entry.
enum DeliveryOutcome {
    case delivered
    /// Handed to the subscriber's queue; counted as delivered when the handler runs.
    case scheduled
    case skipped
    case observerDied
}

/// A subscription to one event type, or to every event when `Payload` is `any Event`.
final class Entry<Payload>: SubscriberEntry, @unchecked Sendable {
    let handler: @Sendable (Payload) -> Void

    init(
        id: UInt64, counters: TypeCounters, observer: AnyObject?, queue: DispatchQueue?,
        handler: @escaping @Sendable (Payload) -> Void
    ) {
        self.handler = handler
        super.init(id: id, counters: counters, observer: observer, queue: queue)
    }

    /// Offers `event` to the handler, on this thread or on the entry's queue.
    ///
    /// - Parameter marker: The calling thread's ``DeliveryMarker`` when this is its outermost
    ///   delivery loop, or `nil` to count the delivery in the entry instead.
    @inline(__always)
    func offer(
        _ event: Payload, marker: Unmanaged<DeliveryMarker>? = nil
    ) -> DeliveryOutcome where Payload: Sendable {
        if let queue {
            if isCancelled { return .skipped }
            if observerID != nil && observer == nil { return .observerDied }
            queue.async { self.deliverOnQueue(event) }
            return .scheduled
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

    private func deliverOnQueue(_ event: Payload) {
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

/// Counters of one event type that deliveries update without taking the bus's lock.
final class TypeCounters: Sendable {
    private let leadingPadding = CacheLinePadding()
    let delivered = Atomic<Int>(0)
    let unheard = Atomic<Int>(0)
    private let trailingPadding = CacheLinePadding()

    func recordDeliveries(_ count: Int) {
        delivered.wrappingAdd(count, ordering: .relaxed)
    }

    func recordUnheard() {
        unheard.wrappingAdd(1, ordering: .relaxed)
    }

    var deliveredCount: Int { delivered.load(ordering: .relaxed) }
    var unheardCount: Int { unheard.load(ordering: .relaxed) }
}

/// Everything the bus keeps about one event type.
///
/// Guarded by the bus's lock, except ``counters``, ``subscriberCount``, and ``entries`` and
/// ``published``, which ``lock`` also guards: a publish takes only this slot's lock, so that
/// publishes of different types from different threads share no lock and write no common line.
/// Whoever changes ``entries`` holds the bus's lock and then this one (never the reverse order),
/// so holding either is enough to read them; ``published`` is read and written under ``lock``.
final class TypeSlot {
    /// The event type's identity, the key of the bus's table of slots.
    let typeID: ObjectIdentifier
    let name: String
    let qualifiedName: String
    let counters = TypeCounters()
    /// Guards ``entries`` (with the bus's lock for changes) and ``published``.
    let lock = Lock()
    /// How many entries the list holds, stored after every change, so that a publish can skip
    /// the wildcard list's lock when nobody watches every event.
    let subscriberCount = Atomic<Int>(0)
    // `@exclusivity(unchecked)`: guarded by the locks above, under which no handler runs, so
    // the dynamic exclusivity check could never fire; it would cost a thread-local lookup per
    // access on every publish.

    /// Subscribers in subscription order.
    @exclusivity(unchecked) var entries: [SubscriberEntry] = []
    /// How many entries each observer has here, to notice the same observer subscribing twice
    /// without scanning the list.
    @exclusivity(unchecked) var entriesPerObserver: [ObjectIdentifier: Int] = [:]
    @exclusivity(unchecked) var reclaimed = 0
    @exclusivity(unchecked) var unsubscribed = 0
    @exclusivity(unchecked) var cancelled = 0
    @exclusivity(unchecked) var duplicates = 0
    private let publishedLeadingPadding = CacheLinePadding()
    /// Written by every publish of the type, so kept on cache lines of its own.
    @exclusivity(unchecked) var published = 0
    private let publishedTrailingPadding = CacheLinePadding()

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

    /// The entries and the count of publishes after counting one more; the publish path.
    @inline(__always)
    func countPublishAndCopyEntries() -> [SubscriberEntry] {
        lock.lock()
        published += 1
        let copy = entries
        lock.unlock()
        return copy
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
        }
        return twins
    }

    /// Removes the entries matching `predicate`, keeping the others in order; returns them.
    /// The caller holds the bus's lock, and keeps the returned entries until it releases it.
    func removeEntries(where predicate: (SubscriberEntry) -> Bool) -> [SubscriberEntry] {
        var removed: [SubscriberEntry] = []
        lock.withLock {
            entries.removeAll { entry in
                guard predicate(entry) else { return false }
                removed.append(entry)
                return true
            }
            subscriberCount.store(entries.count, ordering: .releasing)
        }
        for entry in removed {
            guard let observerID = entry.observerID else { continue }
            let remaining = entriesPerObserver[observerID, default: 1] - 1
            entriesPerObserver[observerID] = remaining > 0 ? remaining : nil
        }
        return removed
    }
}
