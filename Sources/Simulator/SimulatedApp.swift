package import EventBus

/// A simulated app on an ``EventBus``: services publish login, logout and data-load traffic,
/// and screens come and go as a person navigates, each kind handling its subscriptions its own
/// way, so every lifecycle path of the bus shows (subscribed, duplicate, unsubscribed,
/// cancelled, reclaimed).
///
/// Drive it deterministically, as tests do:
///
/// ```swift
/// let app = SimulatedApp(bus: bus, seed: 7)
/// app.advance(by: 2.5)   // publishes the 2.5 s of traffic due at the configured rate
/// ```
///
/// or let it run on its own thread, as a live demo does:
///
/// ```swift
/// app.start()
/// app.rate = 5_000       // from any thread
/// app.stop()
/// ```
///
/// The same seed and the same calls publish the same events and open and close the same
/// screens. Every method may be called from any thread; the app decides what happens under its
/// lock and publishes after releasing it.
///
/// Its services also show what goes wrong in handlers: a sign-in's handler loads the session
/// (a cascade), the photo cache's handler throws now and then, and the home screen, a
/// `@MainActor` view controller, renders slowly now and then; ``startRefreshLoop()`` sets off a
/// loop that the bus stops. The home screen's handler runs on the main actor, so the process
/// must run it (a run loop, `dispatchMain()`, or an async `main`), as an app does; busmon and
/// simapp run the main run loop between frames.
package final class SimulatedApp: Sendable {
    /// Events per second when none is given: fast enough to look alive, slow enough to read.
    package static let defaultRate = 200.0
    /// Navigations per second when none is given.
    package static let defaultChurn = 3.0
    /// Screens the app keeps open, give or take a quarter, when no number is given.
    package static let defaultTargetScreens = 20
    /// Screens ``destroyScreens(count:)`` closes when no number is given.
    package static let defaultDestroyCount = 10
    /// How long a closed screen may take to be deallocated before the bus reports it, when no
    /// time is given.
    package static let defaultClosedScreenLifetime = Duration.seconds(5)
    /// Leaked screens kept alive; past this, the app unsubscribes the oldest one, which breaks
    /// its retain cycle, so a long run does not grow without limit. It does so once the leak has
    /// outlived twice its closed screen lifetime, so that the bus has reported it first.
    package static let maximumLeakedScreens = 8
    /// The highest rate accepted, in events per second.
    package static let maximumRate = 10_000_000.0
    /// The highest churn accepted, in navigations per second.
    package static let maximumChurn = 10_000.0
    /// The rates ``increaseRate()`` and ``decreaseRate()`` step through.
    package static let rateSteps: [Double] = [
        1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000,
        200_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000,
    ]

    /// Simulated time handled in one piece: finer pieces interleave navigation and traffic.
    static let slice = 0.01
    /// Actions decided per acquisition of the lock, so that controls never wait long.
    static let actionsPerBatch = 256

    /// The bus the app publishes on.
    package let bus: EventBus
    /// The seed that fixed this run.
    package let seed: UInt64
    /// How long a closed screen may take to be deallocated before the bus reports it as a leak
    /// suspect. Real time, unlike the app's simulated time: the bus checks it by its own clock.
    package let closedScreenLifetime: Duration

    private let core: LockedValue<SimulationCore>
    private let counter = HandlerCounter()
    private let services = AppServices()
    let runner = LockedValue<Runner?>(nil)

    /// Creates the app; it opens its first screens the first time it advances or starts.
    ///
    /// - Parameters:
    ///   - bus: The bus to publish on.
    ///   - seed: Fixes every random choice; equal seeds give equal runs.
    ///   - rate: Traffic events per second, `0...maximumRate`.
    ///   - churn: Navigations (a screen opened, closed, or both) per second, `0...maximumChurn`.
    ///   - targetScreens: About how many screens stay open.
    ///   - closedScreenLifetime: How long a closed screen may live on before it is a leak suspect.
    package init(
        bus: EventBus, seed: UInt64 = 1, rate: Double = defaultRate, churn: Double = defaultChurn,
        targetScreens: Int = defaultTargetScreens,
        closedScreenLifetime: Duration = defaultClosedScreenLifetime
    ) {
        self.bus = bus
        self.seed = seed
        self.closedScreenLifetime = closedScreenLifetime
        core = LockedValue(
            SimulationCore(
                bus: bus, counter: counter, seed: seed, rate: Self.clamp(rate, to: Self.maximumRate),
                churn: Self.clamp(churn, to: Self.maximumChurn), targetScreens: max(0, targetScreens),
                leakKeptFor: 2 * Double(closedScreenLifetime / .milliseconds(1)) / 1000))
    }

    deinit {
        // Leaking screens hold themselves through the bus; without this they would outlive the
        // app, and the bus with them.
        let leaking = core.withLock { $0.leakingScreens }
        for screen in leaking { bus.unsubscribe(observer: screen) }
    }

    // MARK: - Controls

    /// Traffic events per second; settable from any thread, clamped to `0...maximumRate`.
    package var rate: Double {
        get { core.withLock { $0.rate } }
        set { core.withLock { $0.rate = Self.clamp(newValue, to: Self.maximumRate) } }
    }

    /// Navigations per second; settable from any thread, clamped to `0...maximumChurn`.
    package var churn: Double {
        get { core.withLock { $0.churn } }
        set { core.withLock { $0.churn = Self.clamp(newValue, to: Self.maximumChurn) } }
    }

    /// Moves the rate to the next of ``rateSteps`` above it.
    ///
    /// - Returns: The new rate.
    @discardableResult
    package func increaseRate() -> Double {
        core.withLock { core in
            core.rate = Self.rateSteps.first { $0 > core.rate } ?? Self.maximumRate
            return core.rate
        }
    }

    /// Moves the rate to the next of ``rateSteps`` below it, down to 1 event per second.
    ///
    /// - Returns: The new rate.
    @discardableResult
    package func decreaseRate() -> Double {
        core.withLock { core in
            core.rate = Self.rateSteps.last { $0 < core.rate } ?? Self.rateSteps[0]
            return core.rate
        }
    }

    /// Closes `count` open screens picked at random at once, so their cleanup can be watched.
    ///
    /// - Parameter count: How many screens to close; fewer close when fewer are open.
    /// - Returns: How many screens were closed.
    @discardableResult
    package func destroyScreens(count: Int = defaultDestroyCount) -> Int {
        let actions = core.withLock { $0.closeScreens(count: count, includingALeak: true) }
        perform(actions)
        return actions.count { if case .close = $0 { true } else { false } }
    }

    /// Makes every screen opened from now on leak (its handler captures it strongly), or goes
    /// back to the usual rare leaks; leaked screens stay capped at ``maximumLeakedScreens``.
    ///
    /// - Returns: A line saying what the app does now, with the cap.
    @discardableResult
    package func toggleLeakyScreens() -> String {
        let leaking = core.withLock { core in
            core.leaksEveryScreen.toggle()
            return core.leaksEveryScreen
        }
        let cap = "at most \(Self.maximumLeakedScreens) kept"
        return leaking ? "new screens leak (\(cap))" : "leaks rare again (\(cap))"
    }

    /// Sets off the token refresh loop: two handlers that publish each other's event, which the
    /// bus stops at its cascade limit and reports as `cascadeStopped`.
    ///
    /// - Returns: A line saying what happened.
    @discardableResult
    package func startRefreshLoop() -> String {
        services.startRefreshLoop(on: bus, counter: counter)
        return
            "token refresh loop started; the bus stops it at \(bus.cascadeLimit.map(String.init) ?? "no") events"
    }

    /// What the app has done so far.
    package var statistics: SimulationStatistics {
        var statistics = core.withLock { core in
            var statistics = core.statistics
            statistics.openScreensByKind = core.screensByKind
            statistics.usersLoggedIn = core.loggedInCount
            statistics.leakedScreensAlive = core.leakedScreensAlive
            return statistics
        }
        statistics.handlerCalls = counter.value
        return statistics
    }

    // MARK: - Deterministic driving

    /// Lets `seconds` of simulated time pass, publishing the traffic and making the navigations
    /// due in it, on the calling thread, in slices of 10 ms.
    ///
    /// - Parameter seconds: Simulated time; nothing happens for 0 or less.
    package func advance(by seconds: Double) {
        _ = advance(by: seconds, until: { false })
    }

    /// ``advance(by:)``, looking at `shouldStop` between batches of actions and leaving the
    /// rest undone once it says so; returns whether it did.
    func advance(by seconds: Double, until shouldStop: () -> Bool) -> Bool {
        guard seconds > 0, seconds.isFinite else { return false }
        var remaining = seconds
        while remaining > 1e-12 {
            let piece = min(remaining, Self.slice)
            remaining -= piece
            perform(core.withLock { $0.accrue(piece) })
            if !runDueActions(until: shouldStop) { return true }
        }
        return false
    }

    /// Publishes one event of the app's traffic now, whatever the rate.
    package func step() {
        let actions = core.withLock { core -> [AppAction] in
            let launch = core.accrue(0)
            return launch + [.publish(core.nextTrafficEvent())]
        }
        perform(actions)
    }

    /// Makes one navigation now, whatever the churn: a screen opens, closes, or both.
    package func navigate() {
        perform(core.withLock { core in core.accrue(0) + core.navigate() })
    }

    // MARK: - Internals

    /// Performs the actions due, a batch at a time, until none is left (returns `true`) or
    /// `shouldStop` says to stop before a batch (returns `false`).
    func runDueActions(until shouldStop: () -> Bool = { false }) -> Bool {
        while true {
            if shouldStop() { return false }
            let actions = core.withLock { $0.takeDueActions(limit: Self.actionsPerBatch) }
            if actions.isEmpty { return true }
            perform(actions)
        }
    }

    /// Drops the backlog the runner could not keep up with, keeping `seconds` of it.
    func forgiveBacklog(keeping seconds: Double) {
        core.withLock { $0.forgiveBacklog(keeping: seconds) }
    }

    private func perform(_ actions: [AppAction]) {
        for action in actions {
            switch action {
            case .publish(let event): AppTraffic.publish(event, on: bus)
            case .open(let screen): screen.open()
            case .close(let screen):
                screen.close()
                bus.expectDeallocation(of: screen, within: closedScreenLifetime, reason: "screen closed")
            case .finishWork:
                // Releasing the action, after this loop, releases the screen.
                break
            case .breakLeak(let screen): bus.unsubscribe(observer: screen)
            case .startServices: services.start(on: bus, counter: counter)
            }
        }
    }

    private static func clamp(_ value: Double, to maximum: Double) -> Double {
        guard value.isFinite else { return value > 0 ? maximum : 0 }
        return min(max(0, value), maximum)
    }
}
