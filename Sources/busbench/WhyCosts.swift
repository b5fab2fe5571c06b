import BusMonitor
import BusWire
import EventBus
import Foundation

/// What the bus's answers to why cost: the cascade limit on a top-level publish and on a
/// publish from a handler, and timing every handler call while something watches the bus.
enum WhyCosts {
    struct Outcome {
        var checks: [TargetCheck] = []
        var failures: [String] = []
    }

    static let subscribers = 10

    static func run(sampler: Sampler) -> Outcome {
        var outcome = Outcome()
        var rows: [[String]] = []

        // A top-level publish: the limit is only read where a handler publishes.
        let limited = BusTokenVariant(subscribers: subscribers)
        let unlimited = BusTokenVariant(subscribers: subscribers, cascadeLimit: nil)
        let topLevel = sampler.medianNanosecondsPerUnit([unlimited.workload, limited.workload])
        for variant in [limited, unlimited] {
            if !variant.accumulators.verify() || !variant.countersAreExact() {
                outcome.failures.append("cascade limit: handler sums or bus counters are wrong")
            }
            variant.tearDown()
        }
        let topLevelRatio = topLevel[1] / topLevel[0]
        rows.append([
            "top-level publish, token form", TextTable.nanoseconds(topLevel[0]),
            TextTable.nanoseconds(topLevel[1]),
            TargetCheck.format(topLevelRatio) + "x",
        ])

        // A publish from a handler: counted against the limit.
        let nested = [nil, 10_000].map { NestedPublish(cascadeLimit: $0) }
        let nestedCost = sampler.medianNanosecondsPerUnit(nested.map(\.workload))
        for variant in nested where !variant.verify() {
            outcome.failures.append("cascade limit: a nested publish was not delivered")
        }
        nested.forEach { $0.tearDown() }
        rows.append([
            "a handler publishes one more", TextTable.nanoseconds(nestedCost[0]),
            TextTable.nanoseconds(nestedCost[1]),
            TargetCheck.format(nestedCost[1] / nestedCost[0]) + "x",
        ])
        print("The cascade limit, token form, \(subscribers) subscribers")
        print(TextTable.render(header: ["publish", "no limit", "limit 10,000", "limit / none"], rows: rows))
        print("(ns per handler call; a top-level publish never reads the limit.)\n")
        outcome.checks.append(.atMost("cascade limit on a top-level publish / none", topLevelRatio, 1.05))

        // Handler timing, which a lifecycle observer (no capture) turns on.
        let plain = BusTokenVariant(subscribers: subscribers)
        let watched = BusTokenVariant(subscribers: subscribers)
        let watch = watched.bus.observeLifecycle { _ in }
        let clockReadings = ClockReadings()
        let timing = sampler.medianNanosecondsPerUnit([
            plain.workload, watched.workload, clockReadings.workload,
        ])
        watch.cancel()
        let timed = watched.bus.snapshot().handlers.reduce(0) { $0 + $1.calls }
        if timed == 0 { outcome.failures.append("handler timing: a watched bus timed no handler call") }
        if !plain.bus.snapshot().handlers.isEmpty {
            outcome.failures.append("handler timing: a bus nobody watched timed its handlers")
        }
        plain.tearDown()
        watched.tearDown()
        outcome.checks.append(
            .atMost("a handler call timed / untimed, 10 subscribers", timing[1] / timing[0], 1.05))
        print("Handler timing, token form, \(subscribers) subscribers")
        print(
            TextTable.render(
                header: [
                    "nobody watching", "a lifecycle observer watching", "watched / not", "one clock reading",
                ],
                rows: [
                    [
                        TextTable.nanoseconds(timing[0]), TextTable.nanoseconds(timing[1]),
                        TargetCheck.format(timing[1] / timing[0]) + "x", TextTable.nanoseconds(timing[2]),
                    ]
                ]))
        print(
            "(ns per handler call, and per reading of the clock the bus times handlers with: a timed call reads it\n"
                + " once, its end being the next call's start, and is counted; nothing is timed unwatched.)\n"
        )
        // Tracing: busmon's capture taking every handler call too, drained as often as it must
        // be to keep them all.
        let captured = [false, true].map {
            MonitoredBus(
                subscribers: subscribers, drainInterval: MonitorOverhead.keepingEveryEventInterval, traced: $0
            )
        }
        let tracing = sampler.medianNanosecondsPerUnit(captured.map(\.workload))
        captured.forEach { $0.drainer.stop() }
        if !captured.allSatisfy({ $0.verify() }) {
            outcome.failures.append("tracing: an event or a handler call was lost, or a counter is wrong")
        }
        // Drops are counted, not lost; a drainer the scheduler held back past its capacity makes them.
        let droppedCalls = captured[1].calls.droppedShare
        captured.forEach { $0.tearDown() }
        print("Tracing (busmon --trace), token form, \(subscribers) subscribers, busmon's capture attached")
        print(
            TextTable.render(
                header: ["captured", "captured and traced", "traced / captured", "per handler call"],
                rows: [
                    [
                        TextTable.nanoseconds(tracing[0]), TextTable.nanoseconds(tracing[1]),
                        TargetCheck.format(tracing[1] / tracing[0]) + "x",
                        TextTable.nanoseconds((tracing[1] - tracing[0]) / Double(subscribers)),
                    ]
                ]))
        let dropNote =
            droppedCalls > 0
            ? " \(TextTable.percent(droppedCalls)) of the traced calls were dropped and counted: the drainer was held up.\n"
            : ""
        print(
            "(ns per publish, drained every 0.25 ms so that nothing is dropped; traced, each handler call reads the\n"
                + " real-time clock twice and leaves a record in the capture's inbox. Only while busmon writes a trace:\n"
                + " no goal, the price is told.)\n" + dropNote
        )

        // Waiting times, measured for deliveries that wait on a queue or an actor while someone
        // watches: two readings of the system's clock and a locked count a delivery, beside the
        // handler's timing. A delivery called in the publish adds nothing: its wait is zero.
        let queued = [QueuedDelivery(watched: false), QueuedDelivery(watched: true)]
        let queueCost = sampler.medianNanosecondsPerUnit(queued.map(\.workload))
        if !queued.allSatisfy({ $0.verify() }) {
            outcome.failures.append("delivery waits: a queued delivery was lost")
        }
        let measuredWaits = queued[1].bus.snapshot().handlers.reduce(0) { $0 + $1.waits.count }
        if measuredWaits == 0 { outcome.failures.append("delivery waits: a watched bus measured no wait") }
        queued.forEach { $0.tearDown() }
        let queueRatio = queueCost[1] / queueCost[0]
        outcome.checks.append(.atMost("a delivery through a dispatch queue, watched / not", queueRatio, 1.10))
        print("A delivery through a serial dispatch queue, one subscriber")
        print(
            TextTable.render(
                header: ["nobody watching", "a lifecycle observer watching", "watched / not"],
                rows: [
                    [
                        TextTable.nanoseconds(queueCost[0]), TextTable.nanoseconds(queueCost[1]),
                        TargetCheck.format(queueRatio) + "x",
                    ]
                ]))
        print(
            "(ns per delivery, publish to handler, the queue's hop included; watched, each delivery's wait is\n"
                + " measured and its call timed.)\n")
        return outcome
    }
}

