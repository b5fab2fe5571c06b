import Dispatch
import Synchronization

/// The serial number of the last bus created; see ``EventBus/serialNumber``.
private let lastBusSerialNumber = Atomic<UInt64>(0)

/// A type-safe publish/subscribe hub that holds its observers weakly.
///
/// Publishers and subscribers know only the event types, not each other:
///
/// ```swift
/// struct UserLoggedInEvent: Event { let userId: String; let userName: String }
///
/// let bus = EventBus()
/// bus.subscribe(observer: self) { (event: UserLoggedInEvent) in
///     print("welcome, \(event.userName)")
/// }
/// bus.publish(event: UserLoggedInEvent(userId: "42", userName: "Ada"))
/// ```
///
/// ## Guarantees
/// - **Weak observers.** A subscription made with an observer ends when the observer is
///   deallocated: its handler is never called again, and the bus reclaims the entry as it goes,
///   without waiting for an event of that type. `unsubscribe(observer:)` works from `deinit`.
/// - **Thread safety.** Every method may be called from any thread. Handlers run outside the
///   bus's lock, so they may call back into the bus.
/// - **Cancellation.** Once `cancel()` or `unsubscribe(observer:)` returns, no new call of that
///   handler starts; called from outside any handler, they also wait for calls already running
///   on other threads to return.
/// - **Ordering.** Handlers of one type run in subscription order, then wildcard observers. An
///   event published from inside a handler is delivered once the current event's delivery has
///   finished, on the same thread, so subscribers see each thread's events in publish order.
/// - **Snapshots.** A subscription made during a delivery does not receive the event being
///   delivered.
public final class EventBus: Sendable {
    /// The app-wide bus.
    public static let shared = EventBus(name: "shared")

    /// A name that monitors show for this bus.
    public let name: String

    /// Identifies this bus in each thread's cache of slots. Unlike the bus's address, which a
    /// later bus may reuse, no two buses in a process share it.
    let serialNumber = lastBusSerialNumber.wrappingAdd(1, ordering: .relaxed).newValue

    /// Everything the bus's lock guards: the slots and their records, lifecycle observers,
    /// what changes retired, the sweep. A publish takes no lock: it reads its type's subscriber
    /// list through a snapshot, and takes this lock only once per batch of publishes, for a
    /// step of the sweep. Changes go through ``update(_:)``.
    let state: LockedValue<BusState>
    /// The wildcard observers' slot, also in ``state``; kept here too, so that a publish reaches
    /// it without the lock. Keyed by a type that is not an `Event`, so no published type's slot
    /// shares its identity.
    let wildcardSlot: TypeSlot
    /// Deliveries waiting for the main actor, for every main-actor handler of this bus, so that
    /// they run in the order they were published.
    let mainActorMailbox = ActorMailbox(.mainActor)

    /// Creates an independent bus.
    ///
    /// - Parameter name: A name that monitors show for this bus.
    public init(name: String = "EventBus") {
        self.name = name
        let wildcardSlot = TypeSlot(
            typeID: ObjectIdentifier(SubscriberLifecycleEvent.self),
            name: SubscriberLifecycleEvent.wildcardTypeName,
            qualifiedName: SubscriberLifecycleEvent.wildcardTypeName)
        self.wildcardSlot = wildcardSlot
        state = LockedValue(BusState(wildcardSlot: wildcardSlot))
    }

    // MARK: - Subscribing

    /// Subscribes `observer` to events of type `T` for as long as the observer lives.
    ///
    /// The bus holds the observer weakly: once it is deallocated the handler is never called
    /// again, and the subscription is reclaimed. The handler runs in the isolation it was
    /// written in. In a `@MainActor` view controller it is a main-actor closure, so it may
    /// update the UI; it runs before `publish` returns when the event is published on the main
    /// actor, and is queued to the main actor, in publish order, when it is published from any
    /// other thread:
    ///
    /// ```swift
    /// @MainActor final class LoginViewController {
    ///     func viewDidLoad() {
    ///         EventBus.shared.subscribe(observer: self) { [weak self] (event: UserLoggedInEvent) in
    ///             guard let self = self else { return }
    ///             self.updateUI(with: event.userName)
    ///         }
    ///     }
    ///     deinit { EventBus.shared.unsubscribe(observer: self) }
    /// }
    /// ```
    ///
    /// A handler written outside any actor runs on the publisher's thread, before `publish`
    /// returns; it must be `@Sendable`, so it cannot capture state that another thread could
    /// change at the same time. A handler isolated to another actor runs on that actor, in
    /// publish order.
    ///
    /// - Parameters:
    ///   - observer: The object whose lifetime bounds the subscription.
    ///   - handler: Called with each event of type `T`, in the isolation it was written in.
    /// - Returns: A token that can cancel the subscription early. Releasing it does not end
    ///   the subscription; the observer's lifetime does.
    @discardableResult
    public func subscribe<T: Event>(
        observer: AnyObject,
        @_inheritActorContext handler: @escaping @Sendable @isolated(any) (T) -> Void
    ) -> Subscription {
        let handler = IsolatedHandler(handler)
        return add(
            T.self, observer: observer, scheduler: scheduler(for: handler), handler: handler.callInIsolation)
    }

