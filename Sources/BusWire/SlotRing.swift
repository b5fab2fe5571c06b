/// A fixed number of slots for elements, allocated once, that hands its elements over in the
/// order they came: the buffer under ``RecordInbox``.
///
/// A ring does no locking and no counting of drops: its owner keeps it behind a lock, decides
/// what a full ring does (keep the first elements and refuse what comes, or write over the
/// oldest), and swaps two rings so that appends go on while one is drained. A ring cannot be
/// copied: it owns its slots, and its `deinit` destroys what they hold and frees them, so the
/// compiler, not a convention, makes sure that happens exactly once.
///
/// Invariants: slots `head ..< head + count` (modulo `capacity`) hold initialized elements and
/// no others do; `count <= capacity`.
@usableFromInline
package struct SlotRing<Element>: ~Copyable {
    /// The slots, `capacity` of them.
    @usableFromInline let slots: UnsafeMutablePointer<Element>
    /// Elements the ring holds at most.
    @usableFromInline package let capacity: Int
    /// The slot of the oldest element.
    @usableFromInline var head = 0
    /// Elements held; written only by the ring's own methods.
    @usableFromInline var held = 0

    /// Elements held.
    @usableFromInline package var count: Int { held }

    /// A ring of `capacity` empty slots (at least 1). Untouched pages of a large allocation cost
    /// no memory until they are written.
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
        slots = .allocate(capacity: self.capacity)
    }

    deinit {
        for offset in 0..<held { slot(offset).deinitialize(count: 1) }
        slots.deallocate()
    }

    /// Whether every slot holds an element.
    @inlinable @inline(__always)
    package var isFull: Bool { held == capacity }

    /// Whether no slot holds an element.
    package var isEmpty: Bool { count == 0 }

    /// The slot `offset` places after the oldest.
    @usableFromInline @inline(__always)
    func slot(_ offset: Int) -> UnsafeMutablePointer<Element> {
        var index = head + offset
        if index >= capacity { index -= capacity }
        return slots + index
    }

    /// Appends `element`; the ring must not be full.
    @inlinable @inline(__always)
    package mutating func append(_ element: consuming Element) {
        precondition(held < capacity, "append to a full SlotRing")
        slot(held).initialize(to: element)
        held += 1
    }

    /// Appends `element`, writing over the oldest one when the ring is full.
    ///
    /// - Returns: The element written over, for the caller to release where it chooses (its
    ///   `deinit` may run code that must not run under the caller's lock), or `nil`.
    @inlinable @inline(__always)
    package mutating func appendOverwritingOldest(_ element: consuming Element) -> Element? {
        guard isFull else {
            append(element)
            return nil
        }
        let oldest = (slots + head).move()
        (slots + head).initialize(to: element)
        head += 1
        if head == capacity { head = 0 }
        return oldest
    }

    /// Moves the oldest element out, or returns `nil` when the ring is empty.
    package mutating func popFirst() -> Element? {
        guard held > 0 else { return nil }
        let oldest = (slots + head).move()
        head += 1
        if head == capacity { head = 0 }
        held -= 1
        if held == 0 { head = 0 }
        return oldest
    }
}
