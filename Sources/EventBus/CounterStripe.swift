import Synchronization

/// One stripe of ``TypeCounters``, alone on its cache lines.
final class CounterStripe: Sendable {
    private let leadingPadding = CacheLinePadding()
    let published = Atomic<Int>(0)
    let delivered = Atomic<Int>(0)
    let unheard = Atomic<Int>(0)
    private let trailingPadding = CacheLinePadding()
}
