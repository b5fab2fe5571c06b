public import EventBus

/// Something that happened to a user's session; screens that follow sign-ins subscribe to the
/// protocol, so they receive its kinds added later too.
public protocol AuthEvent: Event {
    /// The user's stable identifier.
    var userId: String { get }
}

/// A user signed in.
public struct UserLoggedInEvent: AuthEvent, Encodable, Equatable {
    /// The user's stable identifier.
    public let userId: String
    /// The name shown to people.
    public let userName: String
    /// The session's bearer token: a secret, so monitors show it as `"<redacted>"`.
    public let token: String

    /// Creates the event.
    public init(userId: String, userName: String, token: String = "") {
        self.userId = userId
        self.userName = userName
        self.token = token
    }
}

/// A user signed out on purpose.
public struct UserLoggedOutEvent: AuthEvent, Encodable, Equatable {
    /// The user's stable identifier.
    public let userId: String

    /// Creates the event.
    public init(userId: String) {
        self.userId = userId
    }
}

/// A user's session ran out and they were signed out without asking.
public struct SessionExpiredEvent: AuthEvent, Encodable, Equatable {
    /// The user's stable identifier.
    public let userId: String
    /// How long the session had lasted, in minutes.
    public let minutesActive: Int

    /// Creates the event.
    public init(userId: String, minutesActive: Int) {
        self.userId = userId
        self.minutesActive = minutesActive
    }
}

/// Content arrived from the back end.
public struct DataLoadedEvent: Event, Encodable, Equatable {
    /// The names of the items loaded.
    public let data: [String]

    /// Creates the event.
    public init(data: [String]) {
        self.data = data
    }
}

/// Loading content failed.
public struct DataLoadFailedEvent: Event, Encodable, Equatable {
    /// What was being loaded, such as `inbox`.
    public let resource: String
    /// Why it failed, as the app would log it.
    public let error: String

    /// Creates the event.
    public init(resource: String, error: String) {
        self.resource = resource
        self.error = error
    }
}

/// A screen appeared.
public struct ScreenViewedEvent: Event, Encodable, Equatable {
    /// The screen's class name, such as `InboxViewController`.
    public let screen: String

    /// Creates the event.
    public init(screen: String) {
        self.screen = screen
    }
}

/// The device went online or offline.
public struct NetworkStatusChangedEvent: Event, Encodable, Equatable {
    /// Whether the network can be reached now.
    public let isOnline: Bool

    /// Creates the event.
    public init(isOnline: Bool) {
        self.isOnline = isOnline
    }
}

/// The app asks for a fresh session token; in the refresh loop, the failure handler asks again.
public struct TokenRefreshRequestedEvent: Event, Encodable, Equatable {
    /// Which attempt this is.
    public let attempt: Int

    /// Creates the event.
    public init(attempt: Int) {
        self.attempt = attempt
    }
}

/// A token refresh failed; in the refresh loop, its handler requests another at once.
public struct TokenRefreshFailedEvent: Event, Encodable, Equatable {
    /// The attempt that failed.
    public let attempt: Int

    /// Creates the event.
    public init(attempt: Int) {
        self.attempt = attempt
    }
}
