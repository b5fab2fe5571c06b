internal import EventBus
internal import Synchronization

#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Counts handler calls across every screen, so a run can show that handlers really ran.
///
/// Handlers capture this rather than their screen: a handler that held its screen strongly
/// would keep it alive through the bus's entry, and it would never be reclaimed.
final class HandlerCounter: Sendable {
    private let calls = Atomic<Int>(0)

    /// Records one handler call.
    @inline(__always)
    func record() {
        calls.wrappingAdd(1, ordering: .relaxed)
    }

    /// Handler calls so far.
    var value: Int { calls.load(ordering: .relaxed) }
}

/// A screen of the simulated app: an observer object, like a view controller.
///
/// The app makes a screen while deciding what happens next (under its lock) and opens it
/// afterwards, so that subscribing, and the handlers it may set off, run outside that lock.
protocol SimulatedScreen: AnyObject, Sendable {
    /// How the screen treats its subscriptions.
    var kind: ScreenKind { get }
    /// Subscribes, as the screen appears.
    func open()
    /// Called as the app navigates away, before the app releases the screen.
    func close()
}

/// Makes a screen of `kind` that will listen on `bus`.
func makeScreen(_ kind: ScreenKind, bus: EventBus, counter: HandlerCounter) -> any SimulatedScreen {
    switch kind {
    case .unsubscribesInDeinit: return ProfileViewController(bus: bus, counter: counter)
    case .reliesOnWeakReference: return InboxViewController(bus: bus, counter: counter)
    case .subscribesTwice: return NewsFeedViewController(bus: bus, counter: counter)
    case .cancelsTokens: return SettingsViewController(bus: bus, counter: counter)
    case .finishesWorkFirst: return PhotoUploadViewController(bus: bus, counter: counter)
    case .capturesSelfStrongly: return ChatViewController(bus: bus, counter: counter)
    }
}

/// Unsubscribes in `deinit`, the tidy way.
final class ProfileViewController: SimulatedScreen {
    private let bus: EventBus
    private let counter: HandlerCounter
    var kind: ScreenKind { .unsubscribesInDeinit }

    init(bus: EventBus, counter: HandlerCounter) {
        self.bus = bus
        self.counter = counter
    }

    func open() {
        let counter = counter
        bus.subscribe(observer: self) { (_: UserLoggedInEvent) in counter.record() }
        bus.subscribe(observer: self) { (_: UserLoggedOutEvent) in counter.record() }
    }

    func close() {}

    deinit {
        // The bus matches the observer by identity, so this works although weak references to
        // `self` already read nil here.
        bus.unsubscribe(observer: self)
    }
}

/// Never unsubscribes: its subscriptions die with it and the bus reclaims them.
final class InboxViewController: SimulatedScreen {
    private let bus: EventBus
    private let counter: HandlerCounter
    var kind: ScreenKind { .reliesOnWeakReference }

    init(bus: EventBus, counter: HandlerCounter) {
        self.bus = bus
        self.counter = counter
    }

    func open() {
        let counter = counter
        bus.subscribe(observer: self) { (_: DataLoadedEvent) in counter.record() }
        bus.subscribe(observer: self) { (_: DataLoadFailedEvent) in counter.record() }
    }

    func close() {}
}

/// Subscribes to `DataLoadedEvent` when its view loads and again when it appears, a classic
/// mistake the bus reports as a duplicate; both handlers run until the screen dies.
final class NewsFeedViewController: SimulatedScreen {
    private let bus: EventBus
    private let counter: HandlerCounter
    var kind: ScreenKind { .subscribesTwice }

    init(bus: EventBus, counter: HandlerCounter) {
        self.bus = bus
        self.counter = counter
    }

    func open() {
        let counter = counter
        // viewDidLoad
        bus.subscribe(observer: self) { (_: DataLoadedEvent) in counter.record() }
        // viewWillAppear
        bus.subscribe(observer: self) { (_: DataLoadedEvent) in counter.record() }
    }

    func close() {}
}

/// Holds token subscriptions and cancels them as it closes.
final class SettingsViewController: SimulatedScreen {
    private let bus: EventBus
    private let counter: HandlerCounter
    private let tokens = LockedValue<[Subscription]>([])
    var kind: ScreenKind { .cancelsTokens }

    init(bus: EventBus, counter: HandlerCounter) {
        self.bus = bus
        self.counter = counter
    }

    func open() {
        let counter = counter
        let made = [
            bus.subscribe(to: SessionExpiredEvent.self) { _ in counter.record() },
            bus.subscribe(to: NetworkStatusChangedEvent.self, sticky: true) { _ in counter.record() },
        ]
        tokens.withLock { $0 += made }
    }

    func close() {
        let taken = tokens.withLock { tokens in
            defer { tokens = [] }
            return tokens
        }
        for token in taken { token.cancel() }
    }
}

/// Relies on weak references, but finishes an upload after it closes: the upload holds it for
/// a moment (the app keeps it until the upload's time is up), so it dies late, yet well within
/// the time the app expects it to take.
final class PhotoUploadViewController: SimulatedScreen {
    private let bus: EventBus
    private let counter: HandlerCounter
    var kind: ScreenKind { .finishesWorkFirst }

    init(bus: EventBus, counter: HandlerCounter) {
        self.bus = bus
        self.counter = counter
    }

    func open() {
        let counter = counter
        bus.subscribe(observer: self, sticky: true) { (_: NetworkStatusChangedEvent) in counter.record() }
        bus.subscribe(observer: self) { (_: DataLoadFailedEvent) in counter.record() }
    }

    func close() {}
}

