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
        flushHeldBackReports()
        // The counters are read under the lock; the lists are copied there and counted after it,
        // since checking a weak reference briefly holds the observer, and a `deinit` run by the
        // end of that hold must not find the lock taken.
        let copied = state.withLock { state in
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
            var observers = ContiguousArray<ObserverCopy>()
            observers.reserveCapacity(state.observers.records.count)
            for record in state.observers.records.values { observers.append(ObserverCopy(record)) }
            return (
                lists: lists, wildcardEntries: state.wildcard.slot.copyEntries(),
                endedHandlers: state.endedHandlers, stickyEvents: state.sticky.all,
                wildcardReclaimed: state.wildcard.reclaimed, observers: observers,
                classNames: state.observers.classNames, reclaimedPerClass: state.observers.reclaimedPerClass,
                suspects: state.observers.watches.compactMap { watch in
                    watch.suspectedAt.map { _ in
                        (watch, state.observers.records[watch.serial]?.subscriptions ?? [])
                    }
                }
            )
        }

        let handlers = Self.handlerStatistics(
            lists: copied.lists.map { ($0.1.typeName, $0.0) } + [
                (SubscriberLifecycleEvent.wildcardTypeName, copied.wildcardEntries)
            ],
            ended: copied.endedHandlers)
        var failuresPerType: [String: Int] = [:]
        var failuresPerClass: [String: Int] = [:]
        var droppedPerType: [String: Int] = [:]
        for row in handlers where row.dropped > 0 {
            droppedPerType[row.eventTypeName, default: 0] += row.dropped
        }
        for row in handlers where row.failures > 0 {
            failuresPerType[row.eventTypeName, default: 0] += row.failures
            if let name = row.observerTypeName { failuresPerClass[name, default: 0] += row.failures }
        }
        let types = copied.lists.map { entries, counters in
            let (live, dead) = Self.countLiveAndDead(entries)
            return counters.with(
                liveSubscribers: live, deadSubscribers: dead,
                handlerFailures: failuresPerType[counters.typeName] ?? 0,
                dropped: droppedPerType[counters.typeName] ?? 0)
        }
        let (wildcardLive, wildcardDead) = Self.countLiveAndDead(copied.wildcardEntries)
        let now = clock.now()
        var alive = [Bool](repeating: false, count: copied.observers.count)
        var newlyDead: [UInt64] = []
        copied.observers.withUnsafeBufferPointer { observers in
            for index in observers.indices {
                alive[index] = observers[index].record.isAlive
                if !alive[index], observers[index].firstSeenDead == nil {
                    newlyDead.append(observers[index].record.serial)
                }
            }
        }
        if !newlyDead.isEmpty { update { ((), $0.noteSeenDead(newlyDead, at: now)) } }

        let suspects = copied.suspects.map { watch, subscriptions in
            LeakSuspect(
                observerID: watch.serial, className: watch.className, reason: watch.reason,
                overdue: now - watch.deadline, subscriptions: Self.names(subscriptions))
        }.sorted { $0.overdue > $1.overdue }
        let observers = Self.observerStatistics(
            copied.observers, alive: alive, classNames: copied.classNames,
            reclaimedPerClass: copied.reclaimedPerClass, suspects: suspects,
            failuresPerClass: failuresPerClass)
        let instances =
            instancesPerClass > 0
            ? instances(
                copied.observers, alive: alive, classNames: copied.classNames, suspects: suspects, now: now,
                limit: instancesPerClass)
            : []
        return BusSnapshot(
            busName: name, eventTypes: types.sorted { $0.typeName < $1.typeName },
            wildcardObservers: wildcardLive, deadWildcardObservers: wildcardDead,
            reclaimedWildcardObservers: copied.wildcardReclaimed,
            wildcardDeliveries: wildcardSlot.counters.deliveredCount, observers: observers,
            leakSuspects: suspects, instances: instances, handlers: handlers,
            stickyEvents: copied.stickyEvents)
    }

    /// The handler counts of every subscription in `lists` (type name and entries), with those
    /// of subscriptions that ended, per observer class (or token) and type, worst first.
    private static func handlerStatistics(
        lists: [(String, [SubscriberEntry])], ended: [HandlerKey: HandlerTotals]
    ) -> [HandlerStatistics] {
        var totals = ended
        for (typeName, entries) in lists {
            for entry in entries {
                let measured = entry.measurements.totals
                guard !measured.isEmpty else { continue }
                let key = HandlerKey(observerTypeName: entry.observerTypeName, eventTypeName: typeName)
                totals[key] = (totals[key] ?? HandlerTotals()) + measured
            }
        }
        return totals.map { key, totals in
            HandlerStatistics(
                observerTypeName: key.observerTypeName, eventTypeName: key.eventTypeName, calls: totals.calls,
                total: .nanoseconds(totals.nanoseconds), maximum: .nanoseconds(totals.maximum),
                slowCalls: totals.slowCalls, failures: totals.failures, dropped: totals.dropped,
                waits: totals.waits.waits)
        }.sorted { $0.isWorse(than: $1) }
    }

    /// What a snapshot copies of an observer's record under the lock: one retain, and no
    /// names; names are made only for the objects listed.
    private struct ObserverCopy {
        let record: ObserverRecord
        let subscriptionCount: Int
        let firstSeenDead: ContinuousClock.Instant?

        init(_ record: ObserverRecord) {
            self.record = record
            self.subscriptionCount = record.subscriptionCount
            self.firstSeenDead = record.firstSeenDead
        }
    }

    private static func names(_ subscriptions: [SlotShare]) -> [String] {
        subscriptions.flatMap { repeatElement($0.slot.name, count: $0.count) }
    }

    private static func observerStatistics(
        _ observers: ContiguousArray<ObserverCopy>, alive: [Bool], classNames: [String],
        reclaimedPerClass: [Int],
        suspects: [LeakSuspect], failuresPerClass: [String: Int]
    ) -> [ObserverStatistics] {
        var live = [Int](repeating: 0, count: classNames.count)
        var dead = live
        var liveSubscriptions = live
        var deadSubscriptions = live
        observers.withUnsafeBufferPointer { observers in
            for index in observers.indices {
                let classIndex = observers[index].record.classIndex
                if alive[index] {
                    live[classIndex] += 1
                    liveSubscriptions[classIndex] += observers[index].subscriptionCount
                } else {
                    dead[classIndex] += 1
                    deadSubscriptions[classIndex] += observers[index].subscriptionCount
                }
            }
        }
        var suspectsPerClass: [String: Int] = [:]
        for suspect in suspects { suspectsPerClass[suspect.className, default: 0] += 1 }
        return classNames.indices.map { classIndex in
            ObserverStatistics(
                className: classNames[classIndex], liveInstances: live[classIndex],
                deadInstances: dead[classIndex],
                liveSubscriptions: liveSubscriptions[classIndex],
                deadSubscriptions: deadSubscriptions[classIndex],
                reclaimedInstances: reclaimedPerClass[classIndex],
                leakSuspects: suspectsPerClass[classNames[classIndex]] ?? 0,
                handlerFailures: failuresPerClass[classNames[classIndex]] ?? 0)
        }.filter { row in
            // Classes whose objects only ever cancelled their tokens while alive leave nothing to
            // show.
            row.liveInstances + row.deadInstances + row.reclaimedInstances + row.leakSuspects > 0
        }.sorted { $0.className < $1.className }
    }

    /// Up to `limit` objects per class: suspects, then dead, then the newest live ones. Only
    /// those chosen get names, read under the lock.
    private func instances(
        _ observers: ContiguousArray<ObserverCopy>, alive: [Bool], classNames: [String],
        suspects: [LeakSuspect],
        now: ContinuousClock.Instant, limit: Int
    ) -> [ObserverInstance] {
        let suspectBySerial = Dictionary(
            suspects.map { ($0.observerID, $0) }, uniquingKeysWith: { first, _ in first })
        // Ranked once per object; the sort then compares integers.
        var keysPerClass = [[(rank: Int, newness: UInt64, index: Int)]](
            repeating: [], count: classNames.count)
        for index in observers.indices {
            let record = observers[index].record
            let rank = suspectBySerial[record.serial] != nil ? 0 : alive[index] ? 2 : 1
            keysPerClass[record.classIndex].append((rank, UInt64.max - record.serial, index))
        }
        let chosen = keysPerClass.flatMap { keys in
            keys.sorted { ($0.rank, $0.newness) < ($1.rank, $1.newness) }.prefix(limit).map(\.index)
        }
        let subscriptions = state.withLock { _ in chosen.map { observers[$0].record.subscriptions } }
        var listed = zip(chosen, subscriptions).map { index, subscriptions in
            let record = observers[index].record
            let suspect = suspectBySerial[record.serial]
            return ObserverInstance(
                observerID: record.serial, className: record.className, age: now - record.subscribedAt,
                subscriptions: Self.names(subscriptions), state: alive[index] ? .live : .dead,
                leakReason: suspect?.reason, overdue: suspect?.overdue)
        }
        // Suspects that hold no subscription have no record, yet are listed.
        let recorded = Set(observers.lazy.map(\.record.serial))
        var listedPerClass: [String: Int] = [:]
        for instance in listed { listedPerClass[instance.className, default: 0] += 1 }
        for suspect in suspects where !recorded.contains(suspect.observerID) {
            guard listedPerClass[suspect.className, default: 0] < limit else { continue }
            listedPerClass[suspect.className, default: 0] += 1
            listed.append(
                ObserverInstance(
                    observerID: suspect.observerID, className: suspect.className, age: .zero,
                    subscriptions: suspect.subscriptions, state: .live, leakReason: suspect.reason,
                    overdue: suspect.overdue))
        }
        // By class name, each class's objects in the order chosen.
        return listed.enumerated().sorted { left, right in
            left.element.className != right.element.className
                ? left.element.className < right.element.className : left.offset < right.offset
        }.map(\.element)
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
    func with(
        liveSubscribers: Int, deadSubscribers: Int, handlerFailures: Int, dropped: Int
    ) -> EventTypeStatistics {
        EventTypeStatistics(
            typeName: typeName, qualifiedTypeName: qualifiedTypeName, liveSubscribers: liveSubscribers,
            deadSubscribers: deadSubscribers, reclaimedSubscribers: reclaimedSubscribers,
            unsubscribedSubscribers: unsubscribedSubscribers, cancelledSubscribers: cancelledSubscribers,
            duplicateSubscriptions: duplicateSubscriptions, published: published, delivered: delivered,
            unheard: unheard, handlerFailures: handlerFailures, dropped: dropped)
    }
}