    /// Subscribes `observer` to events of type `T`, delivered on `queue`, for as long as the
    /// observer lives.
    ///
    /// - Parameters:
    ///   - observer: The object whose lifetime bounds the subscription.
    ///   - queue: Where to run the handler, without making the publisher wait; `nil` runs it on
    ///     the publisher's thread before `publish` returns.
    ///   - handler: Called with each event of type `T`.
    /// - Returns: A token that can cancel the subscription early; releasing it does not.
    @discardableResult
    public func subscribe<T: Event>(
        observer: AnyObject, on queue: DispatchQueue?, handler: @escaping @Sendable (T) -> Void
    ) -> Subscription {
        add(T.self, observer: observer, scheduler: queue.map(QueueScheduler.init), handler: handler)
    }

    /// Subscribes to events of type `T` until the returned token is cancelled or released.
    ///
    /// ```swift
    /// let token = bus.subscribe(to: DataLoadedEvent.self) { event in
    ///     print("\(event.data.count) items")
    /// }
    /// ```
    ///
    /// The handler runs in the isolation it was written in, as with
    /// ``subscribe(observer:handler:)``: a main-actor closure on the main actor, a closure
    /// written outside any actor on the publisher's thread.
    ///
    /// - Parameters:
    ///   - type: The event type to receive.
    ///   - handler: Called with each event of type `T`.
    /// - Returns: The subscription; keep it for as long as events should arrive.
    public func subscribe<T: Event>(
        to type: T.Type,
        @_inheritActorContext handler: @escaping @Sendable @isolated(any) (T) -> Void
    ) -> Subscription {
        let handler = IsolatedHandler(handler)
        return add(type, observer: nil, scheduler: scheduler(for: handler), handler: handler.callInIsolation)
    }

    /// Subscribes to events of type `T`, delivered on `queue`, until the returned token is
    /// cancelled or released.
    ///
    /// - Parameters:
    ///   - type: The event type to receive.
    ///   - queue: Where to run the handler, without making the publisher wait; `nil` runs it on
    ///     the publisher's thread.
    ///   - handler: Called with each event of type `T`.
    /// - Returns: The subscription; keep it for as long as events should arrive.
    public func subscribe<T: Event>(
        to type: T.Type, on queue: DispatchQueue?, handler: @escaping @Sendable (T) -> Void
    ) -> Subscription {
        add(type, observer: nil, scheduler: queue.map(QueueScheduler.init), handler: handler)
    }

    /// Subscribes `observer` to every event published on this bus, whatever its type.
    ///
    /// Wildcard observers run after the typed subscribers of each event, and see each event once.
    /// The handler runs in the isolation it was written in, as with
    /// ``subscribe(observer:handler:)``.
    ///
    /// - Parameters:
    ///   - observer: The object whose lifetime bounds the subscription.
    ///   - handler: Called with every event.
    /// - Returns: A token that can cancel the subscription early; releasing it does not.
    @discardableResult
    public func subscribeAll(
        observer: AnyObject,
        @_inheritActorContext handler: @escaping @Sendable @isolated(any) (any Event) -> Void
    ) -> Subscription {
        let handler = IsolatedHandler(handler)
        let call = handler.callInIsolation
        return addWildcard(observer: observer, scheduler: scheduler(for: handler)) { call($0.event) }
    }

