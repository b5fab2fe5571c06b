import EventBus

/// A thread-safe buffer of at most `capacity` elements that drops its oldest element when full,
/// counts what it dropped, and hands its contents over oldest first.
///
/// Publishers append on their own threads for every event, so an append does as little as it
/// can: no allocation (two buffers of `capacity` slots are allocated once, and a drain swaps them
/// instead of growing an array again), no dynamic exclusivity check, and an element that a full
/// buffer drops is destroyed after the lock is released, so that its `deinit` never runs under
/// the lock (where appending to the same buffer would deadlock) and never makes other
/// publishers wait.
final class CaptureRing<Element>: @unchecked Sendable {
    /// Elements the buffer holds before the oldest are dropped.
    let capacity: Int

    /// Guards the fields marked `@exclusivity(unchecked)`; held for a few stores per append.
    private let lock = Lock()
    /// Held by a drain for its whole length, so that drains take turns with ``spare``.
    private let drainLock = Lock()

    // `@exclusivity(unchecked)`: `lock` already makes every access exclusive, and the runtime's
    // dynamic check (a thread-local lookup per access) cost more than the rest of an append.
    /// The slots appends write to; the initialized ones are the `count` before `end`, cyclically.
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Element>
    /// Where the next element goes: one past the newest, or the oldest when full.
    @exclusivity(unchecked) private var end = 0
    /// How many slots hold an element.
    @exclusivity(unchecked) private var count = 0
    /// Elements dropped since the buffer was made.
    @exclusivity(unchecked) private var drops = 0

    /// Uninitialized slots that a drain swaps with ``slots``; guarded by `drainLock`.
    @exclusivity(unchecked) private var spare: UnsafeMutablePointer<Element>

    /// Creates an empty buffer.
    ///
    /// - Parameter capacity: Elements held before the oldest are dropped; at least 1.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        // Untouched pages of a large allocation cost no memory until they are written.
        slots = .allocate(capacity: self.capacity)
        spare = .allocate(capacity: self.capacity)
    }

    deinit {
        let oldest = end - count < 0 ? end - count + capacity : end - count
        let firstRun = min(count, capacity - oldest)
        (slots + oldest).deinitialize(count: firstRun)
        slots.deinitialize(count: count - firstRun)
        slots.deallocate()
        spare.deallocate()
    }

    /// Appends `element`, dropping the oldest when full.
    @inline(__always)
    func append(_ element: consuming Element) {
        lock.lock()
        storeAndUnlock(element)
    }

    /// Time stamps for ``append(stamping:)``; guarded by `lock`.
    @exclusivity(unchecked) private var stamps = StampClock()

    /// Appends the element `make` builds from a time stamp taken under the lock (see
    /// ``StampClock``: cheaper than reading the precise clock for every event), dropping the
    /// oldest when full.
    @inline(__always)
    func append(stamping make: (Double) -> Element) {
        lock.lock()
        storeAndUnlock(make(stamps.stamp()))
    }

    /// Stores `element` in the next slot and releases the lock, which the caller holds.
    @inline(__always)
    private func storeAndUnlock(_ element: consuming Element) {
        let slot = slots + end
        end += 1
        if end == capacity { end = 0 }
        if count < capacity {
            count += 1
            slot.initialize(to: element)
            lock.unlock()
        } else {
            drops += 1
            let dropped = slot.move()
            slot.initialize(to: element)
            lock.unlock()
            // Without this the optimizer destroys `dropped` in its slot, before the unlock.
            withExtendedLifetime(dropped) {}
        }
    }

    /// Elements dropped since the buffer was made.
    var droppedCount: Int {
        lock.withLock { drops }
    }

    /// Hands over every element held, oldest first, transformed, and empties the buffer.
    ///
    /// - Parameter transform: Turns a taken element into what the caller keeps; it runs after
    ///   appends are let go on.
    /// - Returns: The transformed elements, oldest first, and the drops since the buffer was
    ///   made.
    /// - Complexity: O(*n*) in the elements handed over; appends wait only while two pointers
    ///   are swapped.
    func drain<Output>(_ transform: (consuming Element) -> Output) -> (elements: [Output], dropped: Int) {
        drainLock.lock()
        defer { drainLock.unlock() }
        lock.lock()
        let taken = slots
        slots = spare
        let takenEnd = end
        let takenCount = count
        let dropped = drops
        end = 0
        count = 0
        lock.unlock()

        let oldest = takenEnd - takenCount < 0 ? takenEnd - takenCount + capacity : takenEnd - takenCount
        let elements = [Output](unsafeUninitializedCapacity: takenCount) { output, initialized in
            var source = oldest
            for index in 0..<takenCount {
                (output.baseAddress! + index).initialize(to: transform((taken + source).move()))
                source += 1
                if source == capacity { source = 0 }
            }
            initialized = takenCount
        }
        // Every taken slot was moved out, so the buffer is uninitialized and free for reuse.
        spare = taken
        return (elements, dropped)
    }
}
