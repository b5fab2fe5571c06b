package import BusWire
package import EventBus

/// Records what happens on a bus into bounded buffers, for a monitor to drain once a frame.
///
/// The capture subscribes to every delivery and to lifecycle changes, into a ``RecordInbox``
/// (the tap and the NATS bridge take from the same kind). Its handlers run on the publisher's
/// thread, so they only stamp the time and append to a buffer under a lock; payloads are
/// formatted later, when a monitor draws them. A full buffer keeps what it holds
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

    /// What ``drain()`` hands over: the inbox's records, in the order things happened, each event
    /// holding its value (formatted only when read, ``FeedPayload/value(_:)``), with the drop
    /// counts since the capture began.
    package typealias Drained = RecordInbox.Drained

    /// The bus being watched.
    package let bus: EventBus
    /// Entries each buffer holds between two drains; later ones are dropped and counted.
    package let capacity: Int

    private let inbox: RecordInbox
    private let subscriptions: LockedValue<[Subscription]>
    private let capturingCalls = LockedValue(false)

    /// Starts capturing what happens on `bus`.
    ///
    /// - Parameters:
    ///   - bus: The bus to watch.
    ///   - capacity: Events kept between two drains; at least 1. Room for twice this many is
    ///     reserved up front (one buffer to fill, one to swap in at a drain), so that publishing
    ///     never allocates.
    package convenience init(bus: EventBus, capacity: Int = defaultCapacity) {
        self.init(bus: bus, capacity: capacity, clock: nil)
    }

    /// Starts capturing, stamping entries with `clock`, in seconds since 1970, or with the
    /// system's real-time clock when `clock` is `nil`.
    init(bus: EventBus, capacity: Int, clock: (@Sendable () -> Double)?) {
        self.bus = bus
        self.capacity = max(1, capacity)
        let inbox = RecordInbox(capacity: self.capacity, whenFull: .dropNewest, clock: clock)
        self.inbox = inbox
        // Through the inbox's gate: while the buffer is full, the bus builds nothing for it.
        let deliveries = bus.observeDeliveries(through: inbox.gate) { inbox.append($0) }
        let changes = bus.observeLifecycle { inbox.append($0) }
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
        inbox.drain()
    }

    /// Events dropped so far because the buffer was full.
    package var droppedEvents: Int { inbox.droppedEvents }

    /// Whether the capture still receives from the bus.
    package var isAttached: Bool {
        subscriptions.withLock { !$0.isEmpty }
    }

    /// Captures every handler call from now on too, for a trace; calling it again does nothing.
    package func captureHandlerCalls() {
        let inbox = self.inbox
        subscriptions.withLock { subscriptions in
            // Only while attached, and once.
            guard !subscriptions.isEmpty, !capturingCalls.current else { return }
            capturingCalls.withLock { $0 = true }
            subscriptions.append(bus.observeHandlerCalls { inbox.append($0) })
        }
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