    /// Subscribes `observer` to every event, delivered on `queue`, for as long as it lives.
    ///
    /// - Parameters:
    ///   - observer: The object whose lifetime bounds the subscription.
    ///   - queue: Where to run the handler; `nil` runs it on the publisher's thread.
    ///   - handler: Called with every event.
    /// - Returns: A token that can cancel the subscription early; releasing it does not.
    @discardableResult
    public func subscribeAll(
        observer: AnyObject, on queue: DispatchQueue?, handler: @escaping @Sendable (any Event) -> Void
    ) -> Subscription {
        addWildcard(observer: observer, scheduler: queue.map(QueueScheduler.init)) { handler($0.event) }
    }

    /// Subscribes to every event published on this bus until the token is cancelled or released.
    ///
    /// The handler runs in the isolation it was written in, as with
    /// ``subscribe(observer:handler:)``.
    ///
    /// - Parameter handler: Called with every event.
    /// - Returns: The subscription; keep it for as long as events should arrive.
    public func subscribeAll(
        @_inheritActorContext handler: @escaping @Sendable @isolated(any) (any Event) -> Void
    ) -> Subscription {
        let handler = IsolatedHandler(handler)
        let call = handler.callInIsolation
        return addWildcard(observer: nil, scheduler: scheduler(for: handler)) { call($0.event) }
    }

    /// Subscribes to every event, delivered on `queue`, until the token is cancelled or released.
    ///
    /// - Parameters:
    ///   - queue: Where to run the handler; `nil` runs it on the publisher's thread.
    ///   - handler: Called with every event.
    /// - Returns: The subscription; keep it for as long as events should arrive.
    public func subscribeAll(
        on queue: DispatchQueue?, handler: @escaping @Sendable (any Event) -> Void
    ) -> Subscription {
        addWildcard(observer: nil, scheduler: queue.map(QueueScheduler.init)) { handler($0.event) }
    }

    /// Subscribes a monitor to every event, with what the bus knows of each delivery, for as long
    /// as `observer` lives.
    ///
    /// This is a wildcard subscription whose handler also learns the event's type name and how
    /// many typed subscribers received it, which is what a dashboard or a tap shows. Keep the
    /// handler cheap: it runs on the publisher's thread (or `queue`) for every event.
    ///
    /// - Parameters:
    ///   - observer: The object whose lifetime bounds the subscription.
    ///   - queue: Where to run the handler; `nil` runs it on the publisher's thread.
    ///   - handler: Called with every delivery.
    /// - Returns: A token that can cancel the subscription early; releasing it does not.
    @discardableResult
    public func observeDeliveries(
        observer: AnyObject, on queue: DispatchQueue? = nil,
        handler: @escaping @Sendable (DeliveryRecord) -> Void
    ) -> Subscription {
        addWildcard(observer: observer, scheduler: queue.map(QueueScheduler.init), handler: handler)
    }

    /// Subscribes a monitor to every event, with what the bus knows of each delivery, until the
    /// returned token is cancelled or released.
    ///
    /// The token is the subscription: the compiler warns when it is dropped, since a token
    /// released at once would never see an event.
    ///
    /// ```swift
    /// let monitor = bus.observeDeliveries { record in
    ///     print(record.eventTypeName, record.receivers)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - queue: Where to run the handler; `nil` runs it on the publisher's thread.
    ///   - handler: Called with every delivery.
    /// - Returns: The subscription; keep it for as long as deliveries should arrive.
    public func observeDeliveries(
        on queue: DispatchQueue? = nil, handler: @escaping @Sendable (DeliveryRecord) -> Void
    ) -> Subscription {
        addWildcard(observer: nil, scheduler: queue.map(QueueScheduler.init), handler: handler)
    }

    /// Removes every subscription `observer` made, typed and wildcard.
    ///
    /// Safe to call from the observer's `deinit`: the bus matches observers by identity, not
    /// through the weak reference that already reads `nil` there.
    ///
    /// - Parameter observer: The object passed to `subscribe(observer:)`.
    public func unsubscribe(observer: AnyObject) {
        let removed = update { $0.unsubscribe(observer) }
        waitForDeliveries(to: removed)
    }

    // MARK: - Publishing

    /// Delivers `event` to the subscribers of its type, then to wildcard observers.
    ///
    /// Synchronous subscribers have run when this returns, unless it is called from inside a
    /// handler: then the event is delivered right after the current one, on this thread.
    ///
    /// - Parameter event: The event to deliver.
    public func publish<T: Event>(event: T) {
        publish(event)
    }

