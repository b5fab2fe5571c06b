import EventBus

/// A user logged in; what the tests forward and receive most.
struct UserLoggedInEvent: Event, Codable, Equatable {
    var userId: String
    var userName: String
}

/// Sent back in reaction to a ``UserLoggedInEvent``.
struct WelcomeSentEvent: Event, Codable, Equatable {
    var userId: String
}

/// A generic event, whose type name (`Wrapper<Int>`) holds characters a subject may not.
struct Wrapper<Value: Codable & Sendable & Equatable>: Event, Codable, Equatable {
    var value: Value
}

/// An event that is not `Encodable`, which the bridge does not forward.
struct LocalOnlyEvent: Event {
    var note: String
}
