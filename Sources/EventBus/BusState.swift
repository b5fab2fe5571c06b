import Synchronization

/// Everything an ``EventBus``'s lock guards: the slots of the event types and their records,
/// the lifecycle observers, what changes retired and publishes may still read, and the
/// sweep's progress.
///
/// A state machine in the manner of swift-async-algorithms' `ChannelStateMachine`: each change
/// is a method that returns what must happen once the lock is released, as an ``AfterUnlock``,
/// so nothing that can run user code (a lifecycle observer, a sweep that checks weak
/// references, the `deinit` of a released handler's captures) runs under the lock. The bus
/// runs every change through ``EventBus/update(_:)``.
struct BusState {
    /// The typed slots' records, in the order their types were first seen.
    private(set) var records: [SlotRecord] = []
    /// Where each type's record is in ``records``.
    private var recordIndex: [ObjectIdentifier: Int] = [:]
    /// The wildcard observers' record, kept apart from the typed ones.
    private(set) var wildcard: SlotRecord
    /// The observer objects holding subscriptions, and the objects expected to be deallocated.
    private(set) var observers = ObserverTable()
    /// The latest sticky event of each type.
    var sticky = StickyStore()
    /// The handler counts of subscriptions that ended, so that a snapshot keeps them.
    private(set) var endedHandlers: [HandlerKey: HandlerTotals] = [:]
    /// Observers of changes in who listens, called after the lock is released.
    private(set) var lifecycleObservers: [Entry<SubscriberLifecycleEvent>] = [] {
        didSet { lifecycleWatch.set(!lifecycleObservers.isEmpty) }
    }
    /// Whether there are lifecycle observers, for publishes to read without the lock.
    private let lifecycleWatch: WatchFlag
    /// Observers of every handler call, which deliveries read through ``callTracing``.
    private var handlerCallObservers: [Entry<HandlerCallRecord>] = [] {
        didSet { callTracing.set(handlerCallObservers) }
    }
    /// What deliveries read of ``handlerCallObservers`` without the bus's lock.
    private let callTracing: HandlerCallTracing
    /// Snapshots that changes retired, and entries they removed, that publishes may still read.
    private var retired = RetiredSnapshots()
    /// The identifier of the last subscription made.
    private var lastID: UInt64 = 0
    /// The sweep's budget, earned by operations; see ``stepSweep(_:credit:skipping:skippingWildcards:)``.
    private var sweepBudget = 0
    /// The position, in ``records`` then the wildcard record, of the next list to sweep.
    private var sweepCursor = 0
    /// The bus's clock, read here only to check deallocation deadlines, and only while
    /// something is watched; every other time comes in as an argument.
    private let clock: BusClock

    /// Creates the state of a bus with no subscriptions.
    ///
    /// - Parameters:
    ///   - wildcardSlot: The slot of the bus's wildcard observers.
    ///   - clock: Where the time of deadline checks comes from.
    init(wildcardSlot: TypeSlot, clock: BusClock, lifecycleWatch: WatchFlag, callTracing: HandlerCallTracing)
    {
        wildcard = SlotRecord(slot: wildcardSlot)
        self.clock = clock
        self.lifecycleWatch = lifecycleWatch
        self.callTracing = callTracing
    }

    // MARK: - Reading

    /// The slot of the type with identity `typeID`, if it was subscribed to or published.
    func slot(for typeID: ObjectIdentifier) -> TypeSlot? {
        recordIndex[typeID].map { records[$0].slot }
    }

    /// Every slot: the typed ones in order, then the wildcard one.
    var allSlots: [TypeSlot] {
        records.map(\.slot) + [wildcard.slot]
    }

    /// Copies of the lists of those `slots` that hold entries bound to observers, which are the
    /// only ones that can die.
    func listsWithObservers(in slots: [TypeSlot]) -> [(TypeSlot, [SubscriberEntry])] {
        slots.compactMap { self[record: $0].hasObservers ? ($0, $0.copyEntries()) : nil }
    }