    /// Delivers `event` to the subscribers of its type, then to wildcard observers.
    ///
    /// - Parameter event: The event to deliver.
    public func publish<T: Event>(_ event: T) {
        ThreadDeliveryState.currentUnretained._withUnsafeGuaranteedRef { thread in
            let busID = ObjectIdentifier(self)
            if let index = thread.frameIndex(of: busID) {
                thread.frames[index].pending.append { self.deliver(event, on: thread) }
                return
            }
            thread.runDeliveryLoop(for: busID) { deliver(event, on: thread) }
        }
    }

    // MARK: - Introspection

    /// The number of live subscriptions to `type`, wildcard observers not included.
    ///
    /// - Parameter type: The event type.
    /// - Returns: Subscriptions that would receive an event of this type now.
    public func subscriberCount<T: Event>(for type: T.Type) -> Int {
        // Checking a weak reference briefly holds the observer; were that the last reference,
        // its deinit would run here, so the check happens outside the lock.
        let entries = state.withLock { $0.slot(for: ObjectIdentifier(type)) }?.copyEntries() ?? []
        return entries.reduce(0) { $0 + ($1.isDead || $1.isCancelled ? 0 : 1) }
    }

    /// Removes every subscription whose observer has been deallocated, now.
    ///
    /// The bus does this by itself, a little at every operation; call this to see the effect at
    /// once, in a test or a monitor.
    ///
    /// - Returns: How many subscriptions were reclaimed.
    @discardableResult
    public func reclaimDeadSubscriptions() -> Int {
        reclaimDead(in: state.withLock { $0.allSlots }, cause: .request)
    }

    /// Says that `observer` should be deallocated soon, so that the bus reports it if it is not.
    ///
    /// Call it where an object's life should end: when a screen is closed, a session ends, a
    /// task finishes. If the object is still alive once `within` has passed, it becomes a leak
    /// suspect: a ``SubscriberLifecycleEvent`` of kind `.leakSuspected` goes to lifecycle
    /// observers, and it is listed in ``BusSnapshot/leakSuspects`` with the event types it is
    /// still subscribed to. If it goes later, `.leakCleared` follows. The usual culprit is a
    /// handler that captures its observer strongly, which the bus then keeps alive:
    ///
    /// ```swift
    /// bus.subscribe(observer: self) { (event: UserLoggedInEvent) in
    ///     self.show(event)              // leaks: the bus holds the handler, the handler holds self
    /// }
    /// bus.subscribe(observer: self) { [weak self] (event: UserLoggedInEvent) in
    ///     self?.show(event)             // does not
    /// }
    /// ```
    ///
    /// The bus holds `observer` weakly and runs no thread for this: it checks at ``snapshot()``
    /// and, at most every 100 ms, during its other operations. Calling this again for the same
    /// object starts its time again, with the new reason.
    ///
    /// - Parameters:
    ///   - observer: The object expected to go, subscribed or not.
    ///   - within: How long it may take; objects that finish some work first need longer.
    ///   - reason: Why it should go, shown with the report ("screen closed").
    public func expectDeallocation(
        of observer: AnyObject, within: Duration = .seconds(5), reason: String = ""
    ) {
        update { ((), $0.expectDeallocation(of: observer, within: within, reason: reason)) }
    }

    /// Reports every later change in who listens on this bus.
    ///
    /// The handler runs on the thread that made the change (a subscriber's, a publisher's, or
    /// the one that released an observer), outside the bus's lock.
    ///
    /// - Parameter handler: Called with each change.
    /// - Returns: The subscription; keep it for as long as changes should arrive.
    public func observeLifecycle(
        _ handler: @escaping @Sendable (SubscriberLifecycleEvent) -> Void
    ) -> Subscription {
        let entry = update { $0.observeLifecycle(handler) }
        return Subscription(bus: self, entry: entry, location: .lifecycle)
    }

    // MARK: - Internals

    /// Where a handler with `handler`'s isolation runs: `nil` (on the publisher's thread) for a
    /// nonisolated one, this bus's main-actor mailbox, or a mailbox of its own on another actor.
    private func scheduler<Payload>(for handler: IsolatedHandler<Payload>) -> (any DeliveryScheduler)? {
        guard let isolation = handler.isolation else { return nil }
        return handler.isMainActor ? mainActorMailbox : ActorMailbox(.actor(isolation))
    }

