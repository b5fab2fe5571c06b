import EventBus
import TestSupport
import Testing

@testable import BusMonitor

@Suite("CaptureBuffer")
struct CaptureBufferTests {
    @Test func keepsWhatFitsInOrderAndCountsDrops() {
        let buffer = CaptureBuffer<Int>(capacity: 3)
        for value in 1...5 { buffer.append(value) }
        #expect(buffer.droppedCount == 2)

        let taken = buffer.drain { $0 }
        #expect(taken.elements == [1, 2, 3])
        #expect(taken.dropped == 2)

        // After a drain the buffer is empty and has room again; drops are a running total.
        buffer.append(6)
        let rest = buffer.drain { $0 }
        #expect(rest.elements == [6])
        #expect(rest.dropped == 2)
        #expect(buffer.drain { $0 }.elements.isEmpty)
    }

    @Test func matchesASimpleModelOverManyDrains() {
        // Given appends of every size around the capacity
        let capacity = 5
        let buffer = CaptureBuffer<Int>(capacity: capacity)
        var model: [Int] = []
        var modelDrops = 0
        var next = 0
        for round in 0..<60 {
            for _ in 0..<(round * 7 % 13) {
                buffer.append(next)
                if model.count < capacity {
                    model.append(next)
                } else {
                    modelDrops += 1
                }
                next += 1
            }
            // Then each drain hands over what the model holds, transformed, oldest first
            let taken = buffer.drain { $0 * 10 }
            #expect(taken.elements == model.map { $0 * 10 })
            #expect(taken.dropped == modelDrops)
            model = []
        }
    }

    @Test func releasesDroppedDrainedAndLeftoverElements() {
        let released = LockedValue(0)
        do {
            let buffer = CaptureBuffer<Tracked>(capacity: 4)
            for _ in 0..<10 { buffer.append(Tracked(released: released)) }
            // Six found it full and were dropped.
            #expect(released.current == 6)

            do {
                let taken = buffer.drain { $0 }
                #expect(taken.elements.count == 4)
                withExtendedLifetime(taken.elements) { #expect(released.current == 6) }
            }
            #expect(released.current == 10)

            // Two left in the buffer go with it.
            buffer.append(Tracked(released: released))
            buffer.append(Tracked(released: released))
        }
        #expect(released.current == 12)
    }

    @Test func destroysADroppedElementOutsideTheLock() {
        // Given a full buffer, and an element whose deinit appends to the same buffer, as an
        // event whose payload publishes when it is released would
        let buffer = CaptureBuffer<Reentrant>(capacity: 1)
        buffer.append(Reentrant(buffer: buffer, depth: 0))

        // When an append drops that element, its deinit appends again without deadlocking
        buffer.append(Reentrant(buffer: buffer, depth: 1))

        // Then the buffer still holds the first element, and both later ones count as drops
        let taken = buffer.drain { $0.depth }
        #expect(taken.elements == [0])
        #expect(taken.dropped == 2)

        // And once drained, the buffer has room for an element whose deinit appends, too
        buffer.append(Reentrant(buffer: buffer, depth: 1))
        #expect(buffer.drain { $0.depth }.elements == [1])
        // Draining what that deinit appended leaves no element holding the buffer.
        #expect(buffer.drain { $0.depth }.elements == [-1])
    }
}

/// Counts its deinitializations.
private final class Tracked: Sendable {
    let released: LockedValue<Int>

    init(released: LockedValue<Int>) {
        self.released = released
    }

    deinit {
        released.withLock { $0 += 1 }
    }
}

/// Appends a marker to its buffer when it is released, if its depth is positive.
private final class Reentrant: Sendable {
    let buffer: CaptureBuffer<Reentrant>
    let depth: Int

    init(buffer: CaptureBuffer<Reentrant>, depth: Int) {
        self.buffer = buffer
        self.depth = depth
    }

    deinit {
        if depth > 0 { buffer.append(Reentrant(buffer: buffer, depth: -1)) }
    }
}
