import Synchronization

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
    /// The bit of ``state`` set while a subscription that asked for the sticky event has not
    /// received it yet: deliveries offered meanwhile wait in its ``StickyHold``, so that the
    /// sticky event comes first and is not received twice.
    static let heldBit = 1 << 60
    /// The bit of ``state`` set for good on a subscription that received a sticky event when it
    /// was made: a publish of that sticky event (or an older one) may still be on its way to
    /// it from another thread, and each offer is checked, out of line, so it is not received
    /// twice, or after a newer one.
    static let replayedBit = 1 << 59
    /// The bits of ``state`` that count deliveries in progress.
    static let inFlightMask = replayedBit - 1
    /// The bits of ``state`` that send a delivery offered by a publish out of line.
    static let refusingOffers = cancelledBit | heldBit | replayedBit

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
    /// ``scheduler`` when it is the bus's main-actor mailbox, whose handlers may run in place in
    /// a publish made on the main actor; read on every delivery, so kept apart from the
    /// existential, which would take a dynamic cast to ask.
    let mainActorMailbox: ActorMailbox?
    /// ``cancelledBit`` plus the number of deliveries that have started and not yet returned.
    let state = Atomic<Int>(0)
    /// The observer's record, or `nil` for a subscription without an observer. Removing a dead
    /// observer's entries through its record, rather than by the address it shared with later
    /// objects, needs no care about reuse, and no lookup. Stored last, so that the fields a
    /// delivery reads keep their places.
    let observerRecord: ObserverRecord?

    /// The observer's serial on its bus, or 0 for a subscription without an observer.
    var observerSerial: UInt64 { observerRecord?.serial ?? 0 }

    /// The observer's class name, as monitors show it; `nil` for a token's subscription.
    var observerTypeName: String? { observerType.map { String(describing: $0) } }

    /// What the bus measured of the handler while someone watched it, and its failures.
    let measurements: HandlerMeasurements
    /// A delivery observer's gate, through which it turns deliveries away before they are built
    /// (see ``DeliveryGate``); `nil` for every other entry.
    let deliveryGate: DeliveryGate?

    init(
        id: UInt64, counters: TypeCounters, observer: AnyObject?, observerRecord: ObserverRecord?,
        scheduler: (any DeliveryScheduler)?, measurements: HandlerMeasurements? = nil,
        deliveryGate: DeliveryGate? = nil
    ) {
        self.measurements = measurements ?? HandlerMeasurements()
        self.deliveryGate = deliveryGate
        self.id = id
        self.observerRecord = observerRecord
        self.counters = counters
        self.observer = observer
        self.observerID = observer.map { ObjectIdentifier($0) }
        self.observerType = observer.map { type(of: $0) }
        self.scheduler = scheduler
        self.mainActorMailbox = (scheduler as? ActorMailbox).flatMap { $0.isMainActor ? $0 : nil }
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

    /// Counts a delivery as started unless the entry is cancelled, or held while it waits for
    /// its sticky event.
    ///
    /// The increment and the cancel flag share one atomic word, so a delivery either starts
    /// before `cancel()` (which then waits for it) or sees the flag and never starts.
    ///
    /// - Parameter refused: The bits that keep the delivery from starting: for a delivery a
    ///   publish offers, a hold too; for one that already waited its turn, only cancellation.
    @inline(__always)
    func beginDelivery(refusing refused: Int = refusingOffers) -> Bool {
        let old = state.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
        if old & refused != 0 {
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
    /// Returns `false`, having undone the announcement, if the entry is cancelled or held.
    ///
    /// The marker is passed unretained: the thread's state owns it for the thread's lifetime,
    /// and retaining it here would add two atomic operations per delivery.
    @inline(__always)
    func beginDelivery(
        _ marker: UnsafeReference<DeliveryMarker>?, refusing refused: Int = refusingOffers
    ) -> Bool {
        guard let marker else { return beginDelivery(refusing: refused) }
        return marker.borrow { marker in
            marker.begin(self)
            // Sequentially consistent, to pair with `markCancelled()` and the canceller's
            // reading of the marker; on x86 and arm64 this costs no more than an acquiring load.
            if state.load(ordering: .sequentiallyConsistent) & refused != 0 {
                marker.end()
                return false
            }
            return true
        }
    }

    @inline(__always)
    func endDelivery(_ marker: UnsafeReference<DeliveryMarker>?) {
        if let marker {
            marker.borrow { $0.end() }
        } else {
            endDelivery()
        }
    }

    /// Offers the event at `payload`, which is of the entry's own event type, to the handler;
    /// ``Entry`` overrides it. Nothing writes the event.
    ///
    /// A method of the class, dispatched through it, rather than a generic call on `Entry`: a
    /// publish from another module runs unspecialized code, where naming `Entry<Payload>` asks
    /// the runtime for its metadata, a hash lookup that cost as much as a handler call. The
    /// override reads `Payload` from its own class instead.
    ///
    /// - Parameters:
    ///   - marker: As in ``Entry/offer(_:marker:timer:mainActor:)``.
    ///   - timer: While something watches the bus, what times the call where it runs if it
    ///     waits on a queue or an actor; a call made here is timed by the caller.
    ///   - mainActor: As in ``Entry/offer(_:marker:timer:mainActor:)``.
    func offer(
        at payload: UnsafeMutableRawPointer, marker: UnsafeReference<DeliveryMarker>?, timer: HandlerTimer?,
        mainActor: inout MainActorPass
    ) -> DeliveryOutcome {
        preconditionFailure("every entry is an Entry, which offers its own events")
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
            System.yieldProcessor()
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
