import Dispatch
import Synchronization

extension EventBus {
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
    ///   - sticky: Whether to receive the type's sticky event (see
    ///     ``EventBus/publishSticky(_:fileID:line:)``) at once, before any newer event of the type.
    ///   - handler: Called with each event of type `T`, in the isolation it was written in.
    /// - Returns: A token that can cancel the subscription early. Releasing it does not end
    ///   the subscription; the observer's lifetime does.
    @discardableResult
    public func subscribe<T: Event>(
        observer: AnyObject, sticky: Bool = false,
        @_inheritActorContext handler: @escaping @Sendable @isolated(any) (T) -> Void
    ) -> Subscription {
        let handler = IsolatedHandler(handler)
        return add(
            T.self, observer: observer, scheduler: scheduler(for: handler), sticky: sticky,
            handler: handler.callInIsolation)
    }

    /// Subscribes `observer` to events of type `T`, delivered on `queue`, for as long as the
    /// observer lives.
    ///
    /// - Parameters:
    ///   - observer: The object whose lifetime bounds the subscription.
    ///   - queue: Where to run the handler, without making the publisher wait; `nil` runs it on
    ///     the publisher's thread before `publish` returns.
    ///   - sticky: Whether to receive the type's sticky event (see
    ///     ``EventBus/publishSticky(_:fileID:line:)``) at once, before any newer event of the type.
    ///   - handler: Called with each event of type `T`.
    /// - Returns: A token that can cancel the subscription early; releasing it does not.
    @discardableResult
    public func subscribe<T: Event>(
        observer: AnyObject, on queue: DispatchQueue?, sticky: Bool = false,
        handler: @escaping @Sendable (T) -> Void
    ) -> Subscription {
        add(
            T.self, observer: observer, scheduler: queue.map(QueueScheduler.init), sticky: sticky,
            handler: handler)
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
    /// ``subscribe(observer:sticky:handler:)-4ijy4``: a main-actor closure on the main actor, a closure
    /// written outside any actor on the publisher's thread.
    ///
    /// - Parameters:
    ///   - type: The event type to receive.
    ///   - sticky: Whether to receive the type's sticky event (see
    ///     ``EventBus/publishSticky(_:fileID:line:)``) at once, before any newer event of the type.
    ///   - handler: Called with each event of type `T`.
    /// - Returns: The subscription; keep it for as long as events should arrive.
    public func subscribe<T: Event>(
        to type: T.Type, sticky: Bool = false,
        @_inheritActorContext handler: @escaping @Sendable @isolated(any) (T) -> Void
    ) -> Subscription {
        let handler = IsolatedHandler(handler)
        return add(
            type, observer: nil, scheduler: scheduler(for: handler), sticky: sticky,
            handler: handler.callInIsolation)
    }

    /// Subscribes to events of type `T`, delivered on `queue`, until the returned token is
    /// cancelled or released.
    ///
    /// - Parameters:
    ///   - type: The event type to receive.
    ///   - queue: Where to run the handler, without making the publisher wait; `nil` runs it on
    ///     the publisher's thread.
    ///   - sticky: Whether to receive the type's sticky event (see
    ///     ``EventBus/publishSticky(_:fileID:line:)``) at once, before any newer event of the type.
    ///   - handler: Called with each event of type `T`.
    /// - Returns: The subscription; keep it for as long as events should arrive.
    public func subscribe<T: Event>(
        to type: T.Type, on queue: DispatchQueue?, sticky: Bool = false,
        handler: @escaping @Sendable (T) -> Void
    ) -> Subscription {
        add(type, observer: nil, scheduler: queue.map(QueueScheduler.init), sticky: sticky, handler: handler)
    }

    /// Subscribes `observer` to every event published on this bus, whatever its type.
    ///
    /// Wildcard observers run after the typed subscribers of each event, and see each event once.
    /// The handler runs in the isolation it was written in, as with
    /// ``subscribe(observer:sticky:handler:)-4ijy4``.
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
    /// ``subscribe(observer:sticky:handler:)-4ijy4``.
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

    /// ``observeDeliveries(on:handler:)`` for a monitor with a bounded buffer: while `gate` is
    /// closed, deliveries are turned away before they are built, and counted in it (see
    /// ``DeliveryGate``). Its calls are not timed: the handler appends to a buffer, and a
    /// publish that only such monitors watch reads no clock for them.
    package func observeDeliveries(
        through gate: DeliveryGate, handler: @escaping @Sendable (DeliveryRecord) -> Void
    ) -> Subscription {
        addWildcard(observer: nil, scheduler: nil, gate: gate, handler: handler)
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
}
