/// The work a change to ``BusState`` gathers under the lock, to do once it is released:
/// lifecycle events to send, entries and snapshots to let go of, and lists due for a sweep.
struct LifecycleChanges {
    private let enabled: Bool
    private var events: [SubscriberLifecycleEvent] = []
    private var released: [AnyObject] = []
    private var dueForSweep: [TypeSlot] = []
    private var checksWatches = false

    /// Creates an empty list of changes.
    ///
    /// - Parameter enabled: Whether anyone observes lifecycle events; if not, none is recorded.
    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// Records `event`, made only if someone observes lifecycle events.
    mutating func append(_ event: @autoclosure () -> SubscriberLifecycleEvent) {
        guard enabled else { return }
        events.append(event())
    }

    /// Asks for the watched objects to be checked once the lock is released.
    mutating func checkWatches() {
        checksWatches = true
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
            events: events, observers: needed ? observers : [], released: released, dueForSweep: dueForSweep,
            checksWatches: checksWatches)
    }
}
