import EventBus

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where the app's publishing threads leave events for the tap thread.
///
/// The publisher's side runs inside every `publish`, so it is kept as short as it can be: take a
/// lock, store the event itself (no formatting) with a time stamp, release the lock. When the
/// inbox is full the oldest event is overwritten, so a slow tap never makes a publisher wait.
/// The tap thread swaps the whole ring for an empty one under the lock (a few stores) and reads
/// it afterwards without the lock, so the two sides meet only briefly.
///
/// The guarded state lives behind a pointer rather than in stored properties: Swift checks
/// exclusive access to a class's `var`s at run time on every access, which here would cost more
/// than the work itself. The lock already gives that exclusivity.
final class TapInbox: @unchecked Sendable {
    /// One event as the publisher left it.
    struct EventSlot {
        var time: Double
        var event: any Event
        var receivers: Int
    }

    /// A lifecycle change, with the number of events published before it, to keep the order.
    struct LifecycleSlot {
        var sequence: Int
        var eventsBefore: Int
        var time: Double
        var change: SubscriberLifecycleEvent
    }

    /// A ring of slots: the storage the publishers fill, or the one the tap thread reads.
    struct Ring {
        let slots: UnsafeMutablePointer<EventSlot>
        let capacity: Int
        /// Index of the oldest slot.
        var start = 0
        /// Slots in use.
        var count = 0
        /// The sequence number of the oldest slot.
        var firstSequence = 1

        static func allocate(capacity: Int) -> Ring {
            Ring(slots: .allocate(capacity: capacity), capacity: capacity)
        }

        /// Stores an event; the fields are passed apart so the event is copied once, straight
        /// into its slot.
        @inline(__always)
        mutating func append(time: Double, event: borrowing any Event, receivers: Int) {
            let index: Int
            if count < capacity {
                index = start + count < capacity ? start + count : start + count - capacity
                count += 1
            } else {
                // Full: the oldest slot makes room.
                index = start
                (slots + index).deinitialize(count: 1)
                start = start + 1 == capacity ? 0 : start + 1
                firstSequence += 1
            }
            (slots + index).initialize(to: EventSlot(time: time, event: copy event, receivers: receivers))
        }

        /// Calls `body` with each slot, oldest first, and its sequence number, emptying the ring.
        mutating func drain(_ body: (Int, EventSlot) -> Void) {
            for offset in 0..<count {
                var index = start + offset
                if index >= capacity { index -= capacity }
                body(firstSequence + offset, (slots + index).move())
            }
            firstSequence += count
            start = 0
            count = 0
        }

        /// Releases the events held and the storage.
        mutating func deallocate() {
            drain { _, _ in }
            slots.deallocate()
        }
    }

    private struct State {
        var active: Ring?
        var eventsWritten = 0
        var lifecycle: [LifecycleSlot] = []
        var lifecycleWritten = 0
        var lastCoarseClock = -1
        var recordsInTick = 0
        var lastTime = 0.0
    }

    let capacity: Int
    let lifecycleCapacity: Int
    private let lock = Lock()
    private let state: UnsafeMutablePointer<State>

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        lifecycleCapacity = min(self.capacity, 4096)
        state = .allocate(capacity: 1)
        state.initialize(to: State())
    }

    deinit {
        state.pointee.active?.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Starts accepting events into `ring`; the tap calls this when its first reader connects.
    func open(with ring: Ring) {
        lock.withLock {
            var ring = ring
            ring.firstSequence = state.pointee.eventsWritten + 1
            state.pointee.active = ring
        }
    }

    /// Stops accepting events and hands back the ring, still holding what it had.
    func close() -> Ring? {
        lock.withLock {
            defer {
                state.pointee.active = nil
                state.pointee.lifecycle = []
            }
            return state.pointee.active
        }
    }

    /// The sequence numbers the next event and lifecycle change will get.
    func nextSequences() -> (event: Int, lifecycle: Int) {
        lock.withLock { (state.pointee.eventsWritten + 1, state.pointee.lifecycleWritten + 1) }
    }

    /// Called on the publisher's thread for every event.
    @inline(__always)
    func append(_ delivery: DeliveryRecord) {
        lock.lock()
        if state.pointee.active != nil {
            state.pointee.eventsWritten += 1
            let time = stampLocked()
            state.pointee.active!.append(time: time, event: delivery.event, receivers: delivery.receivers)
        }
        lock.unlock()
    }

    /// Called on whichever thread changed the subscriptions; rare, so kept simple.
    func append(_ change: SubscriberLifecycleEvent) {
        lock.lock()
        if state.pointee.active != nil {
            state.pointee.lifecycleWritten += 1
            if state.pointee.lifecycle.count >= lifecycleCapacity { state.pointee.lifecycle.removeFirst() }
            let slot = LifecycleSlot(
                sequence: state.pointee.lifecycleWritten, eventsBefore: state.pointee.eventsWritten,
                time: stampLocked(), change: change)
            state.pointee.lifecycle.append(slot)
        }
        lock.unlock()
    }

    /// Swaps in `empty` (whose slots must hold nothing) and returns what was gathered since the
    /// last swap, or nil when the inbox is closed.
    func swap(for empty: Ring) -> (events: Ring, lifecycle: [LifecycleSlot])? {
        lock.lock()
        defer { lock.unlock() }
        guard let full = state.pointee.active else { return nil }
        var fresh = empty
        fresh.start = 0
        fresh.count = 0
        fresh.firstSequence = state.pointee.eventsWritten + 1
        state.pointee.active = fresh
        let changes = state.pointee.lifecycle
        state.pointee.lifecycle = []
        return (full, changes)
    }

    /// A time stamp, cheap enough for every event. The coarse clock (a few nanoseconds, one
    /// kernel tick of 1-4 ms resolution) counts records per tick; the first 8 records of a tick,
    /// and every 64th after, read the precise clock (25 ns or so), the rest reuse the last
    /// reading. So stamps are exact up to about 2,000 records a second, at most 64 records or one
    /// tick early above that, and never go backwards.
    @inline(__always)
    private func stampLocked() -> Double {
        var coarse = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &coarse)
        let tick = Int(coarse.tv_sec) &* 1_000_000_000 &+ Int(coarse.tv_nsec)
        if tick != state.pointee.lastCoarseClock {
            state.pointee.lastCoarseClock = tick
            state.pointee.recordsInTick = 0
        }
        state.pointee.recordsInTick &+= 1
        if state.pointee.recordsInTick <= 8 || state.pointee.recordsInTick & 63 == 0 {
            state.pointee.lastTime = max(state.pointee.lastTime, wallClockNow())
        }
        return state.pointee.lastTime
    }
}
