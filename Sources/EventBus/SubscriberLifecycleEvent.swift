/// A change in who listens on a bus, reported to monitors as it happens.
///
/// Observe these with ``EventBus/observeLifecycle(_:)`` to watch subscriptions come and go,
/// including subscriptions the bus reclaimed because their observer was deallocated, and
/// observers that outlived the time ``EventBus/expectDeallocation(of:within:reason:)`` gave them.
public struct SubscriberLifecycleEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened to the subscriptions.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A subscription was made.
        case subscribed
        /// An observer subscribed to a type it was already subscribed to; the second
        /// subscription is live too, and both handlers run.
        case duplicateSubscription
        /// `unsubscribe(observer:)` removed an observer's subscriptions.
        case unsubscribed
        /// A token was cancelled, explicitly or by being released.
        case cancelled
        /// The bus removed subscriptions whose observer had been deallocated.
        case reclaimed
        /// An object the app expected to be deallocated is still alive after the time it was
        /// given: probably a leak. ``reason``, ``subscriptions`` and ``overdue`` say more.
        case leakSuspected
        /// A leak suspect was deallocated after all.
        case leakCleared
        /// A publish set off more events than ``EventBus/cascadeLimit`` allows; the bus delivered
        /// no more of them. ``eventTypeName`` is the type refused, ``count`` the events set off,
        /// and ``reason`` names the loop with its call sites, such as `Ping → Pong → Ping`.
        case cascadeStopped
        /// A handler threw. ``eventTypeName`` and the observer say whose; ``reason`` is the
        /// error's description. The publisher and the other subscribers never see the error.
        case handlerFailed
        /// A handler call took longer than ``EventBus/slowHandlerThreshold``; ``duration`` says
        /// how long. Reported while someone watches the bus, ten a second at most.
        case slowHandler
        /// A delivery waited longer than ``EventBus/slowDeliveryThreshold`` for its handler to
        /// start, on the main actor, another actor or a dispatch queue; ``duration`` says how
        /// long. Reported while someone watches the bus, ten a second at most.
        case slowDelivery
    }

    /// What removed a dead observer's subscriptions.
    public enum ReclaimCause: Sendable, Hashable, CustomStringConvertible {
        /// A publish of the named event type found the observer dead.
        case publish(eventTypeName: String)
        /// The bus's own sweep, which every operation advances a little.
        case sweep
        /// A call to ``EventBus/reclaimDeadSubscriptions()``.
        case request

        /// "a publish of UserLoggedInEvent", "the sweep" or "a reclaim request".
        public var description: String {
            switch self {
            case .publish(let typeName): return "a publish of \(typeName)"
            case .sweep: return "the sweep"
            case .request: return "a reclaim request"
            }
        }
    }

    /// The event type name a wildcard subscription is reported under.
    public static let wildcardTypeName = "*"

    /// What happened.
    public let kind: Kind
    /// The readable name of the event type, ``wildcardTypeName`` for wildcard observers, or
    /// empty for the leak kinds, which are about an object rather than a type.
    public let eventTypeName: String
    /// How many subscriptions the change covers (an unsubscribe or a reclaim may cover several);
    /// for `.cascadeStopped`, the events set off; for `.handlerFailed`, `.slowHandler` and
    /// `.slowDelivery`, the failures, slow calls or slow deliveries the report stands for: itself, and those that the bus's report
    /// rate limit held back since the previous report (of any handler), which are reported
    /// nowhere else.
    public let count: Int
    /// The class name of the observer, when the subscriptions had one and it is known.
    public let observerTypeName: String?
    /// The observer's serial number on this bus, given when it first subscribed (or was first
    /// watched), so a monitor can follow one object from `subscribed` to `reclaimed`. `nil` for
    /// subscriptions made without an observer.
    public let observerID: UInt64?
    /// For `.reclaimed`: how long the bus had known the observer dead before removing its
    /// subscriptions, when a snapshot, a sweep or a leak check had seen it dead earlier; `nil`
    /// when the removal was the first sight of its death.
    public let deadFor: Duration?
    /// For `.reclaimed`: what removed the subscriptions.
    public let reclaimedBy: ReclaimCause?
    /// For the leak kinds: why the app expected the object to go.
    public let reason: String?
    /// For the leak kinds: the time ``EventBus/expectDeallocation(of:within:reason:)`` gave the
    /// object.
    public let expectedWithin: Duration?
    /// For `.leakSuspected`: how long past its deadline the object was when seen alive.
    public let overdue: Duration?
    /// For `.leakSuspected`: the event types the object is still subscribed to.
    public let subscriptions: [String]
    /// For `.slowHandler`: how long the call took; for `.slowDelivery`: how long the delivery
    /// waited for the handler to start.
    public let duration: Duration?

    /// Creates a lifecycle event; the bus makes these, and tests and replays may too.
    public init(
        kind: Kind, eventTypeName: String, count: Int = 1, observerTypeName: String? = nil,
        observerID: UInt64? = nil, deadFor: Duration? = nil, reclaimedBy: ReclaimCause? = nil,
        reason: String? = nil, expectedWithin: Duration? = nil, overdue: Duration? = nil,
        subscriptions: [String] = [], duration: Duration? = nil
    ) {
        self.kind = kind
        self.eventTypeName = eventTypeName
        self.count = count
        self.observerTypeName = observerTypeName
        self.observerID = observerID
        self.deadFor = deadFor
        self.reclaimedBy = reclaimedBy
        self.reason = reason
        self.expectedWithin = expectedWithin
        self.overdue = overdue
        self.subscriptions = subscriptions
        self.duration = duration
    }

    /// The observer as a monitor names it: `LoginScreen #41`, or just the class or the serial.
    public var observerName: String? {
        switch (observerTypeName, observerID) {
        case (let name?, let id?): return "\(name) #\(id)"
        case (let name?, nil): return name
        case (nil, let id?): return "observer #\(id)"
        case (nil, nil): return nil
        }
    }

    /// " (and 49 more failures held back)" for a report that stands for more than itself.
    private func heldBack(_ what: String) -> String {
        count > 1 ? " (and \(count - 1) more \(what) held back)" : ""
    }

    /// A one-line account, such as "reclaimed 3 dead UserLoggedInEvent subscriptions".
    public var description: String {
        let plural = count == 1 ? "subscription" : "subscriptions"
        let type = eventTypeName == Self.wildcardTypeName ? "wildcard" : eventTypeName
        let by = observerName.map { " by \($0)" } ?? ""
        switch kind {
        case .subscribed:
            return "subscribed to \(type)\(by)"
        case .duplicateSubscription:
            return "duplicate \(type) subscription\(by)"
        case .unsubscribed:
            return "unsubscribed \(count) \(type) \(plural)\(by)"
        case .cancelled:
            return "cancelled \(count) \(type) \(plural)"
        case .reclaimed:
            let of = observerName.map { " of \($0)" } ?? ""
            let when = deadFor.map { " \($0.secondsText) after it was seen dead" } ?? ""
            let cause = reclaimedBy.map { " by \($0)" } ?? ""
            return "reclaimed \(count) dead \(type) \(plural)\(of)\(when)\(cause)"
        case .leakSuspected:
            let name = observerName ?? "an observer"
            // As long as it has lived since the app expected it to go, which is what a person
            // compares with the time given.
            let alive = (expectedWithin ?? .zero) + (overdue ?? .zero)
            let late = alive > .zero ? " \(alive.secondsText)" : ""
            let why = reason.map { $0.isEmpty ? "" : " after \"\($0)\"" } ?? ""
            let subscribed =
                subscriptions.isEmpty ? "" : ", subscribed to \(subscriptions.joined(separator: ", "))"
            return "leak suspected: \(name) still alive\(late)\(why)\(subscribed)"
        case .leakCleared:
            return "leak cleared: \(observerName ?? "an observer") deallocated"
        case .cascadeStopped:
            return "cascade stopped: \(reason ?? "\(count) events set off by one publish")"
        case .handlerFailed:
            let who = observerName ?? "a token's handler"
            return "\(who) failed on \(type): \(reason ?? "an error")\(heldBack("failures"))"
        case .slowHandler:
            let who = observerName ?? "a token's handler"
            let took = duration.map { " took \($0.secondsText)" } ?? " was slow"
            return "slow handler: \(who)\(took) on \(type)\(heldBack("slow calls"))"
        case .slowDelivery:
            let who = observerName ?? "a token's handler"
            let waited = duration.map { " waited \($0.secondsText)" } ?? " waited long"
            return "slow delivery: \(type) to \(who)\(waited) to start\(heldBack("slow deliveries"))"
        }
    }
}
