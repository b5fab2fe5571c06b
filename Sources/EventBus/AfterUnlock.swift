/// What a change to a bus's ``BusState`` leaves to do once the lock is released: lifecycle
/// events to send, objects to let go of, lists due for a sweep, and a new subscription to
/// report.
///
/// Nothing that can run user code happens under the lock: sending calls handlers, a sweep
/// checks weak references (which may end an observer's life and run its `deinit`), and dropping
/// the last reference to an entry releases its handler's captures, whose `deinit` may call the
/// bus. ``run(on:)`` does the work; the objects held go when this value does.
struct AfterUnlock {
    /// A subscription just made, reported once it is known whether it duplicates a live one.
    private struct NewSubscription {
        let observer: AnyObject?
        let observerSerial: UInt64
        let slot: TypeSlot
        /// Entries of the slot with the same observer identity, found under the lock.
        let twins: [SubscriberEntry]
    }

    private var events: [SubscriberLifecycleEvent]
    private let observers: [Entry<SubscriberLifecycleEvent>]
    private let released: [AnyObject]
    private let dueForSweep: [TypeSlot]
    private let checksWatches: Bool
    private var subscription: NewSubscription?

    /// Nothing to do.
    init() {
        self.init(events: [], observers: [], released: [], dueForSweep: [], checksWatches: false)
    }

    /// The given work.
    ///
    /// - Parameters:
    ///   - events: Lifecycle events to send.
    ///   - observers: Whom to send them to: the lifecycle observers as they were under the lock.
    ///   - released: Objects to hold until the work is done.
    ///   - dueForSweep: Slots whose dead entries are to be reclaimed.
    ///   - checksWatches: Whether the objects expected to be deallocated are due for a check.
    init(
        events: [SubscriberLifecycleEvent], observers: [Entry<SubscriberLifecycleEvent>],
        released: [AnyObject], dueForSweep: [TypeSlot], checksWatches: Bool
    ) {
        self.events = events
        self.observers = observers
        self.released = released
        self.dueForSweep = dueForSweep
        self.checksWatches = checksWatches
    }

    /// Asks for the subscription of `observer` to `slot` to be counted and announced, as a
    /// duplicate if one of `twins` is live with the same observer (checked outside the lock, as
    /// a weak reference must be).
    mutating func reportSubscription(
        of observer: AnyObject?, serial: UInt64, to slot: TypeSlot, twins: [SubscriberEntry]
    ) {
        subscription = NewSubscription(observer: observer, observerSerial: serial, slot: slot, twins: twins)
    }

    /// Reports the new subscription, sends the events, then sweeps and checks the watched
    /// objects.
    func run(on bus: EventBus) {
        var events = self.events
        if let subscription {
            let observer = subscription.observer
            let isDuplicate = observer != nil && subscription.twins.contains { $0.observer === observer }
            if isDuplicate { bus.update { ((), $0.countDuplicate(in: subscription.slot)) } }
            if !observers.isEmpty {
                events.append(
                    SubscriberLifecycleEvent(
                        kind: isDuplicate ? .duplicateSubscription : .subscribed,
                        eventTypeName: subscription.slot.name, count: 1,
                        observerTypeName: observer.map { String(describing: type(of: $0)) },
                        observerID: observer == nil ? nil : subscription.observerSerial))
            }
        }
        for event in events {
            // Possibly in the middle of a delivery loop of this thread (a handler that
            // subscribes, a slow call reported): this loop leaves that loop's job alone.
            var mainActor = MainActorPass()
            for observer in observers { _ = observer.offer(event, mainActor: &mainActor) }
        }
        if !dueForSweep.isEmpty { bus.reclaimDead(in: dueForSweep, cause: .sweep) }
        if checksWatches { bus.checkWatches() }
    }
}
