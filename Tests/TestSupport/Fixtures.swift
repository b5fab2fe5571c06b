import EventBus

/// The article's login event.
package struct UserLoggedInEvent: Event, Encodable, Equatable {
    package let userId: String
    package let userName: String

    /// Creates the event.
    package init(userId: String, userName: String) {
        self.userId = userId
        self.userName = userName
    }
}

/// The article's data event.
package struct DataLoadedEvent: Event, Encodable, Equatable {
    package let data: [String]

    /// Creates the event.
    package init(data: [String]) { self.data = data }
}

/// A sign-in as apps publish it: a secret beside what a person wants to see.
package struct SignedIn: Event, Encodable {
    package let user: String
    package let password: String

    /// Creates the event.
    package init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

/// A numbered event, for checking order and sums.
package struct Tick: Event, Encodable, Equatable {
    package let value: Int

    /// Creates the event.
    package init(value: Int) { self.value = value }
}

/// An `Encodable` event, so its payload travels as a JSON object.
package struct Ping: Event, Encodable {
    package let number: Int
    package let note: String

    /// Creates the event.
    package init(number: Int, note: String) {
        self.number = number
        self.note = note
    }
}

/// An event that is not `Encodable`, so its payload travels as its description.
package struct Opaque: Event, CustomStringConvertible {
    package let number: Int

    /// Creates the event.
    package init(number: Int) { self.number = number }

    /// "Opaque #" and the number.
    package var description: String { "Opaque #\(number)" }
}

/// An observer object for subscriptions that end with it.
package final class Screen: Sendable {
    /// A name for messages.
    package let name: String

    /// Creates a screen.
    package init(_ name: String = "screen") { self.name = name }
}
