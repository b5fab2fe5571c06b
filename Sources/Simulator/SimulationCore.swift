internal import EventBus

/// Something the app does, decided under the app's lock and carried out after it is released.
enum AppAction {
    /// Publish this event.
    case publish(any Event)
    /// Subscribe this new screen.
    case open(any SimulatedScreen)
    /// Close this screen and expect it to be deallocated soon; releasing the action releases
    /// the app's last reference to it, unless the screen's work still holds it.
    case close(any SimulatedScreen)
    /// The work a closed screen finished; releasing the action releases the screen.
    case finishWork(any SimulatedScreen)
    /// Unsubscribe a leaked screen, which breaks its retain cycle through the bus, as an app
    /// under memory pressure might; it is deallocated, and stops being a leak suspect.
    case breakLeak(any SimulatedScreen)
    /// Start the long-lived services, once, as the app launches.
    case startServices
}

/// The simulated app's state and decisions, with no threads and no bus calls: it only says
/// what to do, so that the same seed and the same calls always decide the same things.
struct SimulationCore {
    static let userNames = [
        "ada", "grace", "alan", "barbara", "edsger", "frances", "ken", "margaret", "dennis", "radia",
        "john", "katherine",
    ]
    static let resources = ["inbox", "news", "profile", "settings", "photos", "messages", "calendar"]
    static let loadErrors = [
        "timeout after 30 s", "HTTP 503 Service Unavailable", "HTTP 401 Unauthorized",
        "decoding failed: missing key 'id'", "connection reset by peer",
    ]

    let bus: EventBus
    let counter: HandlerCounter
    var random: SplitMix64
    var rate: Double
    var churn: Double
    var targetScreens: Int
    var statistics = SimulationStatistics()
    private(set) var screens: [any SimulatedScreen] = []
    private var launched = false
    private var eventCredit = 0.0
    private var churnCredit = 0.0
    private var loggedIn: [Int] = []
    /// Logins so far, for their made-up tokens.
    private var logins = 0
    private var isOnline = true
    /// Whether every screen opened leaks, for a demonstration; otherwise a few do.
    var leaksEveryScreen = false
    /// Closed screens still finishing their work, with the simulated time it ends.
    private var finishing: [(screen: any SimulatedScreen, until: Double)] = []
    /// Closed screens that leaked, oldest first, held weakly (only their retain cycle keeps
    /// them alive), with the simulated time each closed.
    private var leaked: [(screen: WeakScreen, closedAt: Double)] = []
    /// Simulated seconds a leaked screen is kept past the cap before its cycle is broken: long
    /// enough for the bus to report it and for the report to be seen.
    let leakKeptFor: Double

    init(
        bus: EventBus, counter: HandlerCounter, seed: UInt64, rate: Double, churn: Double, targetScreens: Int,
        leakKeptFor: Double
    ) {
        self.leakKeptFor = leakKeptFor
        self.bus = bus
        self.counter = counter
        random = SplitMix64(seed: seed)
        self.rate = rate
        self.churn = churn
        self.targetScreens = targetScreens
    }

    /// Lets `seconds` of simulated time pass: earns the events and navigations due in it.
    ///
    /// - Returns: What the app does as it launches (its services start, its first screens
    ///   open) on the first call; nothing later.
    mutating func accrue(_ seconds: Double) -> [AppAction] {
        statistics.elapsed += seconds
        eventCredit += rate * seconds
        churnCredit += churn * seconds
        guard !launched else { return [] }
        launched = true
        var actions: [AppAction] = [.startServices]
        for _ in 0..<targetScreens { actions += openScreen() }
        return actions
    }

    /// Takes up to `limit` actions that are due: work that finished, navigations, then traffic.
    mutating func takeDueActions(limit: Int) -> [AppAction] {
        var actions = breakLeaksPastTheCap()
        if finishing.contains(where: { $0.until <= statistics.elapsed }) {
            let done = finishing.filter { $0.until <= statistics.elapsed }
            finishing.removeAll { $0.until <= statistics.elapsed }
            actions += done.map { .finishWork($0.screen) }
        }
        while churnCredit >= 1, actions.count < limit {
            churnCredit -= 1
            actions += navigate()
        }
        while eventCredit >= 1, actions.count < limit {
            eventCredit -= 1
            actions.append(.publish(nextTrafficEvent()))
        }
        return actions
    }

