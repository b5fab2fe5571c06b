import Foundation
import ProcessTestSupport
import TestSupport
import Testing

/// Checks the package's module graph as SwiftPM reads it from the manifest.
@Suite("Module boundaries")
struct ModuleBoundaryTests {
    @Test("an app that embeds BusTap compiles none of the monitor side")
    func tapLeavesTheMonitorOut() throws {
        let graph = try Self.targetDependencies()
        #expect(Self.closure(of: "BusTap", in: graph) == ["BusTap", "BusWire", "EventBus"])
        // simapp is such an app.
        #expect(!Self.closure(of: "simapp", in: graph).contains("BusMonitor"))
        #expect(!Self.closure(of: "simapp", in: graph).contains("Dashboard"))
    }

    @Test("the library compiles nothing but itself")
    func libraryStandsAlone() throws {
        let graph = try Self.targetDependencies()
        #expect(Self.closure(of: "EventBus", in: graph) == ["EventBus"])
    }

    @Test("the terminal shows a grid of cells and knows nothing of the dashboard that drew it")
    func terminalSitsBelowTheDashboard() throws {
        let graph = try Self.targetDependencies()
        #expect(Self.closure(of: "TerminalUI", in: graph) == ["TerminalUI", "CNCurses", "ScreenGrid"])
        #expect(Self.closure(of: "ScreenGrid", in: graph) == ["ScreenGrid"])
        #expect(Self.closure(of: "Dashboard", in: graph).isDisjoint(with: ["TerminalUI", "CNCurses"]))
    }

    @Test("the app-side NATS bridge carries nothing of the monitor, and one module speaks to nats.c")
    func natsClientSitsBelowBothEnds() throws {
        let graph = try Self.targetDependencies()
        #expect(
            Self.closure(of: "EventBusNATS", in: graph) == [
                "EventBusNATS", "NATSClient", "BusWire", "EventBus",
            ])
        #expect(Self.closure(of: "BusMonitorNATS", in: graph).contains("NATSClient"))
        // `swift package describe` leaves out dependencies behind a trait, so the imports are read.
        let sources = Self.packageRoot.appendingPathComponent("Sources")
        var importers: Set<String> = []
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            let folder = sources.appendingPathComponent(module)
            for file in FileManager.default.enumerator(atPath: folder.path)?.compactMap({ $0 as? String })
                ?? []
            where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                if text.contains("import CNATS") { importers.insert(module) }
            }
        }
        #expect(importers == ["NATSClient"])
    }

    /// The package's folder.
    private static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// Every target's direct target dependencies, from `swift package describe`.
    private static func targetDependencies() throws -> [String: [String]] {
        let root = packageRoot
        // A scratch folder of its own: the package's .build is locked by the `swift test` running
        // this, and describing needs no build products.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "describe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let result = try ChildProcess.run(
            "/usr/bin/env",
            [
                "swift", "package", "--package-path", root.path, "--scratch-path", scratch.path, "describe",
                "--type", "json",
            ],
            environment: ProcessInfo.processInfo.environment, timeout: 120)
        try #require(result.status == 0, "swift package describe failed: \(result.standardError)")
        let description = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
        let targets = try #require((description as? [String: Any])?["targets"] as? [[String: Any]])
        var graph: [String: [String]] = [:]
        for target in targets {
            guard let name = target["name"] as? String else { continue }
            graph[name] = target["target_dependencies"] as? [String] ?? []
        }
        return graph
    }

    /// `target` and every target it depends on, directly or not.
    private static func closure(of target: String, in graph: [String: [String]]) -> Set<String> {
        var seen: Set<String> = []
        var pending = [target]
        while let next = pending.popLast() {
            guard seen.insert(next).inserted else { continue }
            pending += graph[next] ?? []
        }
        return seen
    }
}
