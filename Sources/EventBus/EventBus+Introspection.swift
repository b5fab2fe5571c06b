import Dispatch
import Synchronization

extension EventBus {
    // MARK: - Introspection

    /// The number of live subscriptions to `type` itself: subscriptions to a protocol it
    /// conforms to (`conformingTo:`) and wildcard observers, which receive its events too, are
    /// not included (``snapshot()`` counts them in their own rows).
    ///
    /// - Parameter type: The event type.
    /// - Returns: Subscriptions to this type that would receive an event of it now.
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
        let now = clock.now()
        update { ((), $0.expectDeallocation(of: observer, within: within, reason: reason, now: now)) }
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

    /// Reports every later handler call on this bus: whose handler, for which event, on which
    /// thread, when it started, how long it ran and how long its delivery waited; what a trace
    /// of the app is made of.
    ///
    /// While any such observer exists the bus reads the real-time clock before and after every
    /// handler call of a typed or protocol subscription (wildcard observers, which are monitors,
    /// are left out), notes each publish's thread and time in its ``DeliveryRecord``, and calls
    /// `handler` on the thread of each call, after it returned. That costs each call two clock
    /// readings and the handler's own work, so observe calls only while a trace is being
    /// written. Cancelling the subscription stops it all. Events are numbered meanwhile
    /// (``HandlerCallRecord/eventID``), as while a wildcard observer watches.
    ///
    /// `handler` runs inside the delivery, as a handler does: an event it publishes on this bus
    /// is queued behind the one being delivered, and its handlers' calls are reported in turn,
    /// so a handler that publishes for every call never ends but for the cascade limit. Keep it
    /// to storing the record, as busmon's capture does.
    ///
    /// ```swift
    /// let calls = bus.observeHandlerCalls { call in
    ///     print(call.observerTypeName ?? "closure", call.eventTypeName, call.durationNanoseconds)
    /// }
    /// ```
    ///
    /// - Parameter handler: Called with each handler call.
    /// - Returns: The subscription; keep it for as long as calls should be reported.
    public func observeHandlerCalls(
        _ handler: @escaping @Sendable (HandlerCallRecord) -> Void
    ) -> Subscription {
        let entry = update { $0.observeHandlerCalls(handler) }
        return Subscription(bus: self, entry: entry, location: .handlerCalls)
    }
}
