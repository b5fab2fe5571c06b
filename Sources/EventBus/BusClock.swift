/// Where a bus reads the time: the continuous clock, or, in the package's tests, one they move
/// by hand, so that a test of leak detection waits on no real time.
///
/// The bus reads it for an observer's first subscription (its age), for the deadline of
/// ``EventBus/expectDeallocation(of:within:reason:)``, for the checks of those deadlines (only
/// while something is watched), and for how long a dead observer's subscriptions outlived it.
/// Publishing never reads it.
package struct BusClock: Sendable {
    /// The time now.
    package let now: @Sendable () -> ContinuousClock.Instant

    /// A clock that reads `now`.
    package init(now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.now = now
    }

    /// The continuous clock, which every bus outside the tests reads.
    package static let continuous = BusClock { ContinuousClock.now }
}