/// A bus whose one subscriber runs on a serial dispatch queue, quoted per delivery: `count`
/// publishes, then a wait for the queue to run them all.
final class QueuedDelivery {
    struct Queued: Event {}

    let bus = EventBus(name: "busbench-queued")
    private let queue = DispatchQueue(label: "busbench-queued")
    private let delivered = LockedValue(0)
    private var published = 0
    private var tokens: [Subscription] = []

    init(watched: Bool) {
        let delivered = delivered
        tokens.append(bus.subscribe(to: Queued.self, on: queue) { _ in delivered.withLock { $0 += 1 } })
        if watched { tokens.append(bus.observeLifecycle { _ in }) }
    }

    var workload: Workload {
        Workload(unitsPerIteration: 1) { count in
            for _ in 0..<count { self.bus.publish(Queued()) }
            self.queue.sync {}
            self.published += count
        }
    }

    func verify() -> Bool { delivered.current == published }

    func tearDown() {
        tokens.forEach { $0.cancel() }
        tokens = []
    }
}

/// Reads the clock that times handler calls, quoted per reading.
final class ClockReadings {
    private var sum = 0

    var workload: Workload {
        Workload(unitsPerIteration: 1) { count in
            var sum = 0
            for _ in 0..<count { sum &+= EventBus.handlerClockReading() }
            // Kept, so that the readings are not optimized away.
            self.sum &+= sum
        }
    }
}

/// A bus whose handler publishes one nested event for each top-level one, quoted per handler
/// call of the two.
final class NestedPublish {
    struct Outer: Event {}
    struct Inner: Event {}

    let bus: EventBus
    private var tokens: [Subscription] = []
    private let delivered = LockedValue(0)
    private var published = 0

    init(cascadeLimit: Int?) {
        bus = EventBus(name: "busbench-nested", cascadeLimit: cascadeLimit)
        let bus = bus
        let delivered = delivered
        tokens.append(bus.subscribe(to: Outer.self) { _ in bus.publish(Inner()) })
        tokens.append(bus.subscribe(to: Inner.self) { _ in delivered.withLock { $0 += 1 } })
    }

    var workload: Workload {
        Workload(unitsPerIteration: 2) { count in
            for _ in 0..<count { self.bus.publish(Outer()) }
            self.published += count
        }
    }

    func verify() -> Bool { delivered.current == published }

    func tearDown() {
        tokens.forEach { $0.cancel() }
        tokens = []
    }
}
