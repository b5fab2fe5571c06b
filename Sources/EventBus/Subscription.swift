/// A live subscription on an ``EventBus``: keep it to go on receiving events, cancel it to stop.
///
/// A token from the token forms (`subscribe(to:handler:)`, ``EventBus/subscribe(to:on:sticky:handler:)-90ls9``,
/// `subscribeAll(handler:)` and the like) cancels itself when released, so storing it in a
/// property ties the subscription to its owner:
///
/// ```swift
/// final class Badge {
///     private var tokens: Set<Subscription> = []
///     init(bus: EventBus) {
///         bus.subscribe(to: DataLoadedEvent.self) { print($0.data) }.store(in: &tokens)
///     }
/// }
/// ```
///
/// A token from the observer forms (`subscribe(observer:...)`) does not: that subscription lasts
/// as long as its observer, and the token only offers an early ``cancel()``.
public final class Subscription: @unchecked Sendable, Hashable {
    /// Where the bus keeps the entry.
    enum Location {
        case type(TypeSlot)
        case wildcard
        case lifecycle
        case handlerCalls
    }

    // Set once in `init`; weak so that a forgotten token does not keep its bus alive.
    private weak var bus: EventBus?
    let entry: SubscriberEntry
    let location: Location

    init(bus: EventBus, entry: SubscriberEntry, location: Location) {
        self.bus = bus
        self.entry = entry
        self.location = location
    }

    deinit {
        if entry.observerID == nil { cancel() }
    }

    /// A number that identifies this subscription on its bus, in subscription order.
    public var id: UInt64 { entry.id }

    /// Whether the handler can still be called: not cancelled, observer alive, bus alive.
    public var isActive: Bool {
        !entry.isCancelled && !entry.isDead && bus != nil
    }

    /// Ends the subscription. Calling it again does nothing.
    ///
    /// When this returns no new call of the handler starts. Called from outside any handler, it
    /// also waits for calls already running on other threads to return, so state the handler
    /// touches can be torn down right after.
    public func cancel() {
        if let bus {
            bus.cancel(entry, in: location)
        } else {
            _ = entry.markCancelled()
        }
    }

    /// Keeps this token in `set`, so that the subscription lasts as long as the set holds it.
    ///
    /// - Parameter set: The collection of tokens an owner keeps.
    public func store(in set: inout Set<Subscription>) {
        set.insert(self)
    }

    /// Whether two tokens are the same subscription.
    public static func == (lhs: Subscription, rhs: Subscription) -> Bool {
        lhs === rhs
    }

    /// Hashes the token's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
