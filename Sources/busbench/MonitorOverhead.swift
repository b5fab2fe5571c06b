import BusMonitor
import BusWire
import EventBus
import Foundation

/// Drains a ``BusCapture`` from its own thread at a fixed cadence, as busmon's screen does once a
/// frame, and counts what it was handed.
final class CaptureDrainer: Sendable {
    /// busmon draws (and drains its capture) about 25 times a second.
    static let defaultInterval = 0.04

    let capture: BusCapture
    let interval: Double
    private let state = LockedValue(State())
    private let finished = DispatchSemaphore(value: 0)

    private struct State {
        var isStopping = false
        var drainedEvents = 0
        var drainedCalls = 0
        var drains = 0
    }

    init(capture: BusCapture, interval: Double = defaultInterval) {
        self.capture = capture
        self.interval = interval
    }

    /// Starts draining on a new thread until ``stop()``.
    func start() {
        let thread = Thread { [self] in
            while !state.withLock({ $0.isStopping }) {
                Thread.sleep(forTimeInterval: interval)
                let records = capture.drain().records
                var events = 0
                var calls = 0
                for record in records {
                    switch record {
                    case .event: events += 1
                    case .call: calls += 1
                    default: break
                    }
                }
                state.withLock {
                    $0.drainedEvents += events
                    $0.drainedCalls += calls
                    $0.drains += 1
                }
            }
            finished.signal()
        }
        thread.name = "capture drainer"
        thread.start()
    }

    /// Stops the thread and waits for its last drain.
    func stop() {
        state.withLock { $0.isStopping = true }
        finished.wait()
    }

    /// Events handed over by the drains so far.
    var drainedEvents: Int { state.withLock { $0.drainedEvents } }

    /// Handler calls handed over by the drains so far, while tracing.
    var drainedCalls: Int { state.withLock { $0.drainedCalls } }

    /// Drains done so far.
    var drains: Int { state.withLock { $0.drains } }
}

/// One bus with a ``BusCapture`` attached and drained at a fixed cadence from another thread.
final class MonitoredBus {
    let variant: BusTokenVariant
    let capture: BusCapture
    let drainer: CaptureDrainer
    /// Whether the capture takes every handler call too.
    let traced: Bool
    private(set) var publishes = 0

    /// - Parameter traced: Whether the capture takes every handler call too, as while busmon
    ///   writes a trace.
    init(subscribers: Int, drainInterval: Double, traced: Bool = false) {
        self.traced = traced
        variant = BusTokenVariant(subscribers: subscribers)
        capture = BusCapture(bus: variant.bus)
        if traced { capture.captureHandlerCalls() }
        drainer = CaptureDrainer(capture: capture, interval: drainInterval)
        drainer.start()
    }

    /// Publishes with the capture attached, quoted per publish.
    var workload: Workload {
        Workload(unitsPerIteration: 1) { count in
            self.variant.publish(count: count)
            self.variant.accumulators.expectPublished(count: count)
            self.publishes += count
        }
    }

    /// The share of published events the capture dropped because its buffer was full.
    var droppedShare: Double {
        publishes == 0 ? 0 : Double(capture.droppedEvents) / Double(publishes)
    }

    /// Handler calls made and the share of them the capture dropped, set by ``verify()`` while
    /// tracing.
    private(set) var calls = (made: 0, droppedShare: 0.0)

    /// Whether the sums and counters are exact, every captured event was drained or counted as
    /// dropped, and, while tracing, every handler call too; call after
    /// ``CaptureDrainer/stop()``.
    func verify() -> Bool {
        let last = capture.drain()
        if traced {
            let made = publishes * variant.accumulators.subscriberCount
            let kept = drainer.drainedCalls + last.records.calls.count
            calls = (made, made == 0 ? 0 : Double(last.droppedCalls) / Double(made))
            guard kept + last.droppedCalls == made else { return false }
        }
        let accounted = drainer.drainedEvents + last.events.count + last.droppedEvents
        // The capture's gate turns away, undelivered, most of the events it drops.
        let delivered = variant.bus.snapshot().wildcardDeliveries
        return variant.verify() && variant.countersAreExact() && accounted == publishes
            && delivered <= publishes && delivered >= publishes - last.droppedEvents
    }

    func tearDown() {
        capture.detach()
        variant.tearDown()
    }
}

/// The cost of a publish to typed subscribers with and without busmon's capture attached: a
/// ``BusCapture`` (a wildcard delivery observer that stamps and buffers every event) with the
/// default capacity.
///
/// Two monitored set-ups, each timed against the same unmonitored bus, one after the other so
/// that only one drainer thread runs at a time: one drained 25 times a second, as busmon's screen
/// does, which a publisher flat out fills between drains, so that from then on the capture drops
/// what comes (as busmon does under such a flood); and one drained often enough that it keeps
/// every event, the capture's full cost per event.
final class MonitorOverhead {
    /// Drains often enough that a publisher flat out (10-20 million events a second) stays below
    /// the capture's capacity between two of them.
    static let keepingEveryEventInterval = 0.000_25

    let subscribers: Int
    let plain: BusTokenVariant

    init(subscribers: Int) {
        self.subscribers = subscribers
        plain = BusTokenVariant(subscribers: subscribers)
    }

    /// Publishes without a monitor, quoted per publish.
    var withoutMonitor: Workload {
        Workload(unitsPerIteration: 1) { count in
            self.plain.publish(count: count)
            self.plain.accumulators.expectPublished(count: count)
        }
    }

    /// A bus like ``plain`` with a capture drained every `drainInterval` seconds; stop its
    /// drainer, verify and tear it down when done.
    func monitored(drainInterval: Double) -> MonitoredBus {
        MonitoredBus(subscribers: subscribers, drainInterval: drainInterval)
    }

    /// Whether the unmonitored bus's sums and counters are exact.
    func verify() -> Bool {
        plain.verify() && plain.countersAreExact()
    }

    func tearDown() {
        plain.tearDown()
    }
}
