// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "EventBus",
    products: [
        .library(name: "EventBus", targets: ["EventBus"]),
        .library(name: "EventBusTesting", targets: ["EventBusTesting"]),
        .executable(name: "LoginFlow", targets: ["LoginFlow"]),
        .executable(name: "busbench", targets: ["busbench"]),
    ],
    targets: [
        .target(name: "EventBus"),
        .target(name: "EventBusTesting", dependencies: ["EventBus"]),
        .target(name: "BusFeed", dependencies: ["EventBus"]),
        .target(name: "Dashboard", dependencies: ["EventBus", "BusFeed"]),
        .executableTarget(name: "LoginFlow", dependencies: ["EventBus"], path: "Examples/LoginFlow"),
        .executableTarget(name: "busbench", dependencies: ["EventBus"]),
        .testTarget(name: "EventBusTests", dependencies: ["EventBus", "EventBusTesting"]),
    ]
)

// One place for the settings every target shares.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
