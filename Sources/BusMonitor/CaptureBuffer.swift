import BusWire
import EventBus
import Synchronization

/// A thread-safe buffer that keeps the first `capacity` elements appended after each drain,
/// counts the ones it had no room for, and hands its contents over in the order they came.
///
/// Publishers append on their own threads for every event, so an append does as little as it
/// can: no allocation (two buffers of `capacity` slots are allocated once, and a drain swaps them
/// instead of growing an array again) and no dynamic exclusivity check.
///
/// A full buffer drops what comes next rather than its oldest element. Under a flood that keeps
/// the buffer full, an append then costs two atomic operations and builds nothing, instead of
/// writing a new element over the oldest one each time, which cycled through the whole buffer
/// (hundreds of kilobytes) for every event and so missed the processor's caches on every append.
/// Either way a monitor sees one stretch of the flood per drain and counts the rest, and exact
/// totals come from the bus's counters, not from the buffer.
final class CaptureBuffer<Element>: @unchecked Sendable {
    /// Elements the buffer holds between two drains; later ones are dropped.
    let capacity: Int

    /// Guards the fields marked `@exclusivity(unchecked)`; held for a few stores per append.
    private let lock = Lock()
    /// Held by a drain for its whole length, so that drains take turns with ``spare``.
    private let drainLock = Lock()
    /// Set by the append that fills the buffer and cleared by a drain, so that appends to a full
    /// buffer skip the lock. A stale `true` read just after a drain drops an element that would
    /// have fit, which is counted like any other drop.
    private let isFull = Atomic<Bool>(false)
    /// Elements dropped since the buffer was made, counted outside the lock.
    private let drops = Atomic<Int>(0)

    // `@exclusivity(unchecked)`: `lock` already makes every access exclusive, and the runtime's
    // dynamic check (a thread-local lookup per access) cost more than the rest of an append.
    /// The slots appends write to; the first `count` hold elements.
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Element>
    /// How many slots hold an element.
    @exclusivity(unchecked) private var count = 0
    /// Time stamps for ``append(stamping:)``.
    @exclusivity(unchecked) private var stamps = StampClock()

    /// Uninitialized slots that a drain swaps with ``slots``; guarded by `drainLock`.
    @exclusivity(unchecked) private var spare: UnsafeMutablePointer<Element>

    /// Creates an empty buffer.
    ///
    /// - Parameter capacity: Elements held between two drains; at least 1.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        // Untouched pages of a large allocation cost no memory until they are written.
        slots = .allocate(capacity: self.capacity)
        spare = .allocate(capacity: self.capacity)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
        spare.deallocate()
    }

    /// Appends `element`, or drops it when the buffer is full.
    @inline(__always)
    func append(_ element: consuming Element) {
        // A dropped element is destroyed on return, after the lock was let go: its `deinit`
        // may append to this buffer again.
        guard lockIfRoom() else { return }
        store(element)
    }

    /// Appends the element `make` builds from a time stamp taken under the lock (see
    /// ``StampClock``: cheaper than reading the precise clock for every event), or, when the
    /// buffer is full, counts a drop without calling `make`.
    @inline(__always)
    func append(stamping make: (Double) -> Element) {
        guard lockIfRoom() else { return }
        store(make(stamps.stamp()))
    }

    /// Takes the lock and returns `true` when the buffer has room; otherwise counts a drop and
    /// returns `false`, not holding the lock.
    @inline(__always)
    private func lockIfRoom() -> Bool {
        if !isFull.load(ordering: .relaxed) {
            lock.lock()
            if count < capacity { return true }
            lock.unlock()
        }
        drops.wrappingAdd(1, ordering: .relaxed)
        return false
    }

    /// Stores `element` in the next slot and releases the lock, which the caller holds and
    /// which leaves room for it.
    @inline(__always)
    private func store(_ element: consuming Element) {
        (slots + count).initialize(to: element)
        count += 1
        if count == capacity { isFull.store(true, ordering: .relaxed) }
        lock.unlock()
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
    /// - Returns: The transformed elements, oldest first, and the drops since the buffer was
    ///   made.
    /// - Complexity: O(*n*) in the elements handed over; appends wait only while two pointers
    ///   are swapped.
    func drain<Output>(_ transform: (consuming Element) -> Output) -> (elements: [Output], dropped: Int) {
        drainLock.lock()
        defer { drainLock.unlock() }
        lock.lock()
        let taken = slots
        let takenCount = count
        slots = spare
        count = 0
        // Read under the lock: every append that found no room before this drain has counted
        // its drop by the time it lets the lock go or skipped it.
        let dropped = drops.load(ordering: .relaxed)
        isFull.store(false, ordering: .relaxed)
        lock.unlock()

        // Every taken slot is moved out below, so the buffer is then uninitialized and free for
        // reuse.
        spare = taken
        // An empty drain returns a plain empty array: with a capacity of 0, the initializer below
        // writes the count into the runtime's one shared empty-array storage, which two drains
        // doing so at once make a data race that ThreadSanitizer reports.
        guard takenCount > 0 else { return ([], dropped) }
        let elements = [Output](unsafeUninitializedCapacity: takenCount) { output, initialized in
            for index in 0..<takenCount {
                (output.baseAddress! + index).initialize(to: transform((taken + index).move()))
            }
            initialized = takenCount
        }
        return (elements, dropped)
    }
}
