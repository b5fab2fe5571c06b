import EventBus
import Foundation
import Synchronization
import Testing

/// The lock box that guards the bus's state, and that other modules may use for theirs.
@Suite("LockedValue")
struct LockedValueTests {
    @Test func threadsChangingTheValueAtOnceLoseNoUpdate() {
        // Given a box shared by four threads
        let box = LockedValue([Int: Int]())

        // When each adds to its own key and to a shared one
        onThreads(4) { thread in
            for _ in 0..<10_000 {
                box.withLock { counts in
                    counts[thread, default: 0] += 1
                    counts[-1, default: 0] += 1
                }
            }
        }

        // Then every update is there
        let counts = box.withLock { $0 }
        #expect(counts[-1] == 40_000)
        #expect((0..<4).allSatisfy { counts[$0] == 10_000 })
    }

    @Test func copiesShareTheValueAndReturnWhatTheBodyReturns() {
        let box = LockedValue(1)
        let copy = box
        let old = copy.withLock { value -> Int in
            defer { value = 2 }
            return value
        }
        #expect(old == 1)
        #expect(box.withLock { $0 } == 2)
    }

    @Test func releasingTheBoxReleasesTheValue() {
        weak var tracked: AnyObject?
        do {
            let value = NSObject()
            tracked = value
            let box = LockedValue([value])
            #expect(box.withLock { $0.count } == 1)
        }
        #expect(tracked == nil)
    }
}
