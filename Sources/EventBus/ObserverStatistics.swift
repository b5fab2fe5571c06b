/// What a bus knows, at one moment, about the observer objects of one class.
///
/// One row of ``BusSnapshot/observers``. An observer object is whatever was passed as
/// `observer:` to a subscribe method (wildcard observers included); token subscriptions made
/// without one are not counted here.
public struct ObserverStatistics: Sendable, Hashable {
    /// The observer's class name, as `String(describing:)` writes it.
    public let className: String
    /// Instances alive with at least one subscription on the bus.
    public let liveInstances: Int
    /// Instances that have been deallocated while the bus still holds their subscriptions,
    /// which it reclaims as it goes.
    public let deadInstances: Int
    /// Subscriptions of the live instances.
    public let liveSubscriptions: Int
    /// Subscriptions of the dead instances, not yet removed.
    public let deadSubscriptions: Int
    /// Instances deallocated since the bus was created whose subscriptions are all gone, reclaimed
    /// by the bus or removed by `unsubscribe(observer:)` in their `deinit`.
    public let reclaimedInstances: Int
    /// Instances still alive after the time ``EventBus/expectDeallocation(of:within:reason:)``
    /// gave them.
    public let leakSuspects: Int
    /// Handler calls of the class's subscriptions that threw.
    public let handlerFailures: Int

    /// Creates statistics; the bus makes these, and tests and replays may too.
    public init(
        className: String, liveInstances: Int = 0, deadInstances: Int = 0, liveSubscriptions: Int = 0,
        deadSubscriptions: Int = 0, reclaimedInstances: Int = 0, leakSuspects: Int = 0,
        handlerFailures: Int = 0
    ) {
        self.handlerFailures = handlerFailures
        self.className = className
        self.liveInstances = liveInstances
        self.deadInstances = deadInstances
        self.liveSubscriptions = liveSubscriptions
        self.deadSubscriptions = deadSubscriptions
        self.reclaimedInstances = reclaimedInstances
        self.leakSuspects = leakSuspects
    }
}

/// An object the app said should be deallocated by now, which is still alive.
///
/// Made by ``EventBus/expectDeallocation(of:within:reason:)`` once its time is up; listed in
/// ``BusSnapshot/leakSuspects`` until the object goes. The usual cause is a handler that
/// captures its observer strongly, so the bus's subscription keeps it alive.
public struct LeakSuspect: Sendable, Hashable, CustomStringConvertible {
    /// The observer's serial number on its bus (``SubscriberLifecycleEvent/observerID``).
    public let observerID: UInt64
    /// The observer's class name.
    public let className: String
    /// Why it should have gone, as the app said ("screen closed").
    public let reason: String
    /// How long past its deadline it is, as of the snapshot.
    public let overdue: Duration
    /// The event types it is still subscribed to, one name per subscription.
    public let subscriptions: [String]

    /// Creates a suspect; the bus makes these, and tests and replays may too.
    public init(
        observerID: UInt64, className: String, reason: String, overdue: Duration, subscriptions: [String]
    ) {
        self.observerID = observerID
        self.className = className
        self.reason = reason
        self.overdue = overdue
        self.subscriptions = subscriptions
    }

    /// One line, such as `ProfileScreen #7 still alive 5.0 s after "screen closed"`.
    public var description: String {
        let why = reason.isEmpty ? "it was expected to go" : "\"\(reason)\""
        let subscribed =
            subscriptions.isEmpty ? "" : ", subscribed to \(subscriptions.joined(separator: ", "))"
        return "\(className) #\(observerID) overdue by \(overdue.secondsText) after \(why)\(subscribed)"
    }
}

/// The state of one observer object as the bus sees it.
public enum ObserverState: String, Sendable, Hashable, CaseIterable {
    /// Alive, with subscriptions that receive events.
    case live
    /// Deallocated; its subscriptions are still in the bus's lists, never called, until the bus
    /// reclaims them.
    case dead
    /// Deallocated, and its subscriptions are gone.
    case reclaimed
}

/// One observer object on a bus, as listed by ``EventBus/snapshot(instancesPerClass:)``.
public struct ObserverInstance: Sendable, Hashable {
    /// The serial number the bus gave the object when it first subscribed.
    public let observerID: UInt64
    /// The object's class name.
    public let className: String
    /// How long ago it first subscribed, as of the snapshot.
    public let age: Duration
    /// The event types it is subscribed to, one name per subscription (`*` for wildcard).
    public let subscriptions: [String]
    /// Whether it is alive.
    public let state: ObserverState
    /// Why the app expected it to be gone, when it is a leak suspect.
    public let leakReason: String?
    /// How long past the deadline it is, when it is a leak suspect.
    public let overdue: Duration?

