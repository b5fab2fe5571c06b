package import EventBus

extension BusSnapshot {
    /// What a gone app's newest snapshot still counts in a fleet's sums: its totals so far
    /// (publishes, deliveries, reclaims, handler calls and failures), and nothing it had live
    /// (subscribers, observer objects, leak suspects, sticky events), which went with it.
    package var retired: BusSnapshot {
        BusSnapshot(
            busName: busName,
            eventTypes: eventTypes.map { type in
                EventTypeStatistics(
                    typeName: type.typeName, qualifiedTypeName: type.qualifiedTypeName,
                    reclaimedSubscribers: type.reclaimedSubscribers,
                    unsubscribedSubscribers: type.unsubscribedSubscribers,
                    cancelledSubscribers: type.cancelledSubscribers,
                    duplicateSubscriptions: type.duplicateSubscriptions, published: type.published,
                    delivered: type.delivered, unheard: type.unheard, handlerFailures: type.handlerFailures,
                    dropped: type.dropped)
            },
            wildcardObservers: 0, reclaimedWildcardObservers: reclaimedWildcardObservers,
            wildcardDeliveries: wildcardDeliveries,
            observers: observers.map { observer in
                ObserverStatistics(
                    className: observer.className, reclaimedInstances: observer.reclaimedInstances,
                    handlerFailures: observer.handlerFailures)
            },
            handlers: handlers)
    }

    /// This snapshot under the bus name `busName`: the processes of one app that restarted,
    /// summed, are named as its bus, not as a fleet.
    package func named(_ busName: String) -> BusSnapshot {
        BusSnapshot(
            busName: busName, eventTypes: eventTypes, wildcardObservers: wildcardObservers,
            deadWildcardObservers: deadWildcardObservers,
            reclaimedWildcardObservers: reclaimedWildcardObservers,
            wildcardDeliveries: wildcardDeliveries, observers: observers, leakSuspects: leakSuspects,
            instances: instances, handlers: handlers, stickyEvents: stickyEvents)
    }

    /// The snapshots of several apps summed into one, as a monitor shows a fleet.
    ///
    /// Each event type's counters are summed by type name, each observer class's by class name,
    /// and each handler row's by observer class and event type (its longest call is the longest
    /// of all, and its waits' percentiles the larger of each); leak suspects, observer instances and sticky events are listed from every app.
    /// Its bus name says how many apps it covers, such as `fleet (2 apps)`. One snapshot is
    /// returned as it is, so that a single app (a fleet of one) shows exactly what it sent.
    ///
    /// - Parameter snapshots: One per app.
    /// - Returns: The fleet's snapshot; with none, an empty one named `fleet (0 apps)`.
    package static func merged(_ snapshots: [BusSnapshot]) -> BusSnapshot {
        if snapshots.count == 1 { return snapshots[0] }
        var types = OrderedSums<String, EventTypeStatistics>()
        var classes = OrderedSums<String, ObserverStatistics>()
        var handlers = OrderedSums<HandlerKey, HandlerStatistics>()
        var wildcard = (live: 0, dead: 0, reclaimed: 0, deliveries: 0)
        var suspects: [LeakSuspect] = []
        var instances: [ObserverInstance] = []
        var sticky: [StickyEvent] = []
        for snapshot in snapshots {
            for type in snapshot.eventTypes {
                types.add(type, at: type.typeName) { sum, type in sum.adding(type) }
            }
            for observer in snapshot.observers {
                classes.add(observer, at: observer.className) { sum, observer in
                    ObserverStatistics(
                        className: sum.className,
                        liveInstances: sum.liveInstances.clampedAdding(observer.liveInstances),
                        deadInstances: sum.deadInstances.clampedAdding(observer.deadInstances),
                        liveSubscriptions: sum.liveSubscriptions.clampedAdding(observer.liveSubscriptions),
                        deadSubscriptions: sum.deadSubscriptions.clampedAdding(observer.deadSubscriptions),
                        reclaimedInstances: sum.reclaimedInstances.clampedAdding(observer.reclaimedInstances),
                        leakSuspects: sum.leakSuspects.clampedAdding(observer.leakSuspects),
                        handlerFailures: sum.handlerFailures.clampedAdding(observer.handlerFailures))
                }
            }
            for row in snapshot.handlers {
                handlers.add(row, at: HandlerKey(observer: row.observerTypeName, event: row.eventTypeName)) {
                    sum, row in
                    HandlerStatistics(
                        observerTypeName: sum.observerTypeName, eventTypeName: sum.eventTypeName,
                        calls: sum.calls.clampedAdding(row.calls), total: sum.total + row.total,
                        maximum: max(sum.maximum, row.maximum),
                        slowCalls: sum.slowCalls.clampedAdding(row.slowCalls),
                        failures: sum.failures.clampedAdding(row.failures),
                        dropped: sum.dropped.clampedAdding(row.dropped),
                        waits: sum.waits.merged(with: row.waits))
                }
            }
            wildcard.live.clampedAdd(snapshot.wildcardObservers)
            wildcard.dead.clampedAdd(snapshot.deadWildcardObservers)
            wildcard.reclaimed.clampedAdd(snapshot.reclaimedWildcardObservers)
            wildcard.deliveries.clampedAdd(snapshot.wildcardDeliveries)
            suspects += snapshot.leakSuspects
            instances += snapshot.instances
            sticky += snapshot.stickyEvents
        }
        return BusSnapshot(
            busName: "fleet (\(snapshots.count) \(snapshots.count == 1 ? "app" : "apps"))",
            eventTypes: types.values, wildcardObservers: wildcard.live,
            deadWildcardObservers: wildcard.dead, reclaimedWildcardObservers: wildcard.reclaimed,
            wildcardDeliveries: wildcard.deliveries, observers: classes.values, leakSuspects: suspects,
            instances: instances, handlers: handlers.values, stickyEvents: sticky)
    }
}

