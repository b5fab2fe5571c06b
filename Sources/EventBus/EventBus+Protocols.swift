import Dispatch
import Synchronization

/// Subscriptions to a protocol: every event whose type conforms to it.
///
/// A screen that wants every sign-in event, today's and those added later, subscribes to their
/// protocol once, instead of to each type:
///
/// ```swift
/// protocol AuthEvent: Event { var userId: String { get } }
/// struct UserLoggedInEvent: AuthEvent { let userId: String; let userName: String }
/// struct UserLoggedOutEvent: AuthEvent { let userId: String }
///
/// bus.subscribe(observer: self, conformingTo: (any AuthEvent).self) { [weak self] event in
///     self?.refreshAccountBadge(for: event.userId)
/// }
/// ```
///
/// Such a subscriber receives an event after the subscribers of its own type and before the
/// wildcard observers, under the same rules as theirs: held weakly, cancelled by its token, in
/// the isolation its handler was written in or on its queue, within the cascade limit, and
/// timed while something watches. Snapshots and monitors list it under the protocol's name,
/// such as `any AuthEvent`: a row whose `delivered` counts its subscribers' handler calls, and
/// whose `published` stays 0, since each event is counted as published under its own type.
///
/// Whether a type conforms is learned at its first publish and kept, so a type that conforms to
/// no subscribed protocol costs its publishes nothing more.
///
/// `conformingTo` takes a protocol's existential; given an event type, it stops the program
/// with a message, since that type's subscribers belong with ``subscribe(to:sticky:handler:)``.
extension EventBus {
    /// Subscribes `observer` to every event whose type conforms to `protocolType`, for as long
    /// as the observer lives.
    ///
    /// - Parameters:
    ///   - observer: The object whose lifetime bounds the subscription.
    ///   - protocolType: The protocol, written as its existential, such as
    ///     `(any AuthEvent).self`.
    ///   - handler: Called with each conforming event, in the isolation it was written in.
    /// - Returns: A token that can cancel the subscription early; releasing it does not.
    @discardableResult
    public func subscribe<P: Sendable>(
        observer: AnyObject, conformingTo protocolType: P.Type,
        @_inheritActorContext handler: @escaping @Sendable @isolated(any) (P) -> Void
    ) -> Subscription {
        let handler = IsolatedHandler(handler)
        return addConforming(
            to: protocolType, observer: observer, scheduler: scheduler(for: handler),
            handler: handler.callInIsolation)
    }

    /// Subscribes `observer` to every event whose type conforms to `protocolType`, delivered on
    /// `queue`, for as long as the observer lives.
    ///
    /// - Parameters:
    ///   - observer: The object whose lifetime bounds the subscription.
    ///   - protocolType: The protocol, written as its existential.
    ///   - queue: Where to run the handler; `nil` runs it on the publisher's thread.
    ///   - handler: Called with each conforming event.
    /// - Returns: A token that can cancel the subscription early; releasing it does not.
    @discardableResult
    public func subscribe<P: Sendable>(
        observer: AnyObject, conformingTo protocolType: P.Type, on queue: DispatchQueue?,
        handler: @escaping @Sendable (P) -> Void
    ) -> Subscription {
        addConforming(
            to: protocolType, observer: observer, scheduler: queue.map(QueueScheduler.init), handler: handler)
    }

    /// Subscribes to every event whose type conforms to `protocolType`, until the returned
    /// token is cancelled or released.
    ///
    /// ```swift
    /// let token = bus.subscribe(conformingTo: (any AuthEvent).self) { event in
    ///     audit.note(event.userId)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - protocolType: The protocol, written as its existential.
    ///   - handler: Called with each conforming event, in the isolation it was written in.
    /// - Returns: The subscription; keep it for as long as events should arrive.
    public func subscribe<P: Sendable>(
        conformingTo protocolType: P.Type,
        @_inheritActorContext handler: @escaping @Sendable @isolated(any) (P) -> Void
    ) -> Subscription {
        let handler = IsolatedHandler(handler)
        return addConforming(
            to: protocolType, observer: nil, scheduler: scheduler(for: handler),
            handler: handler.callInIsolation)
    }

    /// Subscribes to every event whose type conforms to `protocolType`, delivered on `queue`,
    /// until the returned token is cancelled or released.
    ///
    /// - Parameters:
    ///   - protocolType: The protocol, written as its existential.
    ///   - queue: Where to run the handler; `nil` runs it on the publisher's thread.
    ///   - handler: Called with each conforming event.
    /// - Returns: The subscription; keep it for as long as events should arrive.
    public func subscribe<P: Sendable>(
        conformingTo protocolType: P.Type, on queue: DispatchQueue?, handler: @escaping @Sendable (P) -> Void
    ) -> Subscription {
        addConforming(
            to: protocolType, observer: nil, scheduler: queue.map(QueueScheduler.init), handler: handler)
    }

