import EventBus

struct UserLoggedInEvent: Event, Encodable, Equatable {
    let userId: String
    let userName: String
}

struct DataLoadedEvent: Event, Encodable, Equatable {
    let data: [String]
}

struct Tick: Event, Encodable, Equatable {
    let value: Int
}

/// An observer object for subscriptions that end with it.
final class Screen: Sendable {}

/// A clock tests move by hand.
final class ManualClock: Sendable {
    private let seconds = LockedValue(0.0)

    var now: Double { seconds.current }

    func advance(by delta: Double) {
        seconds.withLock { $0 += delta }
    }
}
