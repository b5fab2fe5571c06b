import EventBus
import TestSupport

/// A clock tests move by hand.
final class ManualClock: Sendable {
    private let seconds = LockedValue(0.0)

    var now: Double { seconds.current }

    func advance(by delta: Double) {
        seconds.withLock { $0 += delta }
    }
}
