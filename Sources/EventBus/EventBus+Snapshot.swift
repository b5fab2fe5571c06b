extension EventBus {
    /// The bus's subscribers and counters per event type, as they are now.
    ///
    /// Counts each list once, so it costs O(subscriptions); meant for monitors and tests, a few
    /// times a second, not for every publish.
    ///
    /// - Returns: Statistics for every event type subscribed to or published so far.
    public func snapshot() -> BusSnapshot {
        lock.lock()
        let types = slotsInOrder.map { slot in
            let (live, dead) = Self.countLiveAndDead(slot.entries)
            return EventTypeStatistics(
                typeName: slot.name, qualifiedTypeName: slot.qualifiedName, liveSubscribers: live,
                deadSubscribers: dead, reclaimedSubscribers: slot.reclaimed,
                unsubscribedSubscribers: slot.unsubscribed, cancelledSubscribers: slot.cancelled,
                duplicateSubscriptions: slot.duplicates, published: slot.published,
                delivered: slot.counters.deliveredCount,
                unheard: slot.counters.unheardCount)
        }
        let (wildcardLive, wildcardDead) = Self.countLiveAndDead(wildcardSlot.entries)
        let wildcardReclaimed = wildcardSlot.reclaimed
        lock.unlock()
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
