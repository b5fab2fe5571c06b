import EventBus

struct UserLoggedInEvent: Event, Equatable {
    let userId: String
    let userName: String
}

struct DataLoadedEvent: Event, Equatable {
    let data: [String]
}

struct Tick: Event, Equatable {
    let value: Int
}

/// An observer object for subscriptions that end with it.
final class Screen: Sendable {
    let name: String
    init(_ name: String = "screen") { self.name = name }
}
