import EventBus
import Synchronization

/// Many short-lived observers subscribing to a type that is never published: the bus must
/// reclaim their entries as it goes, not keep one per observer that ever lived.
final class ObserverChurn {
    struct Result {
        let observersCreated: Int
        /// Entries of the never-published type the bus still holds at the end (live + dead).
        let entriesLeft: Int
        /// The most entries of that type seen at any batch boundary.
        let peakEntries: Int
        /// The most observer records (live and dead objects) the bus held at a batch boundary.
        let peakRecords: Int
        /// Objects the bus counts as reclaimed at the end, and records it still holds.
        let reclaimedObjects: Int
        let recordsLeft: Int
        let reclaimed: Int
        let handlerCalls: Int
        let residentBytesBefore: Int?
        /// The most resident memory seen at a batch boundary.
        let peakResidentBytes: Int?
        let residentBytesAfter: Int?
        let maxResidentBytes: Int?
    }

    /// Counts handler calls; a handler of a never-published type must never run.
    private final class CallCounter: Sendable {
        let calls = Atomic<Int>(0)
    }

    let observers: Int
    /// How many observers are alive at once before the batch is freed, as screens come and go.
    let batchSize: Int

    init(observers: Int, batchSize: Int) {
        self.observers = observers
        self.batchSize = batchSize
    }

    func run() -> Result {
        let bus = EventBus(name: "busbench-churn")
        let counter = CallCounter()
        let pingToken = bus.subscribe(to: ChurnPingEvent.self) { _ in }
        let residentBefore = ProcessMemory.residentBytes()
        var peak = 0
        var peakRecords = 0
        var peakResident = residentBefore
        var created = 0
        while created < observers {
            let count = min(batchSize, observers - created)
            var batch: [BenchObserver] = (0..<count).map { _ in BenchObserver() }
            for observer in batch {
                bus.subscribe(observer: observer) { (_: NeverPublishedEvent) in
                    counter.calls.wrappingAdd(1, ordering: .relaxed)
                }
            }
            let snapshot = bus.snapshot()
            peak = max(peak, Self.entries(in: snapshot))
            peakRecords = max(peakRecords, Self.records(in: snapshot))
            if let resident = ProcessMemory.residentBytes() {
                peakResident = max(peakResident ?? 0, resident)
            }
            // Each batch is a set of screens closed, expected to go.
            for observer in batch {
                bus.expectDeallocation(of: observer, within: .seconds(5), reason: "closed")
            }
            batch.removeAll()
            created += count
            bus.publish(ChurnPingEvent(value: created))
        }
        let residentAfter = ProcessMemory.residentBytes()
        let final = bus.snapshot()
        let statistics = final[NeverPublishedEvent.self]
        pingToken.cancel()
        return Result(
            observersCreated: created, entriesLeft: Self.entries(in: final), peakEntries: peak,
            peakRecords: peakRecords,
            reclaimedObjects: final.observers.reduce(0) { $0 + $1.reclaimedInstances },
            recordsLeft: Self.records(in: final),
            reclaimed: statistics?.reclaimedSubscribers ?? 0,
            handlerCalls: counter.calls.load(ordering: .relaxed),
            residentBytesBefore: residentBefore, peakResidentBytes: peakResident,
            residentBytesAfter: residentAfter,
            maxResidentBytes: ProcessMemory.maxResidentBytes())
    }

    private static func entries(in snapshot: BusSnapshot) -> Int {
        guard let statistics = snapshot[NeverPublishedEvent.self] else { return 0 }
        return statistics.liveSubscribers + statistics.deadSubscribers
    }

    private static func records(in snapshot: BusSnapshot) -> Int {
        snapshot.observers.reduce(0) { $0 + $1.liveInstances + $1.deadInstances }
    }
}
