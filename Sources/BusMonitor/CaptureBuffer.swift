internal import BusWire
internal import EventBus
internal import Synchronization

/// A thread-safe buffer that keeps the first `capacity` elements appended after each drain,
/// counts the ones it had no room for, and hands its contents over in the order they came.
///
/// Publishers append on their own threads for every event, so an append does as little as it
/// can: no allocation (two ``SlotRing``s of `capacity` slots are allocated once, and a drain swaps them
/// instead of growing an array again) and no dynamic exclusivity check (the state is a value in
/// a ``LockedValue``, not stored `var`s of the class).
///
/// A full buffer drops what comes next rather than its oldest element. Under a flood that keeps
/// the buffer full, an append then costs two atomic operations and builds nothing, instead of
/// writing a new element over the oldest one each time, which cycled through the whole buffer
/// (hundreds of kilobytes) for every event and so missed the processor's caches on every append.
/// Either way a monitor sees one stretch of the flood per drain and counts the rest, and exact
/// totals come from the bus's counters, not from the buffer.
///
/// `@unchecked Sendable`: elements sit in raw storage that only the locks reach; a buffer is
/// shared between threads only for `Sendable` elements (captured events and lifecycle changes).
final class CaptureBuffer<Element>: @unchecked Sendable {
    /// Elements the buffer holds between two drains; later ones are dropped.
    let capacity: Int

    /// What appends write, reached only under its lock, which an append holds for a few stores.
    private struct Filling {
        /// The slots appends write to.
        var ring: SlotRing<Element>
        /// Time stamps for ``CaptureBuffer/append(stamping:)``.
        var stamps = StampClock()
        /// Drains so far: which filling of the ring this is.
        var generation = 0
    }

    /// Where the next element goes: the ring's filling (drains so far) and its index in it, so
    /// that something kept elsewhere can be put back in order among the elements.
    struct Position: Sendable {
        var generation: Int
        var index: Int
    }

    /// Where the next appended element will stand.
    func position() -> Position {
        filling.withLock { Position(generation: $0.generation, index: $0.ring.count) }
    }

    private let filling: LockedValue<Filling>
    /// Uninitialized slots that a drain swaps with the filling ones. A drain holds this lock for
    /// its whole length, so that drains take turns with them.
    private let spare: LockedValue<SlotRing<Element>>
    /// Set by the append that fills the buffer and cleared by a drain, so that appends to a full
    /// buffer skip the lock. A stale `true` read just after a drain drops an element that would
    /// have fit, which is counted like any other drop.
    private let isFull = Atomic<Bool>(false)
    /// Elements dropped since the buffer was made, counted outside the lock.
    private let drops = Atomic<Int>(0)

    /// Creates an empty buffer.
    ///
    /// - Parameter capacity: Elements held between two drains; at least 1.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        // Untouched pages of a large allocation cost no memory until they are written.
        filling = LockedValue(Filling(ring: .allocate(capacity: self.capacity)))
        spare = LockedValue(.allocate(capacity: self.capacity))
    }

    deinit {
        filling.withLock { $0.ring.deallocate() }
        spare.withLock { $0.deallocate() }
    }

    /// Appends `element`, or drops it when the buffer is full.
    @inline(__always)
    func append(_ element: consuming Element) {
        guard !isFull.load(ordering: .relaxed) else {
            countDrop()
            return
        }
        // A dropped element is destroyed on return, after the lock was let go: its `deinit`
        // may append to this buffer again.
        var pending = Optional(element)
        let stored = filling.withLock { filling in
            guard !filling.ring.isFull else { return false }
            store(pending.take()!, in: &filling)
            return true
        }
        if !stored { countDrop() }
    }

    /// Appends the element `make` builds from a time stamp taken under the lock (see
    /// ``StampClock``: cheaper than reading the precise clock for every event), or, when the
    /// buffer is full, counts a drop without calling `make`.
    @inline(__always)
    func append(stamping make: (Double) -> Element) {
        guard !isFull.load(ordering: .relaxed) else {
            countDrop()
            return
        }
        let stored = filling.withLock { filling in
            guard !filling.ring.isFull else { return false }
            store(make(filling.stamps.stamp()), in: &filling)
            return true
        }
        if !stored { countDrop() }
    }

    @inline(__always)
    private func countDrop() {
        drops.wrappingAdd(1, ordering: .relaxed)
    }

    /// Stores `element` in the next slot of `filling`, which has room for it.
    @inline(__always)
    private func store(_ element: consuming Element, in filling: inout Filling) {
        filling.ring.append(element)
        if filling.ring.isFull { isFull.store(true, ordering: .relaxed) }
    }

    /// Elements dropped since the buffer was made.
    var droppedCount: Int {
        drops.load(ordering: .relaxed)
    }

    /// Hands over every element held, in the order they came, transformed, and empties the
    /// buffer.
    ///
    /// - Parameter transform: Turns a taken element into what the caller keeps; it runs after
    ///   appends are let go on.
    /// - Returns: The transformed elements, oldest first, the drops since the buffer was made,
    ///   and the ``Position/generation`` they were appended in.
    /// - Complexity: O(*n*) in the elements handed over; appends wait only while two pointers
    ///   are swapped.
    func drain<Output>(
        _ transform: (consuming Element) -> Output
    ) -> (elements: [Output], dropped: Int, generation: Int) {
        spare.withLock { spare in
            let (taken, dropped, generation) = filling.withLock { filling in
                let taken = filling.ring
                let generation = filling.generation
                filling.generation += 1
                filling.ring = spare
                // Read under the lock: every append that found no room before this drain has
                // counted its drop by the time it lets the lock go or skipped it.
                let dropped = drops.load(ordering: .relaxed)
                isFull.store(false, ordering: .relaxed)
                return (taken, dropped, generation)
            }
            // Every taken element is moved out below, so the ring is then empty and free for
            // reuse.
            spare = taken
            // An empty drain returns a plain empty array: reserving no capacity would write the
            // count into the runtime's one shared empty-array storage, which two drains doing so
            // at once make a data race that ThreadSanitizer reports.
            guard !spare.isEmpty else { return ([], dropped, generation) }
            var elements: [Output] = []
            elements.reserveCapacity(spare.count)
            spare.drain { element, _ in elements.append(transform(element)) }
            return (elements, dropped, generation)
        }
    }
}
