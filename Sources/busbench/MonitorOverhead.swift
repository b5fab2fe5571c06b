import EventBus

/// What a dashboard's capture does with every delivery: keep the latest records in a bounded
/// ring, under a lock, because the publisher's threads and the screen's reader share it.
final class DeliveryRing: @unchecked Sendable {
    private let lock = Lock()
    // Guarded by `lock`.
    private var records: [DeliveryRecord?]
    private var nextIndex = 0
    private var appended = 0

    init(capacity: Int) {
        records = Array(repeating: nil, count: capacity)
    }

    func append(_ record: DeliveryRecord) {
        lock.withLock {
            records[nextIndex] = record
            nextIndex += 1
            if nextIndex == records.count { nextIndex = 0 }
            appended += 1
        }
    }

    /// Records appended since the ring was made, including those overwritten since.
    var appendedCount: Int {
        lock.withLock { appended }
    }
}

/// The cost of a publish to typed subscribers with and without a wildcard delivery monitor.
final class MonitorOverhead {
    let subscribers: Int
    let plain: BusTokenVariant
    let monitored: BusTokenVariant
    let ring = DeliveryRing(capacity: 4096)
    private var monitorToken: Subscription?
    private var monitoredPublishes = 0

    init(subscribers: Int) {
        self.subscribers = subscribers
        plain = BusTokenVariant(subscribers: subscribers)
        monitored = BusTokenVariant(subscribers: subscribers)
        let ring = self.ring
        monitorToken = monitored.bus.observeDeliveries { record in ring.append(record) }
    }

    /// Publishes without a monitor, quoted per publish.
    var withoutMonitor: Workload {
        Workload(unitsPerIteration: 1) { count in
            self.plain.publish(count: count)
            self.plain.accumulators.expectPublished(count: count)
        }
    }

    /// Publishes with the monitor attached, quoted per publish.
    var withMonitor: Workload {
        Workload(unitsPerIteration: 1) { count in
            self.monitored.publish(count: count)
            self.monitored.accumulators.expectPublished(count: count)
            self.monitoredPublishes += count
        }
    }

    func verify() -> Bool {
        plain.verify() && monitored.verify() && plain.countersAreExact() && monitored.countersAreExact()
            && ring.appendedCount == monitoredPublishes
            && monitored.bus.snapshot().wildcardDeliveries == monitoredPublishes
    }

    func tearDown() {
        monitorToken?.cancel()
        monitorToken = nil
        plain.tearDown()
        monitored.tearDown()
    }
}
