/// Counters of one event type, as seen at one moment.
public struct EventTypeStatistics: Sendable, Hashable {
    /// The type's name as written in code, such as `UserLoggedInEvent`.
    public let typeName: String
    /// The module-qualified name, such as `MyApp.UserLoggedInEvent`, which tells apart two
    /// types of the same name.
    public let qualifiedTypeName: String
    /// Subscriptions that can still receive events.
    public let liveSubscribers: Int
    /// Subscriptions whose observer has been deallocated and that the bus has not removed yet.
    /// They are never called; the bus reclaims them as it goes.
    public let deadSubscribers: Int
    /// Subscriptions removed because their observer was deallocated, since the bus was created.
    public let reclaimedSubscribers: Int
    /// Subscriptions removed by `unsubscribe(observer:)`.
    public let unsubscribedSubscribers: Int
    /// Subscriptions removed by cancelling or releasing their token.
    public let cancelledSubscribers: Int
    /// Times an observer subscribed to this type while already subscribed to it.
    public let duplicateSubscriptions: Int
    /// Events of this type published.
    public let published: Int
    /// Handler calls made for events of this type by its own subscribers. Wildcard observers
    /// are not included, nor subscribers of a protocol it conforms to: their calls are counted
    /// in the protocol's row (`any AuthEvent`).
    public let delivered: Int
    /// Publishes that reached no subscriber of this type nor of a protocol it conforms to
    /// (wildcard observers do not count, so a monitor does not hide events nobody handles).
    public let unheard: Int
    /// Handler calls for events of this type that threw.
    public let handlerFailures: Int
    /// Events of this type that bounded buffers of its subscribers (async streams) dropped
    /// before they were read.
    public let dropped: Int

    /// Creates statistics; the bus makes these, and tests and replays may too.
    public init(
        typeName: String, qualifiedTypeName: String? = nil, liveSubscribers: Int = 0,
        deadSubscribers: Int = 0, reclaimedSubscribers: Int = 0, unsubscribedSubscribers: Int = 0,
        cancelledSubscribers: Int = 0, duplicateSubscriptions: Int = 0, published: Int = 0,
        delivered: Int = 0, unheard: Int = 0, handlerFailures: Int = 0, dropped: Int = 0
    ) {
        self.handlerFailures = handlerFailures
        self.dropped = dropped
        self.typeName = typeName
        self.qualifiedTypeName = qualifiedTypeName ?? typeName
        self.liveSubscribers = liveSubscribers
        self.deadSubscribers = deadSubscribers
        self.reclaimedSubscribers = reclaimedSubscribers
        self.unsubscribedSubscribers = unsubscribedSubscribers
        self.cancelledSubscribers = cancelledSubscribers
        self.duplicateSubscriptions = duplicateSubscriptions
        self.published = published
        self.delivered = delivered
        self.unheard = unheard
    }
}

/// What a bus holds and has done, per event type ever subscribed to or published.
///
/// ```swift
/// let snapshot = bus.snapshot()
/// for type in snapshot.eventTypes {
///     print(type.typeName, type.liveSubscribers, type.published)
/// }
/// ```
public struct BusSnapshot: Sendable, Hashable {
    /// The bus's name.
    public let busName: String
    /// Per event type, sorted by type name.
    public let eventTypes: [EventTypeStatistics]
    /// Live wildcard observers (those that see every event).
    public let wildcardObservers: Int
    /// Wildcard observers whose observer died and that the bus has not removed yet.
    public let deadWildcardObservers: Int
    /// Wildcard observers removed because their observer was deallocated.
    public let reclaimedWildcardObservers: Int
    /// Handler calls made to wildcard observers.
    public let wildcardDeliveries: Int
    /// Per observer class, sorted by class name: instances live, dead and reclaimed, their
    /// subscriptions, and leak suspects. Wildcard observers are included.
    public let observers: [ObserverStatistics]
    /// Objects still alive after the time ``EventBus/expectDeallocation(of:within:reason:)``
    /// gave them, the longest overdue first.
    public let leakSuspects: [LeakSuspect]
    /// Individual observer objects, when asked for with
    /// ``EventBus/snapshot(instancesPerClass:)``: per class, the leak suspects, then the dead,
    /// then the newest live ones; empty otherwise.
    public let instances: [ObserverInstance]
    /// Handler calls per observer class (or token) and event type, worst first: timed while
    /// anything watched the bus, failures always. Subscriptions that ended keep their counts.
    public let handlers: [HandlerStatistics]
    /// The latest sticky event of each type that has one, by type name.
    public let stickyEvents: [StickyEvent]

    /// Creates a snapshot; the bus makes these, and tests and replays may too.
    public init(
        busName: String, eventTypes: [EventTypeStatistics], wildcardObservers: Int,
        deadWildcardObservers: Int = 0, reclaimedWildcardObservers: Int = 0, wildcardDeliveries: Int = 0,
        observers: [ObserverStatistics] = [], leakSuspects: [LeakSuspect] = [],
        instances: [ObserverInstance] = [], handlers: [HandlerStatistics] = [],
        stickyEvents: [StickyEvent] = []
    ) {
        self.handlers = handlers
        self.stickyEvents = stickyEvents
        self.observers = observers
        self.leakSuspects = leakSuspects
        self.instances = instances
        self.busName = busName
        self.eventTypes = eventTypes
        self.wildcardObservers = wildcardObservers
        self.deadWildcardObservers = deadWildcardObservers
        self.reclaimedWildcardObservers = reclaimedWildcardObservers
        self.wildcardDeliveries = wildcardDeliveries
    }

    /// The statistics of the event type named `typeName`, if the bus has seen it.
    public subscript(typeName: String) -> EventTypeStatistics? {
        eventTypes.first { $0.typeName == typeName || $0.qualifiedTypeName == typeName }
    }

    /// The statistics of `type`, if the bus has seen it.
    public subscript<T: Event>(type: T.Type) -> EventTypeStatistics? {
        self[String(reflecting: type)]
    }

    /// Events published, all types together. Sums here and below stop at `Int.max` rather
    /// than trap: a snapshot may come from another process, whose counts are not trusted.
    public var totalPublished: Int { eventTypes.clampedSum(\.published) }
    /// Handler calls made, all types together, wildcard observers not included.
    public var totalDelivered: Int { eventTypes.clampedSum(\.delivered) }
    /// Live subscriptions: those of every event type, plus live wildcard observers.
    public var totalLiveSubscribers: Int {
        eventTypes.clampedSum(\.liveSubscribers).clampedAdding(wildcardObservers)
    }
    /// Dead subscriptions awaiting reclaim: those of every event type, plus dead wildcard
    /// observers.
    public var totalDeadSubscribers: Int {
        eventTypes.clampedSum(\.deadSubscribers).clampedAdding(deadWildcardObservers)
    }
    /// Subscriptions reclaimed so far: those of every event type, plus reclaimed wildcard
    /// observers.
    public var totalReclaimed: Int {
        eventTypes.clampedSum(\.reclaimedSubscribers).clampedAdding(reclaimedWildcardObservers)
    }
}