/// The leak weak observers exist to prevent: its handler uses `self` without `[weak self]`.
///
/// The bus holds the handler, the handler holds the screen, and the weak reference the bus
/// keeps to the screen never reads `nil`, so the screen and its subscriptions live for ever.
/// The fix is one word: `{ [weak self] (event: UserLoggedInEvent) in self?.show(event) }`.
final class ChatViewController: SimulatedScreen {
    private let bus: EventBus
    private let counter: HandlerCounter
    private let unread = Atomic<Int>(0)
    var kind: ScreenKind { .capturesSelfStrongly }

    init(bus: EventBus, counter: HandlerCounter) {
        self.bus = bus
        self.counter = counter
    }

    func open() {
        bus.subscribe(observer: self) { (_: UserLoggedInEvent) in self.noteActivity() }
        bus.subscribe(observer: self) { (_: DataLoadedEvent) in self.noteActivity() }
    }

    func close() {}

    private func noteActivity() {
        unread.wrappingAdd(1, ordering: .relaxed)
        counter.record()
    }
}

/// Long-lived parts of the app that listen for as long as it runs.
final class AppServices: Sendable {
    private let tokens = LockedValue<[Subscription]>([])
    private let home = HomeViewController()
    private let cache = PhotoCache()
    private let refreshLoopInstalled = LockedValue(false)

    /// Every this many data loads, the photo cache finds one corrupt and its handler throws.
    static let dataLoadsPerCacheFailure = 150
    /// Every this many data loads, the home screen's main-actor handler takes
    /// ``slowRenderTime``, but not again within ``slowRenderInterval``: at the default rate, every
    /// few seconds, and at any rate a small share of the main actor's time.
    static let dataLoadsPerSlowRender = 400
    /// Real seconds between two slow renders at least.
    static let slowRenderInterval = 3.0
    /// How long a slow render takes: two frames at 60 Hz.
    static let slowRenderTime: UInt32 = 30_000

    /// Subscribes the session store (tokens, whose sign-in handler loads the user's session:
    /// a cascade), the account badge (every ``AuthEvent``, through the protocol), the photo
    /// cache (whose handler throws now and then), the home screen (a main-actor handler, slow
    /// now and then) and the analytics tracker (a wildcard observer).
    func start(on bus: EventBus, counter: HandlerCounter) {
        let made = [
            bus.subscribe(to: UserLoggedInEvent.self) { login in
                counter.record()
                bus.publish(DataLoadedEvent(data: ["session:\(login.userId)"]))
            },
            bus.subscribe(to: UserLoggedOutEvent.self) { _ in counter.record() },
            bus.subscribe(to: SessionExpiredEvent.self) { _ in counter.record() },
            // The account badge follows every kind of sign-in event through their protocol.
            bus.subscribe(conformingTo: (any AuthEvent).self) { _ in counter.record() },
        ]
        tokens.withLock { $0 += made }
        let cache = cache
        bus.subscribe(observer: cache) { (load: DataLoadedEvent) throws in
            counter.record()
            try cache.store(load)
        }
        home.open(on: bus, counter: counter)
        bus.subscribeAll(observer: self) { _ in counter.record() }
    }

    /// Makes the token refresh loop (once) and sets it off: the request's handler fails and
    /// publishes a failure, whose handler requests again, until the bus stops the cascade.
    func startRefreshLoop(on bus: EventBus, counter: HandlerCounter) {
        let install = refreshLoopInstalled.withLock { installed in
            defer { installed = true }
            return !installed
        }
        if install {
            let made = [
                bus.subscribe(to: TokenRefreshRequestedEvent.self) { request in
                    counter.record()
                    bus.publish(TokenRefreshFailedEvent(attempt: request.attempt))
                },
                bus.subscribe(to: TokenRefreshFailedEvent.self) { failure in
                    counter.record()
                    bus.publish(TokenRefreshRequestedEvent(attempt: failure.attempt + 1))
                },
            ]
            tokens.withLock { $0 += made }
        }
        bus.publish(TokenRefreshRequestedEvent(attempt: 1))
    }
}

/// Why the photo cache refused a load.
struct CacheCorrupted: Error, CustomStringConvertible {
    let resources: [String]
    var description: String { "cache entry for \(resources.joined(separator: ", ")) is corrupt" }
}

/// Stores what loads; every ``AppServices/dataLoadsPerCacheFailure``th load finds its entry
/// corrupt, and the handler throws.
final class PhotoCache: Sendable {
    private let loads = Atomic<Int>(0)

    func store(_ load: DataLoadedEvent) throws {
        let count = loads.wrappingAdd(1, ordering: .relaxed).newValue
        if count % AppServices.dataLoadsPerCacheFailure == 0 { throw CacheCorrupted(resources: load.data) }
    }
}

/// The app's home screen: a main-actor view controller whose data-load handler renders, and
/// every ``AppServices/dataLoadsPerSlowRender``th render is slow enough to drop frames.
@MainActor
final class HomeViewController {
    private var renders = 0
    private var lastSlowRender: ContinuousClock.Instant?

    nonisolated init() {}

    nonisolated func open(on bus: EventBus, counter: HandlerCounter) {
        bus.subscribe(observer: self) { @MainActor (load: DataLoadedEvent) in
            counter.record()
            self.render(load)
        }
    }

    private func render(_ load: DataLoadedEvent) {
        renders += 1
        guard renders % AppServices.dataLoadsPerSlowRender == 0 else { return }
        let now = ContinuousClock.now
        if let lastSlowRender, now - lastSlowRender < .seconds(AppServices.slowRenderInterval) { return }
        lastSlowRender = now
        usleep(AppServices.slowRenderTime)
    }
}