    private func add<T: Event>(
        _ type: T.Type, observer: AnyObject?, scheduler: (any DeliveryScheduler)?,
        handler: @escaping @Sendable (T) -> Void
    ) -> Subscription {
        let (entry, slot) = update { state in
            let slot = state.slot(for: type)
            let (entry, after) = state.subscribe(to: slot, observer: observer) { id, record in
                Entry<T>(
                    id: id, counters: slot.counters, observer: observer, observerRecord: record,
                    scheduler: scheduler, handler: handler)
            }
            return ((entry, slot), after)
        }
        return Subscription(bus: self, entry: entry, location: .type(slot))
    }

    private func addWildcard(
        observer: AnyObject?, scheduler: (any DeliveryScheduler)?,
        handler: @escaping @Sendable (DeliveryRecord) -> Void
    ) -> Subscription {
        let slot = wildcardSlot
        let entry = update { state in
            state.subscribe(to: slot, observer: observer) { id, record in
                Entry<DeliveryRecord>(
                    id: id, counters: slot.counters, observer: observer, observerRecord: record,
                    scheduler: scheduler, handler: handler)
            }
        }
        return Subscription(bus: self, entry: entry, location: .wildcard)
    }

    /// Runs `change` on the state under the lock, then, once the lock is released, what the
    /// change returned to do after it; returns the change's result.
    ///
    /// Every change to the state goes through here, so nothing that can run user code runs
    /// under the lock (see ``AfterUnlock``).
    func update<Result>(_ change: (inout BusState) -> (Result, AfterUnlock)) -> Result {
        let (result, after) = state.withLock(change)
        after.run(on: self)
        return result
    }

    /// How many publishes of one type a thread makes between two steps of the sweep.
    ///
    /// Each step takes the bus's lock and writes the bus's sweep state, which every publishing
    /// thread would otherwise write on every publish; batching keeps the sweep's work per
    /// publish the same (each step is credited with the whole batch) and its guarantee
    /// bounded, while publishes from different threads share nothing in between. Smaller
    /// batches showed up as shared cost between two publishing threads (see
    /// docs/publish-path.md).
    static let publishesPerSweepStep = 256

    /// Finds the slot of `T` in the thread's cache, or under the lock on a miss, and delivers.
    private func deliver<T: Event>(_ event: T, on thread: ThreadDeliveryState) {
        let type = ObjectIdentifier(T.self)
        // Taken out of the cache before any user code can run: a sweep's lifecycle observers,
        // or a `deinit` it triggers, may publish on another bus and replace cache entries.
        let slot: Unmanaged<TypeSlot>
        if let index = thread.cachedSlotIndex(bus: serialNumber, type: type) {
            slot = thread.slotCache[index].slot
            thread.slotCache[index].uncountedPublishes += 1
            if thread.slotCache[index].uncountedPublishes >= Self.publishesPerSweepStep {
                thread.slotCache[index].uncountedPublishes = 0
                slot._withUnsafeGuaranteedRef {
                    stepSweep(credit: 2 * Self.publishesPerSweepStep, delivering: $0)
                }
            }
        } else {
            let found = slotAfterCacheMiss(of: T.self)
            thread.cache(found, bus: serialNumber)
            slot = Unmanaged.passUnretained(found)
        }
        // The bus keeps its slots for as long as it lives, and it is alive here.
        slot._withUnsafeGuaranteedRef { deliver(event, to: $0, on: thread) }
    }

    /// Finds the slot of `type` under the lock, for a publish that missed the thread's cache,
    /// and takes a step of the sweep. Kept out of line, so that the publish path stays small.
    @inline(never)
    private func slotAfterCacheMiss(of type: any Event.Type) -> TypeSlot {
        update { $0.slotForPublish(of: type) }
    }

    /// Takes a step of the sweep for a batch of publishes of `slot`'s type. Kept out of line,
    /// like ``slotAfterCacheMiss(of:)``.
    @inline(never)
    private func stepSweep(credit: Int, delivering slot: TypeSlot) {
        update { ((), $0.stepSweep(forPublishesOf: slot, credit: credit)) }
    }

