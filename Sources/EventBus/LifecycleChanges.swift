/// The work a change to ``BusState`` gathers under the lock, to do once it is released:
/// lifecycle events to send, entries and snapshots to let go of, and lists due for a sweep.
struct LifecycleChanges {
    private let enabled: Bool
    private var events: [SubscriberLifecycleEvent] = []
    private var released: [AnyObject] = []
    private var dueForSweep: [TypeSlot] = []

    /// Creates an empty list of changes.
    ///
    /// - Parameter enabled: Whether anyone observes lifecycle events; if not, none is recorded.
    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// Records that `count` subscriptions to the type named `typeName` changed in the way `kind`
    /// says, made by `observer`.
    mutating func append(
        _ kind: SubscriberLifecycleEvent.Kind, _ typeName: String, _ count: Int, observer: AnyObject?
    ) {
        guard enabled, count > 0 else { return }
        append(kind, typeName, count, observer.map { String(describing: type(of: $0)) })
    }

    /// Records that `count` subscriptions to the type named `typeName` changed in the way `kind`
    /// says, made by an observer of the class named `observerTypeName`.
    mutating func append(
        _ kind: SubscriberLifecycleEvent.Kind, _ typeName: String, _ count: Int, _ observerTypeName: String?
    ) {
        guard enabled, count > 0 else { return }
        events.append(
            SubscriberLifecycleEvent(
                kind: kind, eventTypeName: typeName, count: count, observerTypeName: observerTypeName))
    }

    /// Holds `objects` (entries, snapshots) until the lock is released.
    mutating func keepUntilUnlocked(_ objects: [AnyObject]) {
        released += objects
    }

    /// Asks for `slot`'s dead entries to be reclaimed once the lock is released.
    mutating func sweep(_ slot: TypeSlot) {
        dueForSweep.append(slot)
    }

    /// Packs the work for after the lock, with the lifecycle observers as they are now.
    ///
    /// - Parameter announcing: Whether a change will be added after the lock is released.
    func finish(
        notifying observers: [Entry<SubscriberLifecycleEvent>], announcing: Bool = false
    ) -> AfterUnlock {
        // Copying the observers costs an atomic increment, so the publish path, which rarely has
        // news, skips it.
        let needed = enabled && (announcing || !events.isEmpty)
        return AfterUnlock(
            events: events, observers: needed ? observers : [], released: released, dueForSweep: dueForSweep)
    }
}