    // MARK: - Internals

    func addConforming<P: Sendable>(
        to protocolType: P.Type, observer: AnyObject?, scheduler: (any DeliveryScheduler)?,
        handler: @escaping @Sendable (P) -> Void
    ) -> Subscription {
        // An event type's subscribers take its own slot; a protocol's, one of its own.
        precondition(
            !(protocolType is any Event.Type),
            "subscribe(conformingTo:) takes a protocol, such as (any AuthEvent).self; "
                + "\(protocolType) is an event type: subscribe to it with subscribe(to:)")
        let now = clock.now()
        let (entry, slot) = update { state in
            let slot = state.slot(
                for: protocolType, name: "any \(protocolType)",
                qualifiedName: "any \(String(reflecting: protocolType))")
            let (entry, after) = state.subscribe(to: slot, observer: observer, now: now) { id, record in
                Entry<P>(
                    id: id, counters: slot.counters, observer: observer, observerRecord: record,
                    scheduler: scheduler, handler: handler)
            }
            return ((entry, slot), after)
        }
        protocolRoutes.addRoute(to: slot) { ProtocolRoute<P>(slot: slot) }
        return Subscription(bus: self, entry: entry, location: .type(slot))
    }

    /// Delivers `event` to the subscribers of the protocols its type conforms to; learns which
    /// those are at the type's first publish after a protocol was first subscribed to.
    @inline(never)
    func deliverToProtocols<T: Event>(_ event: T, of slot: TypeSlot, timer: HandlerTimer?) -> DeliveryTally {
        let generation = protocolRoutes.generation.load(ordering: .acquiring)
        let cached = slot.protocolMatches.withLock { $0 }
        let routes: [any ProtocolRouting]
        if cached.generation == generation {
            routes = cached.routes
        } else {
            routes = protocolRoutes.routes.current.filter { $0.matches(event) }
            slot.protocolMatches.withLock { $0 = (generation, routes) }
            if routes.isEmpty { slot.noProtocolRoutesAsOf.store(generation, ordering: .relaxed) }
        }
        var tally = DeliveryTally()
        for route in routes {
            let routed = route.deliver(event, on: self, timer: timer)
            tally.addCalls(routed)
        }
        return tally
    }
}

/// The protocols subscribed to on a bus, each with the route that delivers to its subscribers.
final class ProtocolRoutes: Sendable {
    /// Grows each time a protocol is first subscribed to; 0 while none is. A type's slot keeps
    /// the generation as of which it conforms to none (``TypeSlot/noProtocolRoutesAsOf``).
    let generation = Atomic<Int>(0)
    let routes = LockedValue<[any ProtocolRouting]>([])

    /// Adds the route `make` creates for `slot`, the slot of a protocol, unless it has one.
    func addRoute(to slot: TypeSlot, _ make: () -> any ProtocolRouting) {
        routes.withLock { routes in
            guard !routes.contains(where: { $0.slot === slot }) else { return }
            routes.append(make())
            generation.wrappingAdd(1, ordering: .releasing)
        }
    }
}

/// Delivers events to the subscribers of one protocol.
protocol ProtocolRouting: AnyObject, Sendable {
    /// The protocol's slot: its subscribers and counters.
    var slot: TypeSlot { get }
    /// Whether `event`'s type conforms to the protocol.
    func matches(_ event: any Event) -> Bool
    /// Delivers `event` to the protocol's subscribers; returns what came of it.
    func deliver(_ event: any Event, on bus: EventBus, timer: HandlerTimer?) -> EventBus.DeliveryTally
}

/// The route of the protocol `P`, written as its existential (`any AuthEvent`).
final class ProtocolRoute<P: Sendable>: ProtocolRouting {
    let slot: TypeSlot

    init(slot: TypeSlot) {
        self.slot = slot
    }

    func matches(_ event: any Event) -> Bool {
        event is P
    }

    func deliver(_ event: any Event, on bus: EventBus, timer: HandlerTimer?) -> EventBus.DeliveryTally {
        guard let payload = event as? P else { return EventBus.DeliveryTally() }
        // The list is copied, not read through a marker's snapshot as a type's list is: the
        // thread's marker announces the type's list already.
        let entries = slot.copyEntries()
        let tally = entries.withUnretainedEntries { entries in
            EventBus.offer(payload, to: entries, marker: nil, timer: timer?.forProtocol(slot))
        }
        // Only handler calls: the event was published, and is counted, under its own type.
        if tally.delivered > 0 { slot.counters.recordDeliveries(tally.delivered) }
        if tally.sawDeadObserver { bus.reclaimDeadAfterPublish(of: slot) }
        return tally
    }
}
