/// Per-subscriber running sums that handlers add event values into.
///
/// Every handler in every variant does the same small piece of work: it adds the event's value
/// into its own slot. The slots live in raw memory the handlers reach through a pointer, so the
/// optimizer cannot drop the additions, and ``verify()`` compares every slot with the sum of the
/// values published, so a variant that skipped deliveries fails the run.
///
/// Each lane (one per publishing thread) has its own block, padded to whole cache lines, so
/// two threads never write to the same line.
final class Accumulators: @unchecked Sendable {
    let subscriberCount: Int
    let laneCount: Int
    /// The distance in `Int`s between the same subscriber's slots in two lanes.
    let laneStride: Int
    private let storage: UnsafeMutablePointer<Int>
    // Written only by the thread that drives the measurement, between runs.
    private var expectedPerLane: [Int]

    init(subscribers: Int, lanes: Int = 1) {
        let intsPerCacheLine = 64 / MemoryLayout<Int>.stride
        subscriberCount = subscribers
        laneCount = lanes
        laneStride = (subscribers / intsPerCacheLine + 2) * intsPerCacheLine
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: lanes * laneStride * MemoryLayout<Int>.stride, alignment: 64)
        storage = raw.bindMemory(to: Int.self, capacity: lanes * laneStride)
        storage.initialize(repeating: 0, count: lanes * laneStride)
        expectedPerLane = Array(repeating: 0, count: lanes)
    }

    deinit {
        storage.deallocate()
    }

    /// The slot of subscriber `index`, to capture in its handler.
    func cell(_ index: Int) -> AccumulatorCell {
        precondition(index < subscriberCount)
        return AccumulatorCell(pointer: storage + index, laneStride: laneStride)
    }

    /// Notes that events with values `0..<count` were published on `lane`, once each.
    func expectPublished(count: Int, lane: Int = 0) {
        expectedPerLane[lane] &+= Self.sumOfValues(below: count)
    }

    /// The sum of `0..<count`, the values a batch of `count` publishes carries.
    static func sumOfValues(below count: Int) -> Int {
        count &* (count &- 1) / 2
    }

    /// Whether every subscriber's slot holds exactly the sum published on its lane.
    func verify() -> Bool {
        for lane in 0..<laneCount {
            for index in 0..<subscriberCount where storage[lane * laneStride + index] != expectedPerLane[lane]
            {
                return false
            }
        }
        return true
    }
}

/// One subscriber's slot; handlers capture it and add event values into it.
struct AccumulatorCell: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Int>
    let laneStride: Int

    /// The handlers' work: add the event's value into this subscriber's slot for its lane.
    @inline(__always)
    func add<T: BenchPayload>(_ event: T) {
        (pointer + event.lane &* laneStride).pointee &+= event.value
    }
}
