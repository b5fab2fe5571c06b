import BusFeed
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
                let count = capture.drain().events.count
                state.withLock {
                    $0.drainedEvents += count
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

    /// Drains done so far.
    var drains: Int { state.withLock { $0.drains } }
}

/// The cost of a publish to typed subscribers with and without busmon's capture attached: a
/// ``BusCapture`` (a wildcard delivery observer that stamps and buffers every event) with the
/// default capacity, drained from another thread 25 times a second as busmon's screen does. A
/// publisher that outruns the drains fills the buffer, and from then on each event also drops the
/// oldest, which is what busmon does under such a flood too.
final class MonitorOverhead {
    let subscribers: Int
    let plain: BusTokenVariant
    let monitored: BusTokenVariant
    let capture: BusCapture
    let drainer: CaptureDrainer
    private var monitoredPublishes = 0

    init(subscribers: Int) {
        self.subscribers = subscribers
        plain = BusTokenVariant(subscribers: subscribers)
        monitored = BusTokenVariant(subscribers: subscribers)
        capture = BusCapture(bus: monitored.bus)
        drainer = CaptureDrainer(capture: capture)
        drainer.start()
    }

    /// Publishes without a monitor, quoted per publish.
    var withoutMonitor: Workload {
        Workload(unitsPerIteration: 1) { count in
            self.plain.publish(count: count)
            self.plain.accumulators.expectPublished(count: count)
        }
    }

    /// Publishes with the capture attached, quoted per publish.
    var withMonitor: Workload {
        Workload(unitsPerIteration: 1) { count in
            self.monitored.publish(count: count)
            self.monitored.accumulators.expectPublished(count: count)
            self.monitoredPublishes += count
        }
    }

    /// Stops the drains; call before ``verify()``.
    func stopDraining() {
        drainer.stop()
    }

    /// Events the capture holds between two drains.
    var captureCapacity: Int { capture.capacity }

    /// The share of captured events dropped because the buffer was full.
    var droppedShare: Double {
        monitoredPublishes == 0 ? 0 : Double(capture.droppedEvents) / Double(monitoredPublishes)
    }

    /// Whether the sums and counters are exact and every captured event was drained or counted
    /// as dropped.
    func verify() -> Bool {
        let last = capture.drain()
        let accounted = drainer.drainedEvents + last.events.count + last.droppedEvents
        return plain.verify() && monitored.verify() && plain.countersAreExact()
            && monitored.countersAreExact() && accounted == monitoredPublishes
            && monitored.bus.snapshot().wildcardDeliveries == monitoredPublishes
    }

    func tearDown() {
        capture.detach()
        plain.tearDown()
        monitored.tearDown()
    }
}
