package import BusMonitor

/// The commands the simulated app takes from the person at busmon, beside the rate that every
/// source may take.
extension SourceCommand {
    /// Destroy a batch of screens at once, so their cleanup can be watched.
    package static let destroyScreens = SourceCommand("destroy-screens")
    /// Make the next screens leak (their handlers capture them strongly), or stop doing so, to
    /// demonstrate leak detection.
    package static let toggleLeakyScreens = SourceCommand("toggle-leaky-screens")
    /// Set off a publish loop (two handlers that publish each other's event), which the bus stops.
    package static let startPublishLoop = SourceCommand("start-publish-loop")
}

extension SourceCommandDescription {
    /// `+` publishes faster and `-` slower, in the simulated app.
    package static let publishRate = faster(
        andSlower: "Rate", help: "publish faster / slower (simulated app)")

    /// `c` destroys a batch of screens, in the simulated app.
    package static let destroyScreens = SourceCommandDescription(
        keys: [Keys(command: .destroyScreens, characters: ["c"])], keyText: "c", barLabel: "Destroy",
        help: "close a batch of screens at once (simulated app)")

    /// `L` makes the next screens leak, or stops it, in the simulated app.
    package static let leakyScreens = SourceCommandDescription(
        keys: [Keys(command: .toggleLeakyScreens, characters: ["L"])], keyText: "L", barLabel: "Leaks",
        help: "make the next screens leak, or stop (simulated app)")

    /// `R` sets off a token refresh loop, which the bus stops, in the simulated app.
    package static let publishLoop = SourceCommandDescription(
        keys: [Keys(command: .startPublishLoop, characters: ["R"])], keyText: "R", barLabel: "Loop",
        help: "set off a publish loop, which the bus stops (simulated app)")

    /// What the simulated app takes: its rate, destroying screens, leaking them, and a loop.
    package static let simulatedApp: [SourceCommandDescription] = [
        publishRate, destroyScreens, leakyScreens, publishLoop,
    ]
}
