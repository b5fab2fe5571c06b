/// How a simulated screen treats its subscriptions; each kind exercises one path of the bus.
public enum ScreenKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Subscribes with itself as observer and calls `unsubscribe(observer:)` in `deinit`.
    case unsubscribesInDeinit
    /// Subscribes with itself as observer and never unsubscribes: when it is deallocated its
    /// subscriptions die and the bus reclaims them.
    case reliesOnWeakReference
    /// Subscribes to the same type twice by mistake, so the bus reports a duplicate; relies on
    /// weak references afterwards.
    case subscribesTwice
    /// Keeps token subscriptions and cancels them when it closes.
    case cancelsTokens

    /// The view controller class that behaves this way, as lifecycle events name it.
    public var className: String {
        switch self {
        case .unsubscribesInDeinit: return "ProfileViewController"
        case .reliesOnWeakReference: return "InboxViewController"
        case .subscribesTwice: return "NewsFeedViewController"
        case .cancelsTokens: return "SettingsViewController"
        }
    }

    /// A short account of the behaviour.
    public var description: String {
        switch self {
        case .unsubscribesInDeinit: return "unsubscribes in deinit"
        case .reliesOnWeakReference: return "relies on weak references"
        case .subscribesTwice: return "subscribes twice"
        case .cancelsTokens: return "cancels its tokens"
        }
    }
}
