import Dispatch

/// Subscriptions whose handlers may throw.
///
/// A thrown error never reaches the publisher and never stops the other subscribers: the bus
/// counts it (``HandlerStatistics/failures`` in ``EventBus/snapshot()``) and reports it to
/// lifecycle observers as a ``SubscriberLifecycleEvent/Kind/handlerFailed`` event carrying the
/// error's description. Handlers that do not throw take the overloads without `throws`, which
/// cost nothing of this.
///
/// ```swift
/// bus.subscribe(observer: self) { (event: DataLoadedEvent) throws in
///     try cache.store(event.data)
/// }
/// ```
extension EventBus {
    /// ``subscribe(observer:sticky:handler:)-4ijy4`` for a handler that may throw.
    ///
    /// - Parameters:
    ///   - observer: The object whose lifetime bounds the subscription.
    ///   - sticky: Whether to receive the type's sticky event (see
    ///     ``EventBus/publishSticky(_:fileID:line:)``) at once, before any newer event of the type.
    ///   - handler: Called with each event of type `T`, in the isolation it was written in.
    /// - Returns: A token that can cancel the subscription early; releasing it does not.
    @discardableResult
    public func subscribe<T: Event>(
        observer: AnyObject, sticky: Bool = false,
        @_inheritActorContext handler: @escaping @Sendable @isolated(any) (T) throws -> Void
    ) -> Subscription {
        let sink = FailureSink(bus: self)
        let handler = IsolatedHandler(throwing: handler) { _, error in sink.report(T.self, error) }
        return add(
            T.self, observer: observer, scheduler: scheduler(for: handler), failureSink: sink,
            sticky: sticky, handler: handler.callInIsolation)
    }

    /// ``subscribe(observer:on:sticky:handler:)-7pt14`` for a handler that may throw.
    ///
    /// - Parameters:
    ///   - observer: The object whose lifetime bounds the subscription.
    ///   - queue: Where to run the handler; `nil` runs it on the publisher's thread.
    ///   - sticky: Whether to receive the type's sticky event (see
    ///     ``EventBus/publishSticky(_:fileID:line:)``) at once, before any newer event of the type.
    ///   - handler: Called with each event of type `T`.
    /// - Returns: A token that can cancel the subscription early; releasing it does not.
    @discardableResult
    public func subscribe<T: Event>(
        observer: AnyObject, on queue: DispatchQueue?, sticky: Bool = false,
        handler: @escaping @Sendable (T) throws -> Void
    ) -> Subscription {
        let sink = FailureSink(bus: self)
        return add(
            T.self, observer: observer, scheduler: queue.map(QueueScheduler.init), failureSink: sink,
            sticky: sticky, handler: sink.catching(handler))
    }

    /// ``subscribe(to:sticky:handler:)-3drtm`` for a handler that may throw.
    ///
    /// - Parameters:
    ///   - type: The event type to receive.
    ///   - sticky: Whether to receive the type's sticky event (see
    ///     ``EventBus/publishSticky(_:fileID:line:)``) at once, before any newer event of the type.
    ///   - handler: Called with each event of type `T`, in the isolation it was written in.
    /// - Returns: The subscription; keep it for as long as events should arrive.
    public func subscribe<T: Event>(
        to type: T.Type, sticky: Bool = false,
        @_inheritActorContext handler: @escaping @Sendable @isolated(any) (T) throws -> Void
    ) -> Subscription {
        let sink = FailureSink(bus: self)
        let handler = IsolatedHandler(throwing: handler) { _, error in sink.report(T.self, error) }
        return add(
            type, observer: nil, scheduler: scheduler(for: handler), failureSink: sink,
            sticky: sticky, handler: handler.callInIsolation)
    }

    /// ``subscribe(to:on:sticky:handler:)-90ls9`` for a handler that may throw.
    ///
    /// - Parameters:
    ///   - type: The event type to receive.
    ///   - queue: Where to run the handler; `nil` runs it on the publisher's thread.
    ///   - sticky: Whether to receive the type's sticky event (see
    ///     ``EventBus/publishSticky(_:fileID:line:)``) at once, before any newer event of the type.
    ///   - handler: Called with each event of type `T`.
    /// - Returns: The subscription; keep it for as long as events should arrive.
    public func subscribe<T: Event>(
        to type: T.Type, on queue: DispatchQueue?, sticky: Bool = false,
        handler: @escaping @Sendable (T) throws -> Void
    ) -> Subscription {
        let sink = FailureSink(bus: self)
        return add(
            type, observer: nil, scheduler: queue.map(QueueScheduler.init), failureSink: sink,
            sticky: sticky, handler: sink.catching(handler))
    }

    /// ``subscribeAll(observer:handler:)`` for a handler that may throw.
    ///
    /// - Parameters:
    ///   - observer: The object whose lifetime bounds the subscription.
    ///   - handler: Called with every event, in the isolation it was written in.
    /// - Returns: A token that can cancel the subscription early; releasing it does not.
    @discardableResult
    public func subscribeAll(
        observer: AnyObject,
        @_inheritActorContext handler: @escaping @Sendable @isolated(any) (any Event) throws -> Void
    ) -> Subscription {
        let sink = FailureSink(bus: self)
        let handler = IsolatedHandler(throwing: handler) { event, error in sink.report(type(of: event), error)
        }
        let call = handler.callInIsolation
        return addWildcard(observer: observer, scheduler: scheduler(for: handler), failureSink: sink) {
            call($0.event)
        }
    }

    /// ``subscribeAll(handler:)`` for a handler that may throw.
    ///
    /// - Parameter handler: Called with every event, in the isolation it was written in.
    /// - Returns: The subscription; keep it for as long as events should arrive.
    public func subscribeAll(
        @_inheritActorContext handler: @escaping @Sendable @isolated(any) (any Event) throws -> Void
    ) -> Subscription {
        let sink = FailureSink(bus: self)
        let handler = IsolatedHandler(throwing: handler) { event, error in sink.report(type(of: event), error)
        }
        let call = handler.callInIsolation
        return addWildcard(observer: nil, scheduler: scheduler(for: handler), failureSink: sink) {
            call($0.event)
        }
    }
}

/// Where a throwing handler's errors go: its bus, which counts them against its subscription and
/// reports them. Both are held weakly, so that the handler keeps neither alive.
final class FailureSink: @unchecked Sendable {
    // `@unchecked`: `entry` is set once, under the bus's lock, before the entry is published to
    // any list, so every delivery that can fail reads it after it was set.
    private weak let bus: EventBus?
    weak var entry: SubscriberEntry?

    init(bus: EventBus) {
        self.bus = bus
    }

    /// Counts and reports `error`, thrown by the handler of an event of `type`.
    func report(_ type: any Event.Type, _ error: any Error) {
        guard let bus, let entry else { return }
        bus.reportFailure(of: entry, typeName: String(describing: type), error: error)
    }

    /// `handler`, with its errors reported here.
    func catching<T: Event>(_ handler: @escaping @Sendable (T) throws -> Void) -> @Sendable (T) -> Void {
        { event in
            do {
                try handler(event)
            } catch {
                self.report(T.self, error)
            }
        }
    }
}
