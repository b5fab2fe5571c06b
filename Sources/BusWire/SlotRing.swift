/// A fixed number of slots for elements, allocated once, that hands its elements over in the
/// order they came: the one buffer under the capture buffer, the tap's inbox and the NATS
/// bridge's outbox.
///
/// A ring does no locking and no counting of drops: its owner keeps it behind a lock, decides
/// what a full ring does (keep the first elements and drop what comes, or write over the
/// oldest), and swaps two rings so that appends go on while one is drained. Copies of a ring
/// share its slots; exactly one copy is deallocated, once.
///
/// Invariants: slots `head ..< head + count` (modulo `capacity`) hold initialized elements and
/// no others do; `count <= capacity`.
package struct SlotRing<Element> {
    /// The slots, `capacity` of them.
    private let slots: UnsafeMutablePointer<Element>
    /// Elements the ring holds at most.
    package let capacity: Int
    /// The slot of the oldest element.
    private var head = 0
    /// Elements held.
    package private(set) var count = 0
    /// The sequence number of the oldest element, for owners that number what they hand over.
    package var firstSequence = 0

    /// A ring of `capacity` empty slots (at least 1). Untouched pages of a large allocation cost
    /// no memory until they are written.
    package static func allocate(capacity: Int) -> SlotRing {
        SlotRing(slots: .allocate(capacity: max(1, capacity)), capacity: max(1, capacity))
    }

    private init(slots: UnsafeMutablePointer<Element>, capacity: Int) {
        self.slots = slots
        self.capacity = capacity
    }

    /// Whether every slot holds an element.
    @inline(__always)
    package var isFull: Bool { count == capacity }

    /// Whether no slot holds an element.
    package var isEmpty: Bool { count == 0 }

    /// The slot `offset` places after the oldest.
    @inline(__always)
    private func slot(_ offset: Int) -> UnsafeMutablePointer<Element> {
        var index = head + offset
        if index >= capacity { index -= capacity }
        return slots + index
    }

    /// Appends `element`; the ring must not be full.
    @inline(__always)
    package mutating func append(_ element: consuming Element) {
        precondition(count < capacity, "append to a full SlotRing")
        slot(count).initialize(to: element)
        count += 1
    }

    /// Appends `element`, writing over the oldest one when the ring is full.
    ///
    /// - Returns: Whether an element was written over.
    @inline(__always)
    package mutating func appendOverwritingOldest(_ element: consuming Element) -> Bool {
        guard isFull else {
            append(element)
            return false
        }
        slots[head] = element
        head += 1
        if head == capacity { head = 0 }
        firstSequence += 1
        return true
    }

    /// Moves every element out to `body`, oldest first, with its sequence number; the ring is
    /// then empty, and ``firstSequence`` numbers what comes next.
    package mutating func drain(_ body: (consuming Element, Int) -> Void) {
        for offset in 0..<count {
            body(slot(offset).move(), firstSequence + offset)
        }
        firstSequence += count
        head = 0
        count = 0
    }

    /// Destroys the elements held and frees the slots; no copy of the ring may be used after.
    package mutating func deallocate() {
        for offset in 0..<count { slot(offset).deinitialize(count: 1) }
        count = 0
        slots.deallocate()
    }
}