    /// Creates an instance row; the bus makes these, and tests and replays may too.
    public init(
        observerID: UInt64, className: String, age: Duration, subscriptions: [String], state: ObserverState,
        leakReason: String? = nil, overdue: Duration? = nil
    ) {
        self.observerID = observerID
        self.className = className
        self.age = age
        self.subscriptions = subscriptions
        self.state = state
        self.leakReason = leakReason
        self.overdue = overdue
    }

    /// Whether the app expected it to be gone by now.
    public var isLeakSuspect: Bool { overdue != nil }
}

extension Duration {
    /// Seconds with one decimal, such as `5.0 s`, or milliseconds below a second, such as `12 ms`
    /// (`under 1 ms` for less).
    var secondsText: String {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        if milliseconds == 0, self > .zero { return "under 1 ms" }
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        let tenths = milliseconds / 100
        return "\(tenths / 10).\(tenths % 10) s"
    }
}

/// The handler calls of one observer class's subscriptions (or of token subscriptions) to one
/// event type, as ``EventBus/snapshot()`` reports them.
///
/// Calls are timed while anything watches the bus (a delivery or lifecycle observer, a tap, a
/// bridge's monitoring), except those of a monitor's own buffer (an in-process capture's, a
/// tap's), which are not an app's handlers; failures are counted always. Below about 100,000 timed calls a second
/// each call is timed on the system's monotonic clock. Above that, a reading refreshed every
/// millisecond times them: a single short call may read 0, totals and averages over many calls
/// come out right, and no call reads shorter than it took.
public struct HandlerStatistics: Sendable, Hashable {
    /// The observer's class, or `nil` for subscriptions made with a token and no observer.
    public let observerTypeName: String?
    /// The event type, or ``SubscriberLifecycleEvent/wildcardTypeName`` for wildcard handlers.
    public let eventTypeName: String
    /// Calls timed.
    public let calls: Int
    /// Their total time.
    public let total: Duration
    /// The longest call.
    public let maximum: Duration
    /// Calls longer than ``EventBus/slowHandlerThreshold``.
    public let slowCalls: Int
    /// Calls that threw.
    public let failures: Int
    /// Events a bounded buffer between the bus and the subscriber dropped before it read them:
    /// those an async stream from ``EventBus/events(of:bufferingNewest:)`` let go.
    public let dropped: Int
    /// How long deliveries waited for the handler to start: zero for calls made in the
    /// publish, the time in line for a main-actor hop, an actor's mailbox or a dispatch queue.
    public let waits: DeliveryWaits

    /// Creates statistics; the bus makes these, and tests and replays may too.
    public init(
        observerTypeName: String?, eventTypeName: String, calls: Int = 0, total: Duration = .zero,
        maximum: Duration = .zero, slowCalls: Int = 0, failures: Int = 0, dropped: Int = 0,
        waits: DeliveryWaits = .unmeasured
    ) {
        self.dropped = dropped
        self.waits = waits
        self.observerTypeName = observerTypeName
        self.eventTypeName = eventTypeName
        self.calls = calls
        self.total = total
        self.maximum = maximum
        self.slowCalls = slowCalls
        self.failures = failures
    }

    /// The mean time of a call, or `nil` before any was timed.
    public var average: Duration? { calls > 0 ? total / calls : nil }

    /// Whether `self` should be listed before `other`: more slow calls, slow deliveries,
    /// failures and drops first, then the longer maximum, then the longer total. The counts
    /// are added up to `Int.max` at most: a row may come from another process.
    public func isWorse(than other: HandlerStatistics) -> Bool {
        let trouble = slowCalls.clampedAdding(waits.slowDeliveries).clampedAdding(failures).clampedAdding(
            dropped)
        let otherTrouble = other.slowCalls.clampedAdding(other.waits.slowDeliveries)
            .clampedAdding(other.failures).clampedAdding(other.dropped)
        if trouble != otherTrouble { return trouble > otherTrouble }
        if maximum != other.maximum { return maximum > other.maximum }
        if total != other.total { return total > other.total }
        return (observerTypeName ?? "", eventTypeName) < (other.observerTypeName ?? "", other.eventTypeName)
    }
}
