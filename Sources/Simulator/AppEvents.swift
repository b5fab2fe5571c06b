package import EventBus

/// Something that happened to a user's session; screens that follow sign-ins subscribe to the
/// protocol, so they receive its kinds added later too.
package protocol AuthEvent: Event {
    /// The user's stable identifier.
    var userId: String { get }
}

/// A user signed in.
package struct UserLoggedInEvent: AuthEvent, Encodable, Equatable {
    /// The user's stable identifier.
    package let userId: String
    /// The name shown to people.
    package let userName: String
    /// The session's bearer token: a secret, so monitors show it as `"<redacted>"`.
    package let token: String

    /// Creates the event.
    package init(userId: String, userName: String, token: String = "") {
        self.userId = userId
        self.userName = userName
        self.token = token
    }
}

/// A user signed out on purpose.
package struct UserLoggedOutEvent: AuthEvent, Encodable, Equatable {
    /// The user's stable identifier.
    package let userId: String

    /// Creates the event.
    package init(userId: String) {
        self.userId = userId
    }
}

/// A user's session ran out and they were signed out without asking.
package struct SessionExpiredEvent: AuthEvent, Encodable, Equatable {
    /// The user's stable identifier.
    package let userId: String
    /// How long the session had lasted, in minutes.
    package let minutesActive: Int

    /// Creates the event.
    package init(userId: String, minutesActive: Int) {
        self.userId = userId
        self.minutesActive = minutesActive
    }
}

/// Content arrived from the back end.
package struct DataLoadedEvent: Event, Encodable, Equatable {
    /// The names of the items loaded.
    package let data: [String]

    /// Creates the event.
    package init(data: [String]) {
        self.data = data
    }
}

/// Loading content failed.
package struct DataLoadFailedEvent: Event, Encodable, Equatable {
    /// What was being loaded, such as `inbox`.
    package let resource: String
    /// Why it failed, as the app would log it.
    package let error: String

    /// Creates the event.
    package init(resource: String, error: String) {
        self.resource = resource
        self.error = error
    }
}

/// A screen appeared.
package struct ScreenViewedEvent: Event, Encodable, Equatable {
    /// The screen's class name, such as `InboxViewController`.
    package let screen: String

    /// Creates the event.
    package init(screen: String) {
        self.screen = screen
    }
}

/// The device went online or offline.
package struct NetworkStatusChangedEvent: Event, Encodable, Equatable {
    /// Whether the network can be reached now.
    package let isOnline: Bool

    /// Creates the event.
    package init(isOnline: Bool) {
        self.isOnline = isOnline
    }
}

/// The app asks for a fresh session token; in the refresh loop, the failure handler asks again.
package struct TokenRefreshRequestedEvent: Event, Encodable, Equatable {
    /// Which attempt this is.
    package let attempt: Int

    /// Creates the event.
    package init(attempt: Int) {
        self.attempt = attempt
    }
}

/// A token refresh failed; in the refresh loop, its handler requests another at once.
package struct TokenRefreshFailedEvent: Event, Encodable, Equatable {
    /// The attempt that failed.
    package let attempt: Int

    /// Creates the event.
    package init(attempt: Int) {
        self.attempt = attempt
    }
}
