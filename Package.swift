// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "EventBus",
    products: [
        .library(name: "EventBus", targets: ["EventBus"]),
        .library(name: "EventBusTesting", targets: ["EventBusTesting"]),
        .library(name: "Simulator", targets: ["Simulator"]),
        .executable(name: "LoginFlow", targets: ["LoginFlow"]),
        .executable(name: "busmon", targets: ["busmon"]),
        .executable(name: "busbench", targets: ["busbench"]),
        .library(name: "BusTap", targets: ["BusTap"]),
        .executable(name: "simapp", targets: ["simapp"]),
    ],
    targets: [
        .target(name: "EventBus"),
        .target(name: "EventBusTesting", dependencies: ["EventBus"]),
        .target(name: "BusFeed", dependencies: ["EventBus"]),
        .target(name: "Dashboard", dependencies: ["EventBus", "BusFeed"]),
        .target(name: "Simulator", dependencies: ["EventBus"]),
        .target(name: "BusTap", dependencies: ["EventBus", "BusFeed"]),
        .executableTarget(name: "LoginFlow", dependencies: ["EventBus"], path: "Examples/LoginFlow"),
        .systemLibrary(name: "CNCurses", providers: [.apt(["libncurses-dev"])]),
        .target(name: "BusmonCore"),
        .target(name: "TerminalUI", dependencies: ["CNCurses", "Dashboard"]),
        .executableTarget(
            name: "busmon",
            dependencies: [
                "BusmonCore", "TerminalUI", "Dashboard", "BusFeed", "BusTap", "EventBus", "Simulator",
            ]),
        .executableTarget(
            name: "simapp", dependencies: ["BusTap", "EventBus", "Simulator"], path: "Examples/simapp"),
        .executableTarget(name: "busbench", dependencies: ["EventBus", "BusFeed"]),
        .target(name: "CFuzzerDriver"),
        .executableTarget(name: "wirefuzz", dependencies: ["BusTap", "CFuzzerDriver"]),
        .testTarget(name: "EventBusTests", dependencies: ["EventBus", "EventBusTesting"]),
        .testTarget(name: "SimulatorTests", dependencies: ["Simulator", "EventBus", "BusFeed"]),
        .testTarget(name: "BusFeedTests", dependencies: ["BusFeed", "EventBus"]),
        .testTarget(name: "DashboardTests", dependencies: ["Dashboard", "BusFeed", "EventBus", "Simulator"]),
        .testTarget(
            name: "BusmonTests",
            dependencies: [
                "BusmonCore", "TerminalUI", "Dashboard", "CNCurses", "busmon", "simapp", "busbench",
                "wirefuzz",
            ]),
        .testTarget(name: "BusTapTests", dependencies: ["BusTap", "EventBus", "BusFeed"]),
    ]
)

// One place for the settings every target shares.
// System library targets (C modules) and the C target take no Swift settings.
for target in package.targets where target.type != .system && target.name != "CFuzzerDriver" {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