    /// The record of `slot`, typed or wildcard.
    private subscript(record slot: TypeSlot) -> SlotRecord {
        get {
            slot === wildcard.slot ? wildcard : records[recordIndex[slot.typeID]!]
        }
        _modify {
            if slot === wildcard.slot {
                yield &wildcard
            } else {
                yield &records[recordIndex[slot.typeID]!]
            }
        }
    }

    // MARK: - Changes

    /// The slot of `type`, created on first use.
    mutating func slot(for type: any Event.Type) -> TypeSlot {
        slot(for: type, name: String(describing: type), qualifiedName: String(reflecting: type))
    }

    /// The slot of `type`, an event type or a protocol's existential, created with these names
    /// if needed.
    mutating func slot(for type: Any.Type, name: String, qualifiedName: String) -> TypeSlot {
        let key = ObjectIdentifier(type)
        if let index = recordIndex[key] { return records[index].slot }
        let slot = TypeSlot(typeID: key, name: name, qualifiedName: qualifiedName)
        recordIndex[key] = records.count
        records.append(SlotRecord(slot: slot))
        return slot
    }

    /// Adds the entry `makeEntry` creates, with the next identifier and the serial of
    /// `observer`'s record, to `slot`'s list.
    ///
    /// What runs after the lock reports the subscription, as a duplicate if `observer` already
    /// had a live entry there (which only a check outside the lock can tell).
    ///
    /// - Parameters:
    ///   - observer: The observer, held strongly by the caller for the whole call.
    ///   - now: The time of the subscription, an observer's first subscription's time.
    mutating func subscribe(
        to slot: TypeSlot, observer: AnyObject?, now: ContinuousClock.Instant,
        makeEntry: (_ id: UInt64, _ observerRecord: ObserverRecord?) -> SubscriberEntry
    ) -> (SubscriberEntry, AfterUnlock) {
        lastID += 1
        let record = observer.map { observers.record(for: $0, now: now) }
        record?.noteAdded(to: slot)
        let entry = makeEntry(lastID, record)
        let twins = self[record: slot].noteAdded(entry)
        retired.retire(slot.append(entry), removing: [])
        var changes = startChanges()
        stepSweep(&changes)
        var after = changes.finish(notifying: lifecycleObservers, announcing: true)
        after.reportSubscription(of: observer, serial: record?.serial ?? 0, to: slot, twins: twins)
        return (entry, after)
    }

    /// Watches `object`, which the caller holds, to report it if it outlives `within` from `now`.
    mutating func expectDeallocation(
        of object: AnyObject, within: Duration, reason: String, now: ContinuousClock.Instant
    ) -> AfterUnlock {
        _ = observers.watch(object, within: within, reason: reason, now: now)
        return AfterUnlock()
    }

    /// Applies what a check outside the lock found about the watched objects `checked`: which
    /// are `alive` at `now`. Reports new suspects and suspects that went.
    mutating func settleWatches(
        _ checked: [DeallocationWatch], alive: [Bool], now: ContinuousClock.Instant
    ) -> AfterUnlock {
        let (suspected, cleared) = observers.settle(checked: checked, alive: alive, now: now)
        var changes = startChanges()
        for watch in suspected {
            changes.append(
                SubscriberLifecycleEvent(
                    kind: .leakSuspected, eventTypeName: "", count: 1, observerTypeName: watch.className,
                    observerID: watch.serial, reason: watch.reason, expectedWithin: watch.within,
                    overdue: now - watch.deadline,
                    subscriptions: observers.records[watch.serial]?.subscriptionNames ?? []))
        }
        for watch in cleared {
            changes.append(
                SubscriberLifecycleEvent(
                    kind: .leakCleared, eventTypeName: "", count: 1, observerTypeName: watch.className,
                    observerID: watch.serial, reason: watch.reason, expectedWithin: watch.within))
        }
        return changes.finish(notifying: lifecycleObservers)
    }