    /// Delivers `event` to the entries of `slot`, then to wildcard observers.
    ///
    /// The outermost delivery on a thread takes no lock: it reads both lists through snapshots
    /// announced in the thread's marker (see ``TypeSlot/protectedSnapshot(announcingIn:)``) and
    /// counts in the thread's stripe of the counters, so publishes of one type from several
    /// threads write nothing in common. A delivery nested in a handler (of another bus) copies
    /// the lists under their slots' locks instead, since the thread's marker already announces
    /// its outer delivery's lists. Either way both lists are taken before any handler runs, so
    /// a subscription made during the delivery does not receive the event.
    @inline(__always)
    private func deliver<T: Event>(_ event: T, to slot: TypeSlot, on thread: ThreadDeliveryState) {
        // Borrowed, like the thread's state: the counters keep their stripes for their lifetime.
        let stripe = slot.counters.stripe(thread.counterStripe)
        stripe._withUnsafeGuaranteedRef { _ = $0.published.wrappingAdd(1, ordering: .relaxed) }
        let hasWildcards = wildcardSlot.hasSubscribers
        // Offers the event to the typed list, then its record to the wildcard list. The tallies
        // are returned, not written into variables the function captures: captured and
        // mutated, they are boxed on the heap as soon as the optimizer stops inlining this
        // path (see docs/publish-path.md).
        @inline(__always)
        func offer(
            typedCount: Int, typedEntry: (Int) -> Unmanaged<SubscriberEntry>, watcherCount: Int,
            watcher: (Int) -> Unmanaged<SubscriberEntry>, marker: DeliveryMarker?
        ) -> (typed: DeliveryTally, wildcards: DeliveryTally) {
            let typed = Self.offer(event, to: typedCount, Entry<T>.self, marker: marker, entry: typedEntry)
            guard watcherCount > 0 else { return (typed, DeliveryTally()) }
            let record = DeliveryRecord(
                event: event, eventTypeName: slot.name, receivers: typed.delivered + typed.scheduled)
            let wildcards = Self.offer(
                record, to: watcherCount, Entry<DeliveryRecord>.self, marker: marker, entry: watcher)
            return (typed, wildcards)
        }
        let tallies: (typed: DeliveryTally, wildcards: DeliveryTally)
        if let marker = thread.markerForDelivery {
            tallies = marker._withUnsafeGuaranteedRef { marker in
                let entries = slot.protectedSnapshot(announcingIn: marker.typedSnapshot)
                let watchers =
                    hasWildcards ? wildcardSlot.protectedSnapshot(announcingIn: marker.wildcardSnapshot) : nil
                // The announcements keep both snapshots and their entries allocated until they
                // are withdrawn, so the snapshots are borrowed, not retained.
                let tallies = offer(
                    typedCount: entries._withUnsafeGuaranteedRef { $0.count },
                    typedEntry: { index in entries._withUnsafeGuaranteedRef { $0[index] } },
                    watcherCount: watchers?._withUnsafeGuaranteedRef { $0.count } ?? 0,
                    watcher: { index in watchers!._withUnsafeGuaranteedRef { $0[index] } }, marker: marker)
                if hasWildcards { marker.wildcardSnapshot.withdraw() }
                marker.typedSnapshot.withdraw()
                return tallies
            }
        } else {
            let entries = slot.copyEntries()
            let watchers = hasWildcards ? wildcardSlot.copyEntries() : []
            // The copies hold every entry until the end of the delivery.
            tallies = withExtendedLifetime((entries, watchers)) {
                offer(
                    typedCount: entries.count, typedEntry: { Unmanaged.passUnretained(entries[$0]) },
                    watcherCount: watchers.count, watcher: { Unmanaged.passUnretained(watchers[$0]) },
                    marker: nil)
            }
        }
        let (typed, wildcards) = tallies
        stripe._withUnsafeGuaranteedRef { stripe in
            if typed.delivered > 0 { stripe.delivered.wrappingAdd(typed.delivered, ordering: .relaxed) }
            if typed.delivered + typed.scheduled == 0 { stripe.unheard.wrappingAdd(1, ordering: .relaxed) }
        }
        if wildcards.delivered > 0 {
            wildcardSlot.counters.stripe(thread.counterStripe)._withUnsafeGuaranteedRef {
                _ = $0.delivered.wrappingAdd(wildcards.delivered, ordering: .relaxed)
            }
        }
        if typed.sawDeadObserver || wildcards.sawDeadObserver { reclaimDeadAfterPublish(of: slot) }
    }

