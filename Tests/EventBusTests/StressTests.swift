import EventBus
import Foundation
import Simulator
import Synchronization
import TestSupport
import Testing

/// Mixed operations from several threads with exact accounting.
///
/// `STRESS_OPERATIONS` sets the operations per thread (250,000 by default; CI's sanitizer runs
/// use fewer, since instrumented code is many times slower).
@Suite("Stress")
struct StressTests {
    static let threads = 4
    static let operationsPerThread =
        ProcessInfo.processInfo.environment["STRESS_OPERATIONS"].flatMap(Int.init) ?? 250_000

    @Test("4 threads of mixed operations: exactly-once while live, nothing after cancel")
    func mixedOperations() {
        // Given four threads that each publish, subscribe by token and by observer, cancel,
        // unsubscribe, let observers die and add and drop wildcard observers, all on one bus
        // (whose clock runs, so that deadlines fall due during the operations too).
        let clock = ManualBusClock(followingRealTime: true)
        let bus = clock.makeBus()
        let handlerCalls = Atomic<Int>(0)
        let wildcardCalls = Atomic<Int>(0)
        let published = Atomic<Int>(0)
        let lateDeliveries = Atomic<Int>(0)
        let missedOrDoubled = Atomic<Int>(0)
        let outOfOrder = Atomic<Int>(0)
        let limit = 12
        // Observers the threads drop with a deallocation expected of them, some of them kept
        // alive here, as leaks are.
        let keptAlive = LockedValue<[Screen]>([])

        onThreads(Self.threads) { thread in
            var generator = SplitMix64(seed: UInt64(thread) &+ 0x5EED)
            var tokens: [(Subscription, Ledger)] = []
            var observers: [Screen] = []
            var wildcards: [Subscription] = []
            var sequence = 0
            for _ in 0..<Self.operationsPerThread {
                switch generator.next() % 16 {
                case 0..<7:
                    sequence += 1
                    for (_, ledger) in tokens { ledger.expectedFromOwner += 1 }
                    bus.publish(Stamp(thread: thread, sequence: sequence))
                    published.wrappingAdd(1, ordering: .relaxed)
                case 7, 8:
                    if tokens.count >= limit { fallthrough }
                    let ledger = Ledger(owner: thread, threads: Self.threads)
                    let token = bus.subscribe(to: Stamp.self) { event in
                        handlerCalls.wrappingAdd(1, ordering: .relaxed)
                        if ledger.cancelled.load(ordering: .acquiring) {
                            lateDeliveries.wrappingAdd(1, ordering: .relaxed)
                        }
                        if !ledger.record(event) { outOfOrder.wrappingAdd(1, ordering: .relaxed) }
                    }
                    tokens.append((token, ledger))
                case 9..<11 where !tokens.isEmpty:
                    let (token, ledger) = tokens.remove(at: Int(generator.next() % UInt64(tokens.count)))
                    token.cancel()
                    ledger.cancelled.store(true, ordering: .releasing)
                    // Every event this thread published while the token was live reached it once.
                    if ledger.receivedFromOwner != ledger.expectedFromOwner {
                        missedOrDoubled.wrappingAdd(1, ordering: .relaxed)
                    }
                case 11:
                    if observers.count >= limit { fallthrough }
                    let screen = Screen()
                    bus.subscribe(observer: screen) { (_: Stamp) in
                        handlerCalls.wrappingAdd(1, ordering: .relaxed)
                    }
                    observers.append(screen)
                case 12 where !observers.isEmpty:
                    // Half unsubscribe explicitly, half simply die.
                    let screen = observers.remove(at: Int(generator.next() % UInt64(observers.count)))
                    if generator.next() % 2 == 0 { bus.unsubscribe(observer: screen) }
                    bus.expectDeallocation(of: screen, within: .milliseconds(1), reason: "dropped")
                    if generator.next() % 64 == 0 { keptAlive.withLock { $0.append(screen) } }
                case 13:
                    if wildcards.count >= 2 {
                        wildcards.removeFirst().cancel()
                    } else {
                        wildcards.append(
                            bus.subscribeAll { _ in wildcardCalls.wrappingAdd(1, ordering: .relaxed) })
                    }
                case 14:
                    let screen = Screen()
                    bus.subscribeAll(observer: screen) { _ in wildcardCalls.wrappingAdd(1, ordering: .relaxed)
                    }
                default:
                    _ = bus.subscriberCount(for: Stamp.self)
                }
            }
            for (token, _) in tokens { token.cancel() }
            for token in wildcards { token.cancel() }
        }

        // Then, once every deadline has passed, exactly the observers kept alive are leak
        // suspects, until they go.
        clock.advance(by: .milliseconds(10))
        let kept = keptAlive.withLock { $0.map(ObjectIdentifier.init) }
        #expect(bus.snapshot().leakSuspects.count == Set(kept).count)
        keptAlive.withLock { $0.removeAll() }
        #expect(bus.snapshot().leakSuspects.isEmpty)

        // And nothing was late, missed, doubled or reordered, and the bus's counts are exact.
        #expect(lateDeliveries.load(ordering: .relaxed) == 0)
        #expect(missedOrDoubled.load(ordering: .relaxed) == 0)
        #expect(outOfOrder.load(ordering: .relaxed) == 0)
        let snapshot = bus.snapshot()
        #expect(snapshot[Stamp.self]?.published == published.load(ordering: .relaxed))
        #expect(snapshot[Stamp.self]?.delivered == handlerCalls.load(ordering: .relaxed))
        #expect(snapshot.wildcardDeliveries == wildcardCalls.load(ordering: .relaxed))
        #expect(snapshot[Stamp.self]?.liveSubscribers == 0)
        #expect(snapshot.wildcardObservers == 0)
        #expect(snapshot.totalDeadSubscribers < 1_000)
    }
}

/// What one token expects and has received, checked when it is cancelled.
final class Ledger: @unchecked Sendable {
    let owner: Int
    /// Written only by the owning thread.
    var expectedFromOwner = 0
    let cancelled = Atomic<Bool>(false)
    /// The last sequence number seen from each publishing thread; each is written only by
    /// deliveries of that thread's publishes, which are sequential.
    private let lastSequence: [SequenceCell]
    private let fromOwner = Atomic<Int>(0)

    init(owner: Int, threads: Int) {
        self.owner = owner
        lastSequence = (0..<threads).map { _ in SequenceCell() }
    }

    var receivedFromOwner: Int { fromOwner.load(ordering: .relaxed) }

    /// Records a delivery; returns `false` if it repeats or precedes one already seen.
    func record(_ event: Stamp) -> Bool {
        if event.thread == owner { fromOwner.wrappingAdd(1, ordering: .relaxed) }
        let cell = lastSequence[event.thread]
        let last = cell.value.load(ordering: .relaxed)
        cell.value.store(event.sequence, ordering: .relaxed)
        return event.sequence > last
    }
}

/// One atomic integer that can live in an array.
final class SequenceCell: Sendable {
    let value = Atomic<Int>(0)
}
