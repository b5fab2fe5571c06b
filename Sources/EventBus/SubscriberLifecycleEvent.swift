/// A change in who listens on a bus, reported to monitors as it happens.
///
/// Observe these with ``EventBus/observeLifecycle(_:)`` to watch subscriptions come and go,
/// including subscriptions the bus reclaimed because their observer was deallocated.
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
    }

    /// The event type name a wildcard subscription is reported under.
    public static let wildcardTypeName = "*"

    /// What happened.
    public let kind: Kind
    /// The readable name of the event type, or ``wildcardTypeName`` for wildcard observers.
    public let eventTypeName: String
    /// How many subscriptions the change covers (a reclaim sweep reports several at once).
    public let count: Int
    /// The class name of the observer, when the subscriptions had one and it is known.
    public let observerTypeName: String?

    /// Creates a lifecycle event; the bus makes these, and tests and replays may too.
    public init(kind: Kind, eventTypeName: String, count: Int = 1, observerTypeName: String? = nil) {
        self.kind = kind
        self.eventTypeName = eventTypeName
        self.count = count
        self.observerTypeName = observerTypeName
    }

    /// A one-line account, such as "reclaimed 3 dead UserLoggedInEvent subscriptions".
    public var description: String {
        let plural = count == 1 ? "subscription" : "subscriptions"
        let type = eventTypeName == Self.wildcardTypeName ? "wildcard" : eventTypeName
        let by = observerTypeName.map { " by \($0)" } ?? ""
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
            return "reclaimed \(count) dead \(type) \(plural)"
        }
    }
}