extension EventTypeStatistics {
    /// These counts and `other`'s summed, each held at `Int.max`, under this row's names: two
    /// apps' rows of one type, or the types a table sums in one row.
    package func adding(_ other: EventTypeStatistics) -> EventTypeStatistics {
        EventTypeStatistics(
            typeName: typeName, qualifiedTypeName: qualifiedTypeName,
            liveSubscribers: liveSubscribers.clampedAdding(other.liveSubscribers),
            deadSubscribers: deadSubscribers.clampedAdding(other.deadSubscribers),
            reclaimedSubscribers: reclaimedSubscribers.clampedAdding(other.reclaimedSubscribers),
            unsubscribedSubscribers: unsubscribedSubscribers.clampedAdding(other.unsubscribedSubscribers),
            cancelledSubscribers: cancelledSubscribers.clampedAdding(other.cancelledSubscribers),
            duplicateSubscriptions: duplicateSubscriptions.clampedAdding(other.duplicateSubscriptions),
            published: published.clampedAdding(other.published),
            delivered: delivered.clampedAdding(other.delivered),
            unheard: unheard.clampedAdding(other.unheard),
            handlerFailures: handlerFailures.clampedAdding(other.handlerFailures),
            dropped: dropped.clampedAdding(other.dropped))
    }
}

extension DeliveryWaits {
    /// Two apps' waits as one row: counts summed, and the larger of each percentile. The exact
    /// percentiles of the sum would need each app's buckets; the larger one never understates
    /// what a person came to find, a delivery that waited.
    func merged(with other: DeliveryWaits) -> DeliveryWaits {
        DeliveryWaits(
            count: count.clampedAdding(other.count), p50: max(p50, other.p50), p99: max(p99, other.p99),
            maximum: max(maximum, other.maximum),
            slowDeliveries: slowDeliveries.clampedAdding(other.slowDeliveries))
    }
}

/// A handler row's identity: its observer class and its event type.
private struct HandlerKey: Hashable {
    var observer: String?
    var event: String
}

/// Values summed by key, in the order each key was first seen.
private struct OrderedSums<Key: Hashable, Value> {
    private var order: [Key] = []
    private var sums: [Key: Value] = [:]

    mutating func add(_ value: Value, at key: Key, _ sum: (Value, Value) -> Value) {
        if let previous = sums[key] {
            sums[key] = sum(previous, value)
        } else {
            order.append(key)
            sums[key] = value
        }
    }

    var values: [Value] { order.compactMap { sums[$0] } }
}
