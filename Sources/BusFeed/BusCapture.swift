public import EventBus
import Foundation

/// Records what happens on a bus into bounded buffers, for a monitor to drain once a frame.
///
/// The capture subscribes to every delivery and to lifecycle changes. Its handlers run on the
/// publisher's thread, so they only stamp the time and append to a ring buffer under a lock;
/// payloads are formatted later, when a monitor draws them. When a buffer is full the oldest
/// entry is dropped and counted: a slow monitor loses detail, never slows the app much, and
/// exact totals still come from the bus's snapshots.
///
/// ```swift
/// let capture = BusCapture(bus: bus, capacity: 10_000)
/// // ... once a frame:
/// let drained = capture.drain()
/// print(drained.events.count, drained.droppedEvents)
/// ```
public final class BusCapture: Sendable {
    /// Entries each buffer holds when no capacity is given.
    public static let defaultCapacity = 10_000

    /// What ``drain()`` hands over.
    public struct Drained: Sendable {
        /// Events captured since the previous drain, oldest first.
        public var events: [CapturedEvent]
        /// Lifecycle changes captured since the previous drain, oldest first.
        public var lifecycle: [CapturedLifecycle]
        /// Events dropped because the buffer was full, since the capture began (a running total).
        public var droppedEvents: Int
        /// Lifecycle changes dropped because their buffer was full, since the capture began.
        public var droppedLifecycle: Int
    }

    /// The bus being watched.
    public let bus: EventBus
    /// Entries each buffer holds before the oldest are dropped.
    public let capacity: Int

    private let buffer: CaptureBuffer
    private let subscriptions: LockedValue<[Subscription]>

    /// Starts capturing what happens on `bus`.
    ///
    /// - Parameters:
    ///   - bus: The bus to watch.
    ///   - capacity: Events (and, separately, lifecycle changes) kept between two drains; at
    ///     least 1.
    public convenience init(bus: EventBus, capacity: Int = defaultCapacity) {
        self.init(bus: bus, capacity: capacity, clock: { Date().timeIntervalSince1970 })
    }

    /// Starts capturing, stamping entries with `clock`, in seconds since 1970.
    init(bus: EventBus, capacity: Int, clock: @escaping @Sendable () -> Double) {
        self.bus = bus
        self.capacity = max(1, capacity)
        let buffer = CaptureBuffer(capacity: self.capacity)
        self.buffer = buffer
        let deliveries = bus.observeDeliveries { record in
            buffer.append(
                CapturedEvent(
                    time: clock(), typeName: record.eventTypeName, payload: .value(record.event),
                    receivers: record.receivers))
        }
        let lifecycle = bus.observeLifecycle { change in
            buffer.append(CapturedLifecycle(time: clock(), change: change))
        }
        subscriptions = LockedValue([deliveries, lifecycle])
    }

    deinit {
        detach()
    }

    /// Returns everything captured since the previous call and empties the buffers.
    ///
    /// - Complexity: O(*n*) in the entries returned; the lock is held only to swap buffers.
    public func drain() -> Drained {
        buffer.drain()
    }

    /// Events dropped so far because the buffer was full.
    public var droppedEvents: Int { buffer.droppedEvents }

    /// Whether the capture still receives from the bus.
    public var isAttached: Bool {
        subscriptions.withLock { !$0.isEmpty }
    }

    /// Stops capturing; what is buffered can still be drained. Calling it again does nothing.
    public func detach() {
        let taken = subscriptions.withLock { subscriptions in
            defer { subscriptions = [] }
            return subscriptions
        }
        for subscription in taken { subscription.cancel() }
    }
}

/// The capture's two ring buffers and drop counters under one lock.
final class CaptureBuffer: @unchecked Sendable {
    private let lock = Lock()
    // Guarded by `lock`.
    private var events: RingBuffer<CapturedEvent>
    private var lifecycle: RingBuffer<CapturedLifecycle>
    private var eventDrops = 0
    private var lifecycleDrops = 0

    init(capacity: Int) {
        events = RingBuffer(capacity: capacity)
        lifecycle = RingBuffer(capacity: capacity)
    }

    @inline(__always)
    func append(_ event: CapturedEvent) {
        lock.lock()
        if events.append(event) { eventDrops += 1 }
        lock.unlock()
    }

    func append(_ change: CapturedLifecycle) {
        lock.lock()
        if lifecycle.append(change) { lifecycleDrops += 1 }
        lock.unlock()
    }

    var droppedEvents: Int {
        lock.withLock { eventDrops }
    }

    func drain() -> BusCapture.Drained {
        lock.lock()
        let takenEvents = events.takeStorage()
        let takenLifecycle = lifecycle.takeStorage()
        let drops = (eventDrops, lifecycleDrops)
        lock.unlock()
        // Putting the entries in order happens after unlocking, so publishers do not wait for it.
        return BusCapture.Drained(
            events: takenEvents.inOrder, lifecycle: takenLifecycle.inOrder, droppedEvents: drops.0,
            droppedLifecycle: drops.1)
    }
}

/// A buffer of at most `capacity` elements that overwrites its oldest element when full.
struct RingBuffer<Element> {
    /// A buffer's contents as taken: the storage and where the oldest element is.
    struct Storage {
        var elements: [Element]
        var oldest: Int

        /// The elements, oldest first.
        var inOrder: [Element] {
            oldest == 0 ? elements : Array(elements[oldest...] + elements[..<oldest])
        }
    }

    let capacity: Int
    private var elements: [Element] = []
    private var oldest = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { elements.count }

    /// Appends `element`, overwriting the oldest when full.
    ///
    /// - Returns: Whether an element was dropped to make room.
    @inline(__always)
    mutating func append(_ element: Element) -> Bool {
        if elements.count < capacity {
            elements.append(element)
            return false
        }
        elements[oldest] = element
        oldest += 1
        if oldest == capacity { oldest = 0 }
        return true
    }

    /// Hands over the contents and leaves the buffer empty.
    mutating func takeStorage() -> Storage {
        defer {
            elements = []
            oldest = 0
        }
        return Storage(elements: elements, oldest: oldest)
    }
}
