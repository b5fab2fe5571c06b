/// What a simulated app has done so far.
public struct SimulationStatistics: Sendable, Equatable {
    /// Simulated seconds that have passed.
    public var elapsed: Double = 0
    /// Events published: traffic plus one `ScreenViewedEvent` per screen opened.
    public var eventsPublished = 0
    /// Screens opened.
    public var screensOpened = 0
    /// Screens closed, by navigation or by ``SimulatedApp/destroyScreens(count:)``.
    public var screensClosed = 0
    /// Screens closed that leaked (their handlers hold them).
    public var screensLeaked = 0
    /// Leaked screens the app unsubscribed to stay under ``SimulatedApp/maximumLeakedScreens``.
    public var leaksBroken = 0
    /// Leaked screens alive now.
    public var leakedScreensAlive = 0
    /// Screens open now, per kind.
    public var openScreensByKind: [ScreenKind: Int] = [:]
    /// Users signed in now.
    public var usersLoggedIn = 0
    /// Handler calls made in the app's screens and services.
    public var handlerCalls = 0

    /// Screens open now.
    public var openScreens: Int { openScreensByKind.values.reduce(0, +) }

    /// Creates empty statistics.
    public init() {}
}