    /// Marks the observers with serials `serials` as seen dead at `now`, unless seen earlier.
    func noteSeenDead(_ serials: [UInt64], at now: ContinuousClock.Instant) -> AfterUnlock {
        observers.noteSeenDead(serials, at: now)
        return AfterUnlock()
    }

    /// Adds an observer of lifecycle changes, with the next identifier.
    mutating func observeLifecycle(
        _ handler: @escaping @Sendable (SubscriberLifecycleEvent) -> Void
    ) -> (Entry<SubscriberLifecycleEvent>, AfterUnlock) {
        lastID += 1
        let entry = Entry<SubscriberLifecycleEvent>(
            id: lastID, counters: TypeCounters(), observer: nil, scheduler: nil, handler: handler)
        lifecycleObservers.append(entry)
        return (entry, AfterUnlock())
    }

    /// Adds an observer of handler calls, with the next identifier.
    mutating func observeHandlerCalls(
        _ handler: @escaping @Sendable (HandlerCallRecord) -> Void
    ) -> (Entry<HandlerCallRecord>, AfterUnlock) {
        lastID += 1
        let entry = Entry<HandlerCallRecord>(
            id: lastID, counters: TypeCounters(), observer: nil, scheduler: nil, handler: handler)
        handlerCallObservers.append(entry)
        return (entry, AfterUnlock())
    }

    /// Removes and cancels every entry of `observer`, typed and wildcard; returns them.
    mutating func unsubscribe(_ observer: AnyObject) -> ([SubscriberEntry], AfterUnlock) {
        let observerID = ObjectIdentifier(observer)
        var changes = startChanges()
        var removedEntries: [SubscriberEntry] = []
        let className = String(describing: type(of: observer))
        for slot in allSlots where self[record: slot].entriesPerObserver[observerID] != nil {
            let removed = removeEntries(from: slot) { $0.observerID == observerID }
            for entry in removed { _ = entry.markCancelled() }
            self[record: slot].unsubscribed += removed.count
            // Entries at this address may belong to an earlier object that died there; each
            // record is settled apart. A record's weak reference reads `observer`, which the
            // caller holds, or `nil` (inside `deinit`, or for the earlier object).
            for (record, count) in Self.countPerObserver(removed) {
                observers.noteRemoved(record, from: slot, count: count, deallocated: !record.isAlive)
                changes.append(
                    SubscriberLifecycleEvent(
                        kind: .unsubscribed, eventTypeName: slot.name, count: count,
                        observerTypeName: className,
                        observerID: record.serial))
            }
            removedEntries += removed
        }
        stepSweep(&changes)
        return (removedEntries, changes.finish(notifying: lifecycleObservers))
    }

    /// Removes `entry`, already marked cancelled, from where `location` says it is.
    mutating func cancel(_ entry: SubscriberEntry, in location: Subscription.Location) -> AfterUnlock {
        var changes = startChanges()
        let slot: TypeSlot?
        switch location {
        case .type(let typeSlot): slot = typeSlot
        case .wildcard: slot = wildcard.slot
        case .lifecycle:
            slot = nil
            lifecycleObservers.removeAll { $0 === entry }
        case .handlerCalls:
            slot = nil
            handlerCallObservers.removeAll { $0 === entry }
        }
        if let slot {
            let removed = removeEntries(from: slot) { $0 === entry }
            self[record: slot].cancelled += removed.count
            if !removed.isEmpty {
                if let record = entry.observerRecord {
                    observers.noteRemoved(record, from: slot, count: removed.count, deallocated: false)
                }
                changes.append(
                    SubscriberLifecycleEvent(
                        kind: .cancelled, eventTypeName: slot.name, count: removed.count,
                        observerID: entry.observerRecord?.serial))
            }
        }
        stepSweep(&changes)
        return changes.finish(notifying: lifecycleObservers)
    }

