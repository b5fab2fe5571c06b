/// How long deliveries to a subscription waited between the publish and the start of the
/// handler, as ``EventBus/snapshot()`` reports it in ``HandlerStatistics/waits``.
///
/// A handler called in the publish waits for nothing: those calls count with a wait of zero. A
/// handler that runs on the main actor while the publish ran elsewhere, on another actor, or
/// on a dispatch queue waits for its turn there; on iOS and macOS that wait, a main-actor
/// handler queued behind a busy main thread, is what most "the screen updated late" bugs are.
///
/// Measured while someone watches the bus, as handler times are. Each wait is counted in a
/// bucket a quarter of a power of two wide, so ``p50`` and ``p99`` are the upper edge of the
/// bucket the percentile falls in: never below the true value, and at most a quarter above it.
/// ``maximum`` is exact. Waits are read on the system's monotonic clock at the publish and at
/// the handler's start: two readings for a delivery that costs a thread hop anyway.
public struct DeliveryWaits: Sendable, Hashable {
    /// Deliveries whose wait was measured, those called in the publish included.
    public let count: Int
    /// The median wait.
    public let p50: Duration
    /// The wait that 99 of 100 deliveries did not exceed.
    public let p99: Duration
    /// The longest wait.
    public let maximum: Duration
    /// Deliveries that waited longer than ``EventBus/slowDeliveryThreshold``.
    public let slowDeliveries: Int

    /// No delivery measured: what a handler that was never timed reports. (Not `none`, which
    /// `waits == .none` on an optional would read as `nil`.)
    public static let unmeasured = DeliveryWaits(count: 0, p50: .zero, p99: .zero, maximum: .zero)

    /// Creates waiting times; the bus makes these, and tests and replays may too.
    public init(count: Int, p50: Duration, p99: Duration, maximum: Duration, slowDeliveries: Int = 0) {
        self.count = count
        self.p50 = p50
        self.p99 = p99
        self.maximum = maximum
        self.slowDeliveries = slowDeliveries
    }
}

/// Waits counted by size, in buckets a quarter of a power of two wide: a few hundred bytes
/// for any range of waits, and percentiles to within a bucket.
package struct WaitHistogram: Sendable, Hashable {
    /// Buckets: the last starts at 1.75 × 2^40 ns, about 32 minutes, and counts every longer
    /// wait too.
    package static let bucketCount = 4 * 40

    /// Waits counted in each bucket; empty until the first wait above zero.
    private(set) var buckets: [Int] = []
    /// Waits counted, zeros included.
    package private(set) var count = 0
    /// The longest wait, in nanoseconds.
    package private(set) var maximum = 0
    /// Waits longer than the bus's slow-delivery threshold.
    private(set) var slowDeliveries = 0

    /// No wait counted.
    package init() {}

    /// The bucket of a wait of `nanoseconds`: the value itself below 4, then four buckets a
    /// power of two, by the two bits below the highest one.
    package static func bucket(of nanoseconds: Int) -> Int {
        guard nanoseconds >= 4 else { return max(0, nanoseconds) }
        let exponent = Int.bitWidth - 1 - nanoseconds.leadingZeroBitCount
        let quarter = (nanoseconds >> (exponent - 2)) & 3
        return min(bucketCount - 1, 4 * (exponent - 1) + quarter)
    }

    /// The largest wait counted in `bucket`.
    package static func upperEdge(of bucket: Int) -> Int {
        guard bucket >= 4 else { return bucket }
        let exponent = bucket / 4 + 1
        let quarter = bucket % 4
        return (4 + quarter + 1) << (exponent - 2) - 1
    }

    /// Counts one wait of `nanoseconds`; `slow` when it passed the bus's threshold.
    package mutating func record(_ nanoseconds: Int, slow: Bool) {
        count += 1
        if slow { slowDeliveries += 1 }
        guard nanoseconds > 0 else { return }
        if buckets.isEmpty { buckets = Array(repeating: 0, count: Self.bucketCount) }
        buckets[Self.bucket(of: nanoseconds)] += 1
        maximum = max(maximum, nanoseconds)
    }

    /// Counts `count` deliveries that waited for nothing: calls made in the publish.
    package mutating func recordZeros(_ count: Int) {
        self.count += max(0, count)
    }

    /// The wait that a `fraction` of the waits did not exceed, in nanoseconds: the upper edge of
    /// its bucket, at most the maximum.
    package func percentile(_ fraction: Double) -> Int {
        guard count > 0 else { return 0 }
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = count - buckets.reduce(0, +)  // the zeros, below every bucket
        if seen >= rank { return 0 }
        for (bucket, waits) in buckets.enumerated() where waits > 0 {
            seen += waits
            // The last bucket holds everything above its edge too.
            if seen >= rank {
                return bucket == Self.bucketCount - 1 ? maximum : min(maximum, Self.upperEdge(of: bucket))
            }
        }
        return maximum
    }

    /// The report ``EventBus/snapshot()`` gives.
    var waits: DeliveryWaits {
        DeliveryWaits(
            count: count, p50: .nanoseconds(percentile(0.5)), p99: .nanoseconds(percentile(0.99)),
            maximum: .nanoseconds(maximum), slowDeliveries: slowDeliveries)
    }

    static func + (left: WaitHistogram, right: WaitHistogram) -> WaitHistogram {
        var sum = left
        sum.count += right.count
        sum.maximum = max(left.maximum, right.maximum)
        sum.slowDeliveries += right.slowDeliveries
        if !right.buckets.isEmpty {
            if sum.buckets.isEmpty {
                sum.buckets = right.buckets
            } else {
                for index in sum.buckets.indices { sum.buckets[index] += right.buckets[index] }
            }
        }
        return sum
    }
}

/// One subscription's waits, made on its first delivery that waited: most subscriptions are
/// called in the publish and never need one.
final class WaitLog: Sendable {
    let histogram = LockedValue(WaitHistogram())
}
