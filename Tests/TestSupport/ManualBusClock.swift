import EventBus

/// A clock a test moves by hand, for a bus whose deadlines it checks: the test says how much
/// time passed instead of sleeping for it.
///
/// One that follows real time too runs on by itself, for tests whose deadlines should also
/// fall due while other work goes on, and jumps ahead when moved.
package final class ManualBusClock: Sendable {
    private let start = ContinuousClock.now
    private let elapsed = LockedValue(Duration.zero)
    private let followsRealTime: Bool

    /// A clock that stands still until moved, or, with `followingRealTime`, also runs.
    package init(followingRealTime: Bool = false) {
        followsRealTime = followingRealTime
    }

    /// Moves the clock `duration` on.
    package func advance(by duration: Duration) {
        elapsed.withLock { $0 += duration }
    }

    /// The clock as a bus reads it.
    package var busClock: BusClock {
        BusClock { [self] in (followsRealTime ? ContinuousClock.now : start) + elapsed.current }
    }

    /// A bus that reads this clock.
    package func makeBus() -> EventBus {
        EventBus(name: "EventBus", clock: busClock)
    }
}
