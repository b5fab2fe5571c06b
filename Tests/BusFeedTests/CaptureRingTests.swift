import EventBus
import Testing

@testable import BusFeed

@Suite("CaptureRing")
struct CaptureRingTests {
    @Test func keepsTheNewestInOrderAndCountsDrops() {
        let ring = CaptureRing<Int>(capacity: 3)
        for value in 1...5 { ring.append(value) }
        #expect(ring.droppedCount == 2)

        let taken = ring.drain { $0 }
        #expect(taken.elements == [3, 4, 5])
        #expect(taken.dropped == 2)

        // After a drain the ring is empty and has room again; drops are a running total.
        ring.append(6)
        let rest = ring.drain { $0 }
        #expect(rest.elements == [6])
        #expect(rest.dropped == 2)
        #expect(ring.drain { $0 }.elements.isEmpty)
    }

    @Test func matchesASimpleModelOverManyDrains() {
        // Given appends of every size around the capacity, wrapping at every offset
        let capacity = 5
        let ring = CaptureRing<Int>(capacity: capacity)
        var model: [Int] = []
        var modelDrops = 0
        var next = 0
        for round in 0..<60 {
            for _ in 0..<(round * 7 % 13) {
                ring.append(next)
                model.append(next)
                if model.count > capacity {
                    model.removeFirst()
                    modelDrops += 1
                }
                next += 1
            }
            // Then each drain hands over what the model holds, transformed, oldest first
            let taken = ring.drain { $0 * 10 }
            #expect(taken.elements == model.map { $0 * 10 })
            #expect(taken.dropped == modelDrops)
            model = []
        }
    }

    @Test func releasesDroppedDrainedAndLeftoverElements() {
        let released = LockedValue(0)
        do {
            let ring = CaptureRing<Tracked>(capacity: 4)
            for _ in 0..<10 { ring.append(Tracked(released: released)) }
            // Six were dropped to make room.
            #expect(released.current == 6)

            do {
                let taken = ring.drain { $0 }
                #expect(taken.elements.count == 4)
                withExtendedLifetime(taken.elements) { #expect(released.current == 6) }
            }
            #expect(released.current == 10)

            // Two left in the ring go with it.
            ring.append(Tracked(released: released))
            ring.append(Tracked(released: released))
        }
        #expect(released.current == 12)
    }

    @Test func destroysADroppedElementOutsideTheLock() {
        // Given an element whose deinit appends to the same ring, as an event whose payload
        // publishes when it is released would
        let ring = CaptureRing<Reentrant>(capacity: 1)
        ring.append(Reentrant(ring: ring, depth: 1))

        // When a second append drops it, its deinit appends again without deadlocking
        ring.append(Reentrant(ring: ring, depth: 0))

        // Then the element appended from the deinit is the newest, and both drops are counted
        let taken = ring.drain { $0.depth }
        #expect(taken.elements == [-1])
        #expect(taken.dropped == 2)
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

/// Appends a marker to its ring when it is released, if its depth is positive.
private final class Reentrant: Sendable {
    let ring: CaptureRing<Reentrant>
    let depth: Int

    init(ring: CaptureRing<Reentrant>, depth: Int) {
        self.ring = ring
        self.depth = depth
    }

    deinit {
        if depth > 0 { ring.append(Reentrant(ring: ring, depth: -1)) }
    }
}