    /// Removes and cancels every entry of the observers of `records`, found dead outside the
    /// lock; returns how many entries went.
    ///
    /// A dead observer's entries are all dead, in every list, so all of them go at once, and
    /// the removal reports each object once per list it was in. Entries are matched through
    /// their record, which no later object shares.
    ///
    /// - Parameters:
    ///   - records: The dead observers' records, each perhaps several times, perhaps already
    ///     gone from the table (another thread reclaimed them first).
    ///   - cause: What found them dead, for the lifecycle events.
    ///   - now: When they were found dead.
    mutating func reclaim(
        observers records: [ObserverRecord], cause: SubscriberLifecycleEvent.ReclaimCause,
        now: ContinuousClock.Instant
    ) -> (Int, AfterUnlock) {
        var changes = startChanges()
        var count = 0
        var slots: [TypeSlot] = []
        for record in records where record.isInTable && !record.isBeingReclaimed {
            record.isBeingReclaimed = true
            for share in record.subscriptions where !slots.contains(where: { $0 === share.slot }) {
                slots.append(share.slot)
            }
        }
        for slot in slots {
            let removed = removeEntries(from: slot) { $0.observerRecord?.isBeingReclaimed == true }
            for entry in removed { _ = entry.markCancelled() }
            self[record: slot].reclaimed += removed.count
            count += removed.count
            changes.keepUntilUnlocked(removed)
            for (record, removedCount) in Self.countPerObserver(removed) {
                changes.append(
                    SubscriberLifecycleEvent(
                        kind: .reclaimed, eventTypeName: slot.name, count: removedCount,
                        observerTypeName: record.className, observerID: record.serial,
                        deadFor: record.firstSeenDead.map { now - $0 }, reclaimedBy: cause))
                observers.noteRemoved(record, from: slot, count: removedCount, deallocated: true)
            }
        }
        collectRetired(&changes)
        return (count, changes.finish(notifying: lifecycleObservers))
    }

    /// The slot of `type`, for a publish that missed its thread's cache, with a step of the
    /// sweep for that publish.
    mutating func slotForPublish(of type: any Event.Type) -> (TypeSlot, AfterUnlock) {
        let slot = slot(for: type)
        var changes = startChanges()
        stepSweep(&changes, skipping: slot, skippingWildcards: wildcard.slot.hasSubscribers)
        return (slot, changes.finish(notifying: lifecycleObservers))
    }

    /// A step of the sweep for a batch of publishes of `slot`'s type.
    mutating func stepSweep(forPublishesOf slot: TypeSlot, credit: Int) -> AfterUnlock {
        var changes = startChanges()
        stepSweep(&changes, credit: credit, skipping: slot, skippingWildcards: wildcard.slot.hasSubscribers)
        return changes.finish(notifying: lifecycleObservers)
    }

    /// Counts a subscription to `slot` found, after the lock, to duplicate a live one.
    mutating func countDuplicate(in slot: TypeSlot) -> AfterUnlock {
        self[record: slot].duplicates += 1
        return AfterUnlock()
    }

    // MARK: - Helpers

    /// How many of `entries` each observer has, in the order the observers first appear.
    private static func countPerObserver(
        _ entries: [SubscriberEntry]
    ) -> [(record: ObserverRecord, count: Int)] {
        var counts: [(record: ObserverRecord, count: Int)] = []
        var indexOfRecord: [ObjectIdentifier: Int] = [:]
        for entry in entries {
            guard let record = entry.observerRecord else { continue }
            // Entries of one observer are usually next to each other: no lookup then.
            if let last = counts.indices.last, counts[last].record === record {
                counts[last].count += 1
            } else if let index = indexOfRecord[ObjectIdentifier(record)] {
                counts[index].count += 1
            } else {
                indexOfRecord[ObjectIdentifier(record)] = counts.count
                counts.append((record, 1))
            }
        }
        return counts
    }

    /// Tells lifecycle observers of `event`, once the lock is released.
    func report(_ event: SubscriberLifecycleEvent) -> AfterUnlock {
        var changes = startChanges()
        changes.append(event)
        return changes.finish(notifying: lifecycleObservers)
    }

