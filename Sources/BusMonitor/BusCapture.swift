package import BusWire
package import EventBus

/// Records what happens on a bus into bounded buffers, for a monitor to drain once a frame.
///
/// The capture subscribes to every delivery and to lifecycle changes. Its handlers run on the
/// publisher's thread, so they only stamp the time and append to a buffer under a lock;
/// payloads are formatted later, when a monitor draws them. A full buffer keeps what it holds
/// and counts what comes after it as dropped, until the next drain makes room: a slow monitor
/// loses detail, never slows the app much, and exact totals still come from the bus's
/// snapshots.
///
/// ```swift
/// let capture = BusCapture(bus: bus, capacity: 10_000)
/// // ... once a frame:
/// let drained = capture.drain()
/// print(drained.events.count, drained.droppedEvents)
/// ```
package final class BusCapture: Sendable {
    /// Entries each buffer holds when no capacity is given.
    package static let defaultCapacity = 10_000

    /// What ``drain()`` hands over.
    package struct Drained: Sendable {
        /// Events and lifecycle changes captured since the previous drain, in the order they
        /// happened; each event holds its value, formatted only when read
        /// (``FeedPayload/value(_:)``), and numbers 0 in ``FeedEvent/sequence`` (a writer numbers
        /// its stream).
        package var records: [FeedRecord]
        /// Events dropped because the buffer was full, since the capture began (a running total).
        package var droppedEvents: Int
        /// Lifecycle changes dropped because their buffer was full, since the capture began.
        package var droppedLifecycle: Int

        /// The events of ``records``.
        package var events: [FeedEvent] { records.events }

        /// The lifecycle changes of ``records``.
        package var lifecycle: [FeedLifecycle] { records.lifecycleChanges }
    }

    /// A lifecycle change, with where the events stood when it happened, to keep the order.
    private struct PlacedChange: Sendable {
        var position: CaptureBuffer<FeedEvent>.Position
        var change: FeedLifecycle
    }

    /// The bus being watched.
    package let bus: EventBus
    /// Entries each buffer holds between two drains; later ones are dropped and counted.
    package let capacity: Int

    private let events: CaptureBuffer<FeedEvent>
    private let lifecycle: CaptureBuffer<PlacedChange>
    private let subscriptions: LockedValue<[Subscription]>

    /// Starts capturing what happens on `bus`.
    ///
    /// - Parameters:
    ///   - bus: The bus to watch.
    ///   - capacity: Events (and, separately, lifecycle changes) kept between two drains; at
    ///     least 1. Each buffer reserves room for twice this many up front (one to fill, one
    ///     to swap in at a drain), so that publishing never allocates.
    package convenience init(bus: EventBus, capacity: Int = defaultCapacity) {
        self.init(bus: bus, capacity: capacity, clock: nil)
    }

    /// Starts capturing, stamping entries with `clock`, in seconds since 1970, or with the
    /// system's real-time clock when `clock` is `nil`.
    init(bus: EventBus, capacity: Int, clock: (@Sendable () -> Double)?) {
        self.bus = bus
        self.capacity = max(1, capacity)
        let events = CaptureBuffer<FeedEvent>(capacity: self.capacity)
        let lifecycle = CaptureBuffer<PlacedChange>(capacity: self.capacity)
        self.events = events
        self.lifecycle = lifecycle
        let deliveries: Subscription
        if let clock {
            deliveries = bus.observeDeliveries { record in
                events.append(
                    FeedEvent(
                        sequence: 0, time: clock(), typeName: record.eventTypeName,
                        payload: .value(record.event), receivers: record.receivers, trace: record.trace))
            }
        } else {
            // The system clock, read under the ring's lock through its stamp clock: this handler
            // runs for every event published.
            deliveries = bus.observeDeliveries { record in
                events.append(stamping: { time in
                    FeedEvent(
                        sequence: 0, time: time, typeName: record.eventTypeName,
                        payload: .value(record.event), receivers: record.receivers, trace: record.trace)
                })
            }
        }
        let changes = bus.observeLifecycle { change in
            lifecycle.append(
                PlacedChange(
                    position: events.position(),
                    change: FeedLifecycle(time: clock?() ?? WallClock.now(), change: change)))
        }
        subscriptions = LockedValue([deliveries, changes])
    }

    deinit {
        detach()
    }

    /// Returns everything captured since the previous call and empties the buffers.
    ///
    /// - Complexity: O(*n*) in the entries returned; publishers wait only while the buffers
    ///   are swapped.
    package func drain() -> Drained {
        let taken = events.drain { $0 }
        let changes = lifecycle.drain { $0 }
        var records: [FeedRecord] = []
        records.reserveCapacity(taken.elements.count + changes.elements.count)
        var next = 0
        for placed in changes.elements {
            // A change made during an earlier filling goes first, one made after the drain last.
            let before =
                placed.position.generation < taken.generation
                ? 0
                : placed.position.generation > taken.generation
                    ? taken.elements.count : min(placed.position.index, taken.elements.count)
            while next < before {
                records.append(.event(taken.elements[next]))
                next += 1
            }
            records.append(.lifecycle(placed.change))
        }
        while next < taken.elements.count {
            records.append(.event(taken.elements[next]))
            next += 1
        }
        return Drained(records: records, droppedEvents: taken.dropped, droppedLifecycle: changes.dropped)
    }

    /// Events dropped so far because the buffer was full.
    package var droppedEvents: Int { events.droppedCount }

    /// Whether the capture still receives from the bus.
    package var isAttached: Bool {
        subscriptions.withLock { !$0.isEmpty }
    }

    /// Stops capturing; what is buffered can still be drained. Calling it again does nothing.
    package func detach() {
        let taken = subscriptions.withLock { subscriptions in
            defer { subscriptions = [] }
            return subscriptions
        }
        for subscription in taken { subscription.cancel() }
    }
}
