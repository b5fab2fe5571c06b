extension EventBus {
    /// The bus's subscribers and counters per event type, as they are now.
    ///
    /// Counts each list once, so it costs O(subscriptions); meant for monitors and tests, a few
    /// times a second, not for every publish.
    ///
    /// - Returns: Statistics for every event type subscribed to or published so far.
    public func snapshot() -> BusSnapshot {
        // The counters are read under the lock; the lists are copied there and counted after it,
        // since checking a weak reference briefly holds the observer, and a `deinit` run by the
        // end of that hold must not find the lock taken.
        let (lists, wildcardEntries, wildcardReclaimed) = state.withLockedValue { state in
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
            return (lists, state.wildcard.slot.copyEntries(), state.wildcard.reclaimed)
        }

        let types = lists.map { entries, counters in
            let (live, dead) = Self.countLiveAndDead(entries)
            return counters.with(liveSubscribers: live, deadSubscribers: dead)
        }
        let (wildcardLive, wildcardDead) = Self.countLiveAndDead(wildcardEntries)
        return BusSnapshot(
            busName: name, eventTypes: types.sorted { $0.typeName < $1.typeName },
            wildcardObservers: wildcardLive, deadWildcardObservers: wildcardDead,
            reclaimedWildcardObservers: wildcardReclaimed,
            wildcardDeliveries: wildcardSlot.counters.deliveredCount)
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
