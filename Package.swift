// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "EventBus",
    products: [
        .library(name: "EventBus", targets: ["EventBus"]),
        .library(name: "EventBusTesting", targets: ["EventBusTesting"]),
        .executable(name: "LoginFlow", targets: ["LoginFlow"]),
        .library(name: "BusTap", targets: ["BusTap"]),
    ],
    targets: [
        .target(name: "EventBus"),
        .target(name: "EventBusTesting", dependencies: ["EventBus"]),
        .target(name: "BusFeed", dependencies: ["EventBus"]),
        .target(name: "Dashboard", dependencies: ["EventBus", "BusFeed"]),
        .target(name: "BusTap", dependencies: ["EventBus", "BusFeed"]),
        .executableTarget(name: "LoginFlow", dependencies: ["EventBus"], path: "Examples/LoginFlow"),
        .testTarget(name: "EventBusTests", dependencies: ["EventBus", "EventBusTesting"]),
        .testTarget(name: "BusTapTests", dependencies: ["BusTap", "EventBus", "BusFeed"]),
    ]
)

// One place for the settings every target shares.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
