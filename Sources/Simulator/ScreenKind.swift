/// How a simulated screen treats its subscriptions; each kind exercises one path of the bus.
package enum ScreenKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
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
    /// Finishes some work after it closes (an upload), which holds it for up to two seconds;
    /// it goes well within the time the app gives it, so it is never a leak suspect.
    case finishesWorkFirst
    /// Captures itself strongly in its handler, the classic leak: the bus holds the handler,
    /// the handler holds the screen, and the screen never goes, so it becomes a leak suspect.
    case capturesSelfStrongly

    /// The kinds a screen is picked from at random; the app opens a leaking one apart, one at a
    /// time.
    static let ordinaryKinds: [ScreenKind] = allCases.filter { $0 != .capturesSelfStrongly }

    /// The view controller class that behaves this way, as lifecycle events name it.
    package var className: String {
        switch self {
        case .unsubscribesInDeinit: return "ProfileViewController"
        case .reliesOnWeakReference: return "InboxViewController"
        case .subscribesTwice: return "NewsFeedViewController"
        case .cancelsTokens: return "SettingsViewController"
        case .finishesWorkFirst: return "PhotoUploadViewController"
        case .capturesSelfStrongly: return "ChatViewController"
        }
    }

    /// A short account of the behaviour.
    package var description: String {
        switch self {
        case .unsubscribesInDeinit: return "unsubscribes in deinit"
        case .reliesOnWeakReference: return "relies on weak references"
        case .subscribesTwice: return "subscribes twice"
        case .cancelsTokens: return "cancels its tokens"
        case .finishesWorkFirst: return "finishes its work after closing"
        case .capturesSelfStrongly: return "captures itself strongly (leaks)"
        }
    }
}