    /// Whether actions are due that ``takeDueActions(limit:)`` has not taken yet.
    var hasDueActions: Bool {
        eventCredit >= 1 || churnCredit >= 1 || finishing.contains { $0.until <= statistics.elapsed }
            || hasLeakToBreak
    }

    /// Drops credit earned for events that were not taken, as when the app falls behind.
    mutating func forgiveBacklog(keeping seconds: Double) {
        eventCredit = min(eventCredit, max(1, rate * seconds))
        churnCredit = min(churnCredit, max(1, churn * seconds))
    }

    /// One navigation: the person opens a screen, closes one, or moves from one to another,
    /// keeping the number of screens around the target.
    mutating func navigate() -> [AppAction] {
        let low = max(0, targetScreens - targetScreens / 4 - 1)
        let high = targetScreens + targetScreens / 4 + 1
        if screens.count <= low { return openScreen() }
        if screens.count >= high { return closeScreens(count: 1) }
        switch random.nextInt(below: 3) {
        case 0: return openScreen()
        case 1: return closeScreens(count: 1)
        default: return closeScreens(count: 1) + openScreen()
        }
    }

    /// Opens one screen, announced with a `ScreenViewedEvent`: a leaking one when no open screen
    /// leaks (or every screen leaks, ``leaksEveryScreen``), otherwise one of a random kind.
    ///
    /// Keeping one leaking screen open, rather than leaving it to chance, means a batch closed at
    /// once always shows a leak suspect, while leaks stay as rare as that one screen's closing.
    mutating func openScreen() -> [AppAction] {
        let leaks = leaksEveryScreen || !screens.contains { $0.kind == .capturesSelfStrongly }
        let kind = leaks ? .capturesSelfStrongly : random.pick(ScreenKind.ordinaryKinds)
        let screen = makeScreen(kind, bus: bus, counter: counter)
        screens.append(screen)
        statistics.screensOpened += 1
        statistics.eventsPublished += 1
        return [.open(screen), .publish(ScreenViewedEvent(screen: kind.className))]
    }

    /// Closes up to `count` screens picked at random.
    ///
    /// - Parameter includingALeak: Whether one of them is the leaking screen that is open, so
    ///   that a batch closed at once shows a leak suspect.
    mutating func closeScreens(count: Int, includingALeak: Bool = false) -> [AppAction] {
        var actions: [AppAction] = []
        var remaining = max(0, min(count, screens.count))
        if includingALeak, remaining > 0,
            let index = screens.firstIndex(where: { $0.kind == .capturesSelfStrongly })
        {
            actions += closeScreen(at: index)
            remaining -= 1
        }
        for _ in 0..<remaining {
            actions += closeScreen(at: random.nextInt(below: screens.count))
        }
        return actions
    }

    /// Closes the screen at `index`: a screen with work to finish is kept until it is done, a
    /// leaking one is remembered, and past the cap the oldest leak is broken.
    private mutating func closeScreen(at index: Int) -> [AppAction] {
        let screen = screens.remove(at: index)
        statistics.screensClosed += 1
        var actions: [AppAction] = [.close(screen)]
        switch screen.kind {
        case .finishesWorkFirst:
            // 0.3 to 2 s: longer than a frame, so it is seen dying late, and far inside the time
            // the app allows.
            let seconds = 0.3 + Double(random.nextInt(below: 18)) / 10
            finishing.append((screen, statistics.elapsed + seconds))
        case .capturesSelfStrongly:
            statistics.screensLeaked += 1
            leaked.append((WeakScreen(screen), statistics.elapsed))
            actions += breakLeaksPastTheCap()
        default:
            break
        }
        return actions
    }

