/// What the bus knows about one observer object: a serial number, its class, when it first
/// subscribed, and how many subscriptions it holds in which lists.
///
/// Made when an object first subscribes, found again by identity when it subscribes more, and
/// dropped when its last subscription goes; part of ``ObserverTable``. Publishes never touch
/// it: each entry carries its observer's serial, and the record changes only when entries are
/// added or removed, under the bus's lock. The weak reference is set once, at creation, so it
/// may be read without the lock (which is where it must be read: see ``EventBus/snapshot()``).
final class ObserverRecord: @unchecked Sendable {
    let serial: UInt64
    /// The object's address, the key it is found by; see ``ObserverTable``.
    let identity: ObjectIdentifier
    /// Where the class is in ``ObserverTable/classNames``, which snapshots tally by.
    let classIndex: Int
    let className: String
    let subscribedAt: ContinuousClock.Instant
    /// Set once, in `init`.
    private(set) weak var observer: AnyObject?
    /// The lists the observer has entries in, with how many; guarded by the bus's lock.
    private(set) var subscriptions: [SlotShare] = []
    /// How many entries in all; guarded by the bus's lock.
    private(set) var subscriptionCount = 0
    /// When the bus first saw the observer's weak reference read `nil`; guarded by the bus's lock.
    var firstSeenDead: ContinuousClock.Instant?
    /// Whether the table holds this record still (it goes with the last subscription); guarded
    /// by the bus's lock.
    var isInTable = true
    /// Set while a reclaim removes this observer's entries, which it finds by this mark; guarded
    /// by the bus's lock.
    var isBeingReclaimed = false

    init(
        serial: UInt64, observer: AnyObject, classIndex: Int, className: String, now: ContinuousClock.Instant
    ) {
        self.serial = serial
        self.classIndex = classIndex
        self.identity = ObjectIdentifier(observer)
        self.observer = observer
        self.className = className
        self.subscribedAt = now
    }

    /// Whether the object is alive. Reading a weak reference briefly holds the object, so this
    /// runs outside the bus's lock, or under it only while the caller holds the object anyway.
    var isAlive: Bool { observer != nil }

    /// One name per subscription, in the order the lists were first joined.
    var subscriptionNames: [String] {
        subscriptions.flatMap { repeatElement($0.slot.name, count: $0.count) }
    }

    func noteAdded(to slot: TypeSlot) {
        subscriptionCount += 1
        if let index = subscriptions.firstIndex(where: { $0.slot === slot }) {
            subscriptions[index].count += 1
        } else {
            subscriptions.append(SlotShare(slot: slot, count: 1))
        }
    }

    func noteRemoved(from slot: TypeSlot, count: Int) {
        guard let index = subscriptions.firstIndex(where: { $0.slot === slot }) else { return }
        let removed = min(count, subscriptions[index].count)
        subscriptionCount -= removed
        subscriptions[index].count -= removed
        if subscriptions[index].count == 0 { subscriptions.remove(at: index) }
    }
}

/// How many entries an observer has in one list.
///
/// The slot is held unowned: the slot's list holds the observer's entries, which hold the
/// record, so a strong reference here would make a cycle that outlived a bus released with
/// subscriptions in it. Records are read only by their bus, which owns its slots.
struct SlotShare {
    unowned let slot: TypeSlot
    var count: Int
}

/// An object the app said should be deallocated soon, watched without being retained.
///
/// Made by ``EventBus/expectDeallocation(of:within:reason:)``; part of ``ObserverTable``. The
/// weak reference is set once and read outside the bus's lock; ``suspectedAt`` is guarded by it.
final class DeallocationWatch: @unchecked Sendable {
    let serial: UInt64
    /// The object's address; compared before the weak reference is read, so that a read under
    /// the lock only ever meets the caller's own object or a dead one (see ``ObserverTable``).
    let identity: ObjectIdentifier
    let className: String
    let reason: String
    let within: Duration
    let deadline: ContinuousClock.Instant
    private(set) weak var target: AnyObject?
    /// When the object was first seen alive past its deadline.
    var suspectedAt: ContinuousClock.Instant?

    init(
        serial: UInt64, target: AnyObject, className: String, reason: String, within: Duration,
        now: ContinuousClock.Instant
    ) {
        self.serial = serial
        self.identity = ObjectIdentifier(target)
        self.target = target
        self.className = className
        self.reason = reason
        self.within = within
        self.deadline = now + within
    }

    /// Whether the object is alive; read outside the bus's lock.
    var isAlive: Bool { target != nil }

    /// Whether this watches `object`, which the caller holds strongly.
    func watches(_ object: AnyObject) -> Bool {
        identity == ObjectIdentifier(object) && target === object
    }
}
