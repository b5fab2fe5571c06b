/// What a simulated app has done so far.
package struct SimulationStatistics: Sendable, Equatable {
    /// Simulated seconds that have passed.
    package var elapsed: Double = 0
    /// Events published: traffic plus one `ScreenViewedEvent` per screen opened.
    package var eventsPublished = 0
    /// Screens opened.
    package var screensOpened = 0
    /// Screens closed, by navigation or by ``SimulatedApp/destroyScreens(count:)``.
    package var screensClosed = 0
    /// Screens closed that leaked (their handlers hold them).
    package var screensLeaked = 0
    /// Leaked screens the app unsubscribed to stay under ``SimulatedApp/maximumLeakedScreens``.
    package var leaksBroken = 0
    /// Leaked screens alive now.
    package var leakedScreensAlive = 0
    /// Screens open now, per kind.
    package var openScreensByKind: [ScreenKind: Int] = [:]
    /// Users signed in now.
    package var usersLoggedIn = 0
    /// Handler calls made in the app's screens and services.
    package var handlerCalls = 0

    /// Screens open now.
    package var openScreens: Int { openScreensByKind.values.reduce(0, +) }

    /// Creates empty statistics.
    package init() {}
}