    /// An empty list of changes, which records lifecycle events only if someone observes them.
    private func startChanges() -> LifecycleChanges {
        LifecycleChanges(enabled: !lifecycleObservers.isEmpty)
    }

    /// Removes `slot`'s entries matching `predicate`, keeping what the change retired until no
    /// publish reads it; returns the entries removed.
    private mutating func removeEntries(
        from slot: TypeSlot, where predicate: (SubscriberEntry) -> Bool
    ) -> [SubscriberEntry] {
        let (removed, snapshot) = slot.removeEntries(where: predicate)
        self[record: slot].noteRemoved(removed)
        for entry in removed {
            let totals = entry.measurements.totals
            guard !totals.isEmpty else { continue }
            let key = HandlerKey(observerTypeName: entry.observerTypeName, eventTypeName: slot.name)
            endedHandlers[key] = (endedHandlers[key] ?? HandlerTotals()) + totals
        }
        retired.retire(snapshot, removing: removed)
        return removed
    }

    /// Does a bounded share of the work of reclaiming dead subscriptions.
    ///
    /// Every operation earns budget; when the budget covers the size of the next type's list in
    /// round-robin order, that list is swept. Sweeping costs amortised O(1) per operation, and
    /// every dead entry goes within a bounded number of operations, even for a type that is
    /// never published again. The sweep itself runs once the lock is released.
    ///
    /// Publishes step the sweep in batches: each thread counts its publishes per cached slot and
    /// steps once per ``EventBus/publishesPerSweepStep``, and a publish that misses the thread's
    /// cache steps at once. A batch cut short when its cache entry is replaced loses fewer than
    /// ``EventBus/publishesPerSweepStep`` publishes, and each replacement comes with a miss that
    /// steps, so at least one publish in ``EventBus/publishesPerSweepStep`` still pays for the
    /// sweep.
    ///
    /// - Parameters:
    ///   - credit: The budget earned: 2 per operation this step stands for.
    ///   - skipping: A list the caller is about to check entry by entry anyway; its turn passes
    ///     without a sweep.
    ///   - skippingWildcards: Whether the wildcard list is checked likewise.
    private mutating func stepSweep(
        _ changes: inout LifecycleChanges, credit: Int = 2, skipping: TypeSlot? = nil,
        skippingWildcards: Bool = false
    ) {
        collectRetired(&changes)
        if observers.isWatchCheckDue(clock: clock) { changes.checkWatches() }
        sweepBudget = min(sweepBudget + credit, 1 << 30)
        let slotCount = records.count + 1
        // A step standing for a batch of publishes may pay for several lists; one round at most.
        for _ in 0..<slotCount {
            if sweepCursor >= slotCount { sweepCursor = 0 }
            let isWildcard = sweepCursor == records.count
            let slot = isWildcard ? wildcard.slot : records[sweepCursor].slot
            let hasObservers = isWildcard ? wildcard.hasObservers : records[sweepCursor].hasObservers
            // Exact: every change to the list stores its count, under this lock.
            let cost = hasObservers ? max(16, slot.subscriberCount.load(ordering: .relaxed)) : 1
            guard sweepBudget >= cost else { return }
            sweepBudget -= cost
            sweepCursor += 1
            let isChecked = slot === skipping || (skippingWildcards && isWildcard)
            if hasObservers && !isChecked { changes.sweep(slot) }
        }
    }

    /// Hands what changes retired and no publish reads any more to `changes`, to be freed once
    /// the lock is released.
    ///
    /// A snapshot stays while a thread announces it; an entry stays while an announced snapshot
    /// holds it. The rest goes at once, so a cancelled subscription's handler (and whatever it
    /// captured) is released when it is cancelled, unless a publish on another thread is reading
    /// a list that holds it right then; that one goes at a later operation on the bus.
    private mutating func collectRetired(_ changes: inout LifecycleChanges) {
        guard !retired.isEmpty else { return }
        var released: [AnyObject] = []
        retired.collect(into: &released)
        changes.keepUntilUnlocked(released)
    }
}
