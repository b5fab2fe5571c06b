import Dispatch
import EventBus
import Foundation

/// Publishing from two threads at once against one thread doing the same work, on one bus.
///
/// Both set-ups publish the same events to the same subscribers (token form); the one-thread
/// run alternates between the two streams, the two-thread run gives each stream its own thread.
/// The result is the throughput ratio, two threads over one.
final class ThreadScaling {
    /// Which events the two threads publish.
    enum Streams {
        /// Each thread publishes its own event type, each type with its own subscribers: an
        /// app's network thread posting data events while its main thread posts UI events.
        case distinctTypes
        /// Both threads publish one type to the same subscribers, such as a log or metrics
        /// event posted from everywhere.
        case sameType
        /// No bus: each thread calls its own array of closures. How well this machine, as loaded
        /// right now, runs two threads at all; the bus cannot scale better than this.
        case closureArrays

        var label: String {
            switch self {
            case .distinctTypes: "bus, own event type per thread"
            case .sameType: "bus, same event type"
            case .closureArrays: "closure arrays, no bus (ceiling)"
            }
        }
    }

    let streams: Streams
    let subscribers: Int
    let accumulators: Accumulators
    let bus = EventBus(name: "busbench-threads")
    private var tokens: [Subscription] = []
    /// Per stream, publishes events with values `0..<count` from the calling thread.
    private var publishers: [@Sendable (Int) -> Void] = []

    init(streams: Streams, subscribers: Int) {
        self.streams = streams
        self.subscribers = subscribers
        accumulators = Accumulators(subscribers: subscribers, lanes: 2)
        let bus = self.bus
        switch streams {
        case .distinctTypes, .sameType:
            for index in 0..<subscribers {
                let cell = accumulators.cell(index)
                tokens.append(bus.subscribe(to: BenchEvent.self) { event in cell.add(event) })
                if streams == .distinctTypes {
                    tokens.append(bus.subscribe(to: OtherBenchEvent.self) { event in cell.add(event) })
                }
            }
            publishers.append { count in
                for value in 0..<count { bus.publish(BenchEvent(value: value, lane: 0)) }
            }
            if streams == .distinctTypes {
                publishers.append { count in
                    for value in 0..<count { bus.publish(OtherBenchEvent(value: value, lane: 1)) }
                }
            } else {
                publishers.append { count in
                    for value in 0..<count { bus.publish(BenchEvent(value: value, lane: 1)) }
                }
            }
        case .closureArrays:
            for lane in 0..<2 {
                let handlers: [@Sendable (BenchEvent) -> Void] = (0..<subscribers).map { index in
                    let cell = accumulators.cell(index)
                    // Calling a closure from an array retains its context. Contexts made one
                    // after the other sit side by side in memory, so without the padding one
                    // lane's reference counts could share cache lines with the other's, and
                    // this reference would measure that false sharing rather than the machine.
                    let padding = ContextPadding()
                    return { event in withExtendedLifetime(padding) { cell.add(event) } }
                }
                publishers.append { count in
                    for value in 0..<count {
                        let event = BenchEvent(value: value, lane: lane)
                        for handler in handlers { handler(event) }
                    }
                }
            }
        }
    }

    /// One thread publishing both streams, one batch after the other; quoted per publish.
    var oneThread: Workload {
        Workload(unitsPerIteration: 2) { count in
            self.publishers[0](count)
            self.publishers[1](count)
            self.accumulators.expectPublished(count: count, lane: 0)
            self.accumulators.expectPublished(count: count, lane: 1)
        }
    }

    /// Two threads, one per stream, started together; quoted per publish of the pair.
    var twoThreads: Workload {
        Workload(unitsPerIteration: 2) { count in
            let first = self.publishers[0]
            let second = self.publishers[1]
            Self.runTogether({ first(count) }, { second(count) })
            self.accumulators.expectPublished(count: count, lane: 0)
            self.accumulators.expectPublished(count: count, lane: 1)
        }
    }

    /// Runs the bodies on two new threads released at the same moment; returns when both end.
    private static func runTogether(
        _ first: @escaping @Sendable () -> Void, _ second: @escaping @Sendable () -> Void
    ) {
        let ready = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for body in [first, second] {
            ready.enter()
            done.enter()
            Thread {
                ready.leave()
                start.wait()
                body()
                done.leave()
            }.start()
        }
        ready.wait()
        start.signal()
        start.signal()
        done.wait()
    }

    func verify() -> Bool {
        let countersExact: Bool
        switch streams {
        case .distinctTypes:
            countersExact =
                bus.countersAreExact(for: BenchEvent.self, subscribers: subscribers)
                && bus.countersAreExact(for: OtherBenchEvent.self, subscribers: subscribers)
        case .sameType:
            countersExact = bus.countersAreExact(for: BenchEvent.self, subscribers: subscribers)
        case .closureArrays:
            countersExact = true
        }
        return accumulators.verify() && countersExact
    }

    func tearDown() {
        for token in tokens { token.cancel() }
        tokens = []
    }
}

/// 128 bytes a closure captures so that its context's reference count, written on every call
/// from an array, never shares a cache line with another context's.
private struct ContextPadding: Sendable {
    private let words: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    )
}