    /// Reclaims the dead observers a publish of `slot`'s type met. Kept out of line, so that the
    /// publish path stays small.
    @inline(never)
    private func reclaimDeadAfterPublish(of slot: TypeSlot) {
        reclaimDead(in: [slot, wildcardSlot], cause: .publish(eventTypeName: slot.name))
    }

    /// What offering one event to a list came to.
    private struct DeliveryTally {
        var delivered = 0
        var scheduled = 0
        var sawDeadObserver = false
    }

    /// Offers `payload` to the `count` entries `entry(_:)` returns, in order.
    ///
    /// The entries are borrowed, not retained: a retain and a release around each call would
    /// write, twice per delivery, a line that every publishing thread writes. The caller keeps
    /// them alive, and every one of them was created as an `entryType`, for its slot's type.
    @inline(__always)
    private static func offer<Payload: Sendable>(
        _ payload: Payload, to count: Int, _ entryType: Entry<Payload>.Type, marker: DeliveryMarker?,
        entry: (Int) -> Unmanaged<SubscriberEntry>
    ) -> DeliveryTally {
        var tally = DeliveryTally()
        let marker = marker.map { Unmanaged.passUnretained($0) }
        for index in 0..<count {
            let outcome = entry(index)._withUnsafeGuaranteedRef {
                unsafeDowncast($0, to: entryType).offer(payload, marker: marker)
            }
            switch outcome {
            case .delivered: tally.delivered += 1
            case .scheduled: tally.scheduled += 1
            case .skipped: break
            case .observerDied: tally.sawDeadObserver = true
            }
        }
        return tally
    }

    /// Removes the entries of `slots` whose observer has been deallocated.
    ///
    /// Which entries are dead is found outside the lock: checking a weak reference briefly holds
    /// the observer, and if another thread dropped its last reference meanwhile, the observer's
    /// `deinit` runs when that hold ends; under the lock, a `deinit` calling
    /// `unsubscribe(observer:)` would deadlock. A dead entry stays dead, so removing its
    /// observer's entries afterwards, by serial, is exact.
    ///
    /// Every entry of a dead observer goes, in every list, not only in `slots`: the observers
    /// are found dead by their entries there, and removed by serial.
    ///
    /// - Parameter cause: What asked, for the lifecycle events.
    /// - Returns: How many entries were reclaimed.
    @discardableResult
    func reclaimDead(in slots: [TypeSlot], cause: SubscriberLifecycleEvent.ReclaimCause) -> Int {
        let lists = state.withLock { $0.listsWithObservers(in: slots) }
        // The copies keep the entries, and so the weak references read here, allocated until
        // the lock is released.
        defer { withExtendedLifetime(lists) {} }
        // An observer with several entries is listed as often; the state takes each once.
        var dead: [ObserverRecord] = []
        for (_, entries) in lists {
            for entry in entries where entry.isDead {
                if let record = entry.observerRecord { dead.append(record) }
            }
        }
        guard !dead.isEmpty else { return 0 }
        let now = ContinuousClock.now
        return update { $0.reclaim(observers: dead, cause: cause, now: now) }
    }

    /// Checks the objects expected to be deallocated, outside the lock, since reading a weak
    /// reference may end an object's life and run its `deinit`; then reports the suspects that
    /// appeared and went.
    func checkWatches() {
        let watches = state.withLock { $0.observers.watches }
        guard !watches.isEmpty else { return }
        let alive = watches.map(\.isAlive)
        let now = ContinuousClock.now
        update { ((), $0.settleWatches(watches, alive: alive, now: now)) }
    }

    func cancel(_ entry: SubscriberEntry, in location: Subscription.Location) {
        guard entry.markCancelled() else { return }
        update { ((), $0.cancel(entry, in: location)) }
        waitForDeliveries(to: [entry])
    }

    private func waitForDeliveries(to entries: [SubscriberEntry]) {
        // Inside a handler this thread may itself be one of the deliveries; waiting there could
        // deadlock, so the promise there is only that no new delivery starts.
        guard !entries.isEmpty, !ThreadDeliveryState.current.isDelivering else { return }
        for entry in entries { entry.waitForDeliveriesInProgress() }
    }
}
