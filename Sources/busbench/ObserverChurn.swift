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
            peak = max(peak, Self.entries(in: bus))
            if let resident = ProcessMemory.residentBytes() {
                peakResident = max(peakResident ?? 0, resident)
            }
            batch.removeAll()
            created += count
            bus.publish(ChurnPingEvent(value: created))
        }
        let residentAfter = ProcessMemory.residentBytes()
        let statistics = bus.snapshot()[NeverPublishedEvent.self]
        pingToken.cancel()
        return Result(
            observersCreated: created, entriesLeft: Self.entries(in: bus), peakEntries: peak,
            reclaimed: statistics?.reclaimedSubscribers ?? 0,
            handlerCalls: counter.calls.load(ordering: .relaxed),
            residentBytesBefore: residentBefore, peakResidentBytes: peakResident,
            residentBytesAfter: residentAfter,
            maxResidentBytes: ProcessMemory.maxResidentBytes())
    }

    private static func entries(in bus: EventBus) -> Int {
        guard let statistics = bus.snapshot()[NeverPublishedEvent.self] else { return 0 }
        return statistics.liveSubscribers + statistics.deadSubscribers
    }
}