    /// Whether more leaked screens are alive than the cap, the oldest kept long enough.
    private var hasLeakToBreak: Bool {
        leaked.count > SimulatedApp.maximumLeakedScreens
            && leaked[0].closedAt + leakKeptFor <= statistics.elapsed
    }

    /// Breaks the oldest leaks while more than the cap are alive, each once it has been kept
    /// ``leakKeptFor``: breaking one at once would free it before the bus could report it, and
    /// with every screen leaking (``leaksEveryScreen``) no leak would ever be seen.
    private mutating func breakLeaksPastTheCap() -> [AppAction] {
        leaked.removeAll { $0.screen.screen == nil }
        var actions: [AppAction] = []
        while hasLeakToBreak {
            if let oldest = leaked.removeFirst().screen.screen {
                statistics.leaksBroken += 1
                actions.append(.breakLeak(oldest))
            }
        }
        return actions
    }

    /// The leaking screens alive now, open or closed.
    var leakingScreens: [any SimulatedScreen] {
        screens.filter { $0.kind == .capturesSelfStrongly } + leaked.compactMap(\.screen.screen)
    }

    /// Leaked screens alive now.
    var leakedScreensAlive: Int {
        leaked.count { $0.screen.screen != nil }
    }

    /// The next event of the app's ordinary traffic: mostly data loads, some logins and logouts.
    mutating func nextTrafficEvent() -> any Event {
        statistics.eventsPublished += 1
        let roll = random.nextInt(below: 100)
        switch roll {
        case 0..<48:
            let first = random.nextInt(below: Self.resources.count)
            let count = 1 + random.nextInt(below: 3)
            return DataLoadedEvent(
                data: (0..<count).map { Self.resources[(first + $0) % Self.resources.count] })
        case 48..<58:
            let error = isOnline ? random.pick(Self.loadErrors) : "offline"
            return DataLoadFailedEvent(resource: random.pick(Self.resources), error: error)
        case 58..<76:
            return logIn() ?? logOut(expired: false)!
        case 76..<90:
            return logOut(expired: false) ?? logIn()!
        case 90..<96:
            return logOut(expired: true) ?? logIn()!
        default:
            // Offline spells are short: going back online is far likelier than going offline.
            if isOnline, random.nextInt(below: 4) != 0 {
                return DataLoadedEvent(data: [random.pick(Self.resources)])
            }
            isOnline.toggle()
            return NetworkStatusChangedEvent(isOnline: isOnline)
        }
    }

    private mutating func logIn() -> (any Event)? {
        let loggedOut = Self.userNames.indices.filter { !loggedIn.contains($0) }
        guard !loggedOut.isEmpty else { return nil }
        let user = random.pick(loggedOut)
        loggedIn.append(user)
        logins += 1
        // A made-up bearer token, derived rather than drawn so that a seed's events stay as
        // they were; a secret all the same, which monitors show as "<redacted>".
        let token = "st_" + String((UInt64(logins) &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(user), radix: 16)
        return UserLoggedInEvent(userId: "u\(1000 + user)", userName: Self.userNames[user], token: token)
    }

    private mutating func logOut(expired: Bool) -> (any Event)? {
        guard !loggedIn.isEmpty else { return nil }
        let user = loggedIn.remove(at: random.nextInt(below: loggedIn.count))
        let userId = "u\(1000 + user)"
        if expired {
            return SessionExpiredEvent(userId: userId, minutesActive: 5 + random.nextInt(below: 120))
        }
        return UserLoggedOutEvent(userId: userId)
    }

    /// Screens open now, per kind.
    var screensByKind: [ScreenKind: Int] {
        screens.reduce(into: [:]) { $0[$1.kind, default: 0] += 1 }
    }

    /// Users signed in now.
    var loggedInCount: Int { loggedIn.count }
}

/// A screen held weakly.
struct WeakScreen {
    weak var screen: (any SimulatedScreen)?

    init(_ screen: any SimulatedScreen) {
        self.screen = screen
    }
}
