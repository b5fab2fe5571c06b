extension EventBus {
    /// The bus's subscribers and counters per event type, and its observers per class, as they
    /// are now.
    ///
    /// Counts each list once and reads each observer's weak reference once, so it costs
    /// O(subscriptions + observers); meant for monitors and tests, a few times a second, not for
    /// every publish. It also checks the objects given to
    /// ``expectDeallocation(of:within:reason:)``, so its ``BusSnapshot/leakSuspects`` are
    /// current.
    ///
    /// - Returns: Statistics for every event type subscribed to or published so far, and for
    ///   every observer class.
    public func snapshot() -> BusSnapshot {
        snapshot(instancesPerClass: 0)
    }

    /// A ``snapshot()`` that also lists up to `instancesPerClass` observer objects of each
    /// class in ``BusSnapshot/instances``: its leak suspects first, then its dead instances, then
    /// its newest live ones.
    ///
    /// - Parameter instancesPerClass: How many objects of each class to list at most.
    public func snapshot(instancesPerClass: Int) -> BusSnapshot {
        checkWatches()
        // The counters are read under the lock; the lists are copied there and counted after it,
        // since checking a weak reference briefly holds the observer, and a `deinit` run by the
        // end of that hold must not find the lock taken.
        let copied = state.withLockedValue { state in
            let lists = state.records.map { record in
                (
                    record.slot.copyEntries(),
                    EventTypeStatistics(
                        typeName: record.slot.name, qualifiedTypeName: record.slot.qualifiedName,
                        reclaimedSubscribers: record.reclaimed, unsubscribedSubscribers: record.unsubscribed,
                        cancelledSubscribers: record.cancelled, duplicateSubscriptions: record.duplicates,
                        published: record.slot.counters.publishedCount,
                        delivered: record.slot.counters.deliveredCount,
                        unheard: record.slot.counters.unheardCount)
                )
            }
            return (
                lists: lists, wildcardEntries: state.wildcard.slot.copyEntries(),
                wildcardReclaimed: state.wildcard.reclaimed,
                observers: state.observers.records.values.map(ObserverCopy.init),
                reclaimedPerClass: state.observers.reclaimedPerClass,
                suspects: state.observers.watches.compactMap { watch in
                    watch.suspectedAt.map { _ in
                        (watch, state.observers.records[watch.serial]?.subscriptions ?? [])
                    }
                }
            )
        }

        let types = copied.lists.map { entries, counters in
            let (live, dead) = Self.countLiveAndDead(entries)
            return counters.with(liveSubscribers: live, deadSubscribers: dead)
        }
        let (wildcardLive, wildcardDead) = Self.countLiveAndDead(copied.wildcardEntries)
        let now = ContinuousClock.now
        let alive = copied.observers.map(\.record.isAlive)
        let newlyDead = zip(copied.observers, alive).compactMap { observer, isAlive in
            !isAlive && observer.firstSeenDead == nil ? observer.record.serial : nil
        }
        if !newlyDead.isEmpty { update { ((), $0.noteSeenDead(newlyDead, at: now)) } }

        let suspects = copied.suspects.map { watch, subscriptions in
            LeakSuspect(
                observerID: watch.serial, className: watch.className, reason: watch.reason,
                overdue: now - watch.deadline, subscriptions: ObserverCopy.names(subscriptions))
        }.sorted { $0.overdue > $1.overdue }
        let observers = Self.observerStatistics(
            copied.observers, alive: alive, reclaimedPerClass: copied.reclaimedPerClass, suspects: suspects)
        let instances =
            instancesPerClass > 0
            ? Self.instances(
                copied.observers, alive: alive, suspects: suspects, now: now, limit: instancesPerClass)
            : []
        return BusSnapshot(
            busName: name, eventTypes: types.sorted { $0.typeName < $1.typeName },
            wildcardObservers: wildcardLive, deadWildcardObservers: wildcardDead,
            reclaimedWildcardObservers: copied.wildcardReclaimed,
            wildcardDeliveries: wildcardSlot.counters.deliveredCount, observers: observers,
            leakSuspects: suspects, instances: instances)
    }

    /// What a snapshot copies of an observer's record under the lock. Copying the list of
    /// subscriptions costs a retain; names are made from it only for the objects listed.
    private struct ObserverCopy {
        let record: ObserverRecord
        let subscriptionCount: Int
        let subscriptions: [(slot: TypeSlot, count: Int)]
        let firstSeenDead: ContinuousClock.Instant?

        init(_ record: ObserverRecord) {
            self.record = record
            self.subscriptionCount = record.subscriptionCount
            self.subscriptions = record.subscriptions
            self.firstSeenDead = record.firstSeenDead
        }

        static func names(_ subscriptions: [(slot: TypeSlot, count: Int)]) -> [String] {
            subscriptions.flatMap { repeatElement($0.slot.name, count: $0.count) }
        }
    }

    private static func observerStatistics(
        _ observers: [ObserverCopy], alive: [Bool], reclaimedPerClass: [String: Int], suspects: [LeakSuspect]
    ) -> [ObserverStatistics] {
        struct Tally {
            var live = 0
            var dead = 0
            var liveSubscriptions = 0
            var deadSubscriptions = 0
            var suspects = 0
        }
        var tallies: [String: Tally] = [:]
        for (observer, isAlive) in zip(observers, alive) {
            let className = observer.record.className
            if isAlive {
                tallies[className, default: Tally()].live += 1
                tallies[className, default: Tally()].liveSubscriptions += observer.subscriptionCount
            } else {
                tallies[className, default: Tally()].dead += 1
                tallies[className, default: Tally()].deadSubscriptions += observer.subscriptionCount
            }
        }
        for suspect in suspects { tallies[suspect.className, default: Tally()].suspects += 1 }
        for className in reclaimedPerClass.keys where tallies[className] == nil {
            tallies[className] = Tally()
        }
        return tallies.map { className, tally in
            ObserverStatistics(
                className: className, liveInstances: tally.live, deadInstances: tally.dead,
                liveSubscriptions: tally.liveSubscriptions, deadSubscriptions: tally.deadSubscriptions,
                reclaimedInstances: reclaimedPerClass[className] ?? 0, leakSuspects: tally.suspects)
        }.sorted { $0.className < $1.className }
    }

    private static func instances(
        _ observers: [ObserverCopy], alive: [Bool], suspects: [LeakSuspect], now: ContinuousClock.Instant,
        limit: Int
    ) -> [ObserverInstance] {
        let suspectBySerial = Dictionary(
            suspects.map { ($0.observerID, $0) }, uniquingKeysWith: { first, _ in first })
        var perClass: [String: [ObserverInstance]] = [:]
        for (observer, isAlive) in zip(observers, alive) {
            let record = observer.record
            let suspect = suspectBySerial[record.serial]
            perClass[record.className, default: []].append(
                ObserverInstance(
                    observerID: record.serial, className: record.className, age: now - record.subscribedAt,
                    subscriptions: ObserverCopy.names(observer.subscriptions), state: isAlive ? .live : .dead,
                    leakReason: suspect?.reason, overdue: suspect?.overdue))
        }
        // Suspects that hold no subscription have no record, yet are listed.
        let recorded = Set(observers.map(\.record.serial))
        for suspect in suspects where !recorded.contains(suspect.observerID) {
            perClass[suspect.className, default: []].append(
                ObserverInstance(
                    observerID: suspect.observerID, className: suspect.className, age: .zero,
                    subscriptions: [],
                    state: .live, leakReason: suspect.reason, overdue: suspect.overdue))
        }
        func rank(_ instance: ObserverInstance) -> Int {
            instance.isLeakSuspect ? 0 : instance.state == .dead ? 1 : 2
        }
        return perClass.keys.sorted().flatMap { className in
            perClass[className]!.sorted { left, right in
                rank(left) != rank(right) ? rank(left) < rank(right) : left.observerID > right.observerID
            }.prefix(limit)
        }
    }

    private static func countLiveAndDead(_ entries: [SubscriberEntry]) -> (live: Int, dead: Int) {
        var live = 0
        var dead = 0
        for entry in entries where !entry.isCancelled {
            if entry.isDead { dead += 1 } else { live += 1 }
        }
        return (live, dead)
    }
}

extension EventTypeStatistics {
    /// These counters with the given subscriber counts.
    func with(liveSubscribers: Int, deadSubscribers: Int) -> EventTypeStatistics {
        EventTypeStatistics(
            typeName: typeName, qualifiedTypeName: qualifiedTypeName, liveSubscribers: liveSubscribers,
            deadSubscribers: deadSubscribers, reclaimedSubscribers: reclaimedSubscribers,
            unsubscribedSubscribers: unsubscribedSubscribers, cancelledSubscribers: cancelledSubscribers,
            duplicateSubscriptions: duplicateSubscriptions, published: published, delivered: delivered,
            unheard: unheard)
    }
}
