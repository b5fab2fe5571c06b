// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "EventBus",
    // The floor is set by `Atomic` (the Synchronization module), which the bus's lock-free
    // publish path is built on: it exists from these releases on (docs/platforms.md).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    // What an app or another tool builds on: the bus, its test recorder, the tap, the NATS
    // bridge, and the wire format as a documented protocol. The monitor's own modules (its
    // sources, dashboard, grid, terminal, simulated app) are `package`: busmon's insides, free
    // to change, as tokio-console keeps its TUI apart from console-api.
    products: [
        .library(name: "EventBus", targets: ["EventBus"]),
        .library(name: "EventBusTesting", targets: ["EventBusTesting"]),
        .executable(name: "LoginFlow", targets: ["LoginFlow"]),
        .executable(name: "StickyAndProtocols", targets: ["StickyAndProtocols"]),
        .executable(name: "busmon", targets: ["busmon"]),
        .executable(name: "busbench", targets: ["busbench"]),
        .library(name: "BusTap", targets: ["BusTap"]),
        .library(name: "BusWire", targets: ["BusWire"]),
        .executable(name: "simapp", targets: ["simapp"]),
        .library(name: "EventBusNATS", targets: ["EventBusNATS"]),
    ],
    // Everything that needs nats.c (libnats-dev) is behind this trait, so that a fresh machine
    // builds and tests the package without it.
    traits: [
        .trait(
            name: "NATS",
            description: "Bridge buses between processes through NATS (needs libnats-dev: nats.c 3.x)"),
        .default(enabledTraits: []),
    ],
    targets: [
        // The bus: typed publish/subscribe with weak observers, isolation, introspection, leak checks.
        .target(name: "EventBus"),
        // What tests of code that publishes use: a recorder of what a bus delivered.
        .target(name: "EventBusTesting", dependencies: ["EventBus"]),
        // The wire format and the socket both ends use; the tap and the monitor each build on it.
        .target(name: "BusWire", dependencies: ["EventBus"]),
        // What an app embeds to be watched: nothing of the monitor side.
        .target(name: "BusTap", dependencies: ["EventBus", "BusWire"]),
        // Every source busmon reads, and the recording writer.
        .target(name: "BusMonitor", dependencies: ["EventBus", "BusWire"]),
        // The grid of cells a screen is drawn on, its rectangles and the keys it takes: below
        // both the dashboard that draws and the terminal that shows, as ratatui keeps its buffer.
        .target(name: "ScreenGrid"),
        // The dashboard: its state, panes, keys and drawing onto a grid, knowing no terminal.
        .target(name: "Dashboard", dependencies: ["ScreenGrid", "EventBus", "BusMonitor", "BusWire"]),
        // A simulated app (services publishing, screens coming and going, some leaking) to watch.
        .target(name: "Simulator", dependencies: ["EventBus"]),
        // The article's login scenario without UIKit: `swift run LoginFlow`.
        .executableTarget(name: "LoginFlow", dependencies: ["EventBus"], path: "Examples/LoginFlow"),
        // Sticky events, a protocol's subscribers and a stream's drops: `swift run StickyAndProtocols`.
        .executableTarget(
            name: "StickyAndProtocols", dependencies: ["EventBus"], path: "Examples/StickyAndProtocols"),
        // The curses calls the terminal makes, behind a header of plain C types. The define turns
        // on curses's wide-character API; it reaches only this target's .c file (and, on Darwin,
        // the SDK's curses module it imports), which is why no curses type crosses the header.
        // Debian puts the wide library under another name than macOS, so it is linked per platform.
        .target(
            name: "CNCurses",
            cSettings: [.define("_XOPEN_SOURCE_EXTENDED", to: "1")],
            linkerSettings: [
                .linkedLibrary("ncursesw", .when(platforms: [.linux])),
                .linkedLibrary("ncurses", .when(platforms: [.macOS])),
            ]),
        // The terminal: copies a grid to the screen through ncurses and decodes keys.
        .target(name: "TerminalUI", dependencies: ["CNCurses", "ScreenGrid"]),
        // busmon itself: its command line, which source, headless or dashboard, the frame loop,
        // the exit status. `busmon` is only its entry point, so that tests reach all of it.
        .target(
            name: "BusmonApp",
            dependencies: [
                "TerminalUI", "Dashboard", "ScreenGrid", "BusMonitor", "BusWire", "EventBus", "Simulator",
                "BusMonitorNATS",
            ]),
        .executableTarget(name: "busmon", dependencies: ["BusmonApp"]),
        // The simulated app with a tap, a dial-in and a NATS bridge, to watch from another process.
        .executableTarget(
            name: "simapp", dependencies: ["BusTap", "EventBus", "EventBusNATS", "Simulator"],
            path: "Examples/simapp"),
        // The benchmark: every speed and memory goal, measured side by side in one run.
        .executableTarget(
            name: "busbench",
            // TestSupport: the benchmark starts its local servers (nats-server, a listening busmon
            // side) on free loopback ports, as the tests do.
            dependencies: [
                "EventBus", "BusMonitor", "BusTap", "BusWire", "EventBusNATS", "NATSClient", "TestSupport",
                "ProcessTestSupport",
            ]),
        // libFuzzer's driver, declared for wirefuzz.
        .target(name: "CFuzzerDriver"),
        // pkg-config finds Homebrew's cnats on a Mac (its prefix is not on the default paths).
        .systemLibrary(
            name: "CNATS", pkgConfig: "libnats", providers: [.apt(["libnats-dev"]), .brew(["cnats"])]),
        // The package's one NATS client: connections, subscriptions, JetStream streams and
        // replays, and a bare probe for measuring, over nats.c. It alone imports CNATS, whose
        // copies of system types would otherwise leak into every module that does.
        .target(
            name: "NATSClient",
            dependencies: ["EventBus", .target(name: "CNATS", condition: .when(traits: ["NATS"]))]),
        // The app-side NATS bridge. Without the trait it still compiles (its initializer throws),
        // so code that imports it builds either way.
        .target(name: "EventBusNATS", dependencies: ["EventBus", "BusWire", "NATSClient"]),
        // The monitor's side of the fleet: every bridged app's events, snapshots and presence, read
        // from NATS. Without the trait it still compiles (its source's initializer throws).
        .target(
            name: "BusMonitorNATS",
            dependencies: ["BusMonitor", "BusWire", "EventBus", "EventBusNATS", "NATSClient"]),
        // The libFuzzer entry point for the wire and recording reader.
        .executableTarget(name: "wirefuzz", dependencies: ["BusWire", "BusMonitor", "CFuzzerDriver"]),
        // What the test suites share on every platform: fixtures, waiting, seeded randomness,
        // temporary folders, loopback ports, and what a test host has (a UTF-8 locale, a full device).
        .target(
            name: "TestSupport", dependencies: ["EventBus", "BusWire", "BusMonitor"],
            path: "Tests/TestSupport"),
        // Running the built executables, nats-server and pseudo-terminals from tests: macOS and
        // Linux only (iOS, tvOS and watchOS start no child processes), so that the libraries an
        // app embeds keep tests that could run in an iOS simulator.
        .target(
            name: "ProcessTestSupport", dependencies: ["TestSupport", "BusWire"],
            path: "Tests/ProcessTestSupport"),
        .testTarget(
            name: "EventBusTests",
            dependencies: [
                "EventBus", "EventBusTesting", "Simulator", "TestSupport",
                // Only the examples' tests start processes; the rest runs wherever the bus does.
                .target(name: "ProcessTestSupport", condition: .when(platforms: [.macOS, .linux])),
            ]),
        .testTarget(
            name: "SimulatorTests",
            dependencies: ["Simulator", "EventBus", "EventBusTesting", "BusWire", "TestSupport"]),
        .testTarget(
            name: "BusWireTests", dependencies: ["BusWire", "BusTap", "EventBus", "Simulator", "TestSupport"]),
        .testTarget(name: "BusTapTests", dependencies: ["BusTap", "BusWire", "EventBus", "TestSupport"]),
        .testTarget(
            name: "BusMonitorTests",
            dependencies: ["BusMonitor", "BusWire", "BusTap", "EventBus", "Simulator", "TestSupport"]),
        .testTarget(
            name: "DashboardTests",
            dependencies: [
                "Dashboard", "ScreenGrid", "BusMonitor", "BusWire", "EventBus", "Simulator", "BusmonApp",
                "TestSupport", "BusTap", "BusMonitorNATS", "EventBusNATS",
                // The NATS fleet's row of the every-field matrix starts nats-server.
                .target(name: "ProcessTestSupport", condition: .when(platforms: [.macOS, .linux])),
            ]),
        .testTarget(
            name: "TerminalUITests", dependencies: ["TerminalUI", "ScreenGrid", "CNCurses", "TestSupport"]),
        .testTarget(
            name: "BusmonAppTests",
            dependencies: ["BusmonApp", "BusMonitor", "BusWire", "Simulator", "TestSupport"]),
        .testTarget(
            name: "EventBusNATSTests",
            dependencies: [
                "EventBusNATS", "EventBus", "EventBusTesting", "TestSupport", "ProcessTestSupport",
                "NATSClient", .target(name: "CNATS", condition: .when(traits: ["NATS"])),
            ]),
        .testTarget(
            name: "BusMonitorNATSTests",
            dependencies: [
                "BusMonitorNATS", "BusMonitor", "BusWire", "EventBus", "EventBusNATS", "NATSClient",
                "TestSupport", "ProcessTestSupport",
            ]),
        .testTarget(
            name: "BusmonTests",
            dependencies: ["busmon", "simapp", "busbench", "wirefuzz", "TestSupport", "ProcessTestSupport"]),
    ]
)

// One place for the settings every target shares.
// System library targets (C modules) and the C targets take no Swift settings.
let cTargets: Set = ["CFuzzerDriver", "CNCurses"]
for target in package.targets where target.type != .system && !cTargets.contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
