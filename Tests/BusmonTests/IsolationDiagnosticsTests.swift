import Foundation
import ProcessTestSupport
import TestSupport
import Testing

/// Compiles small programs against the built EventBus module, as a package depending on it
/// would, to check what the compiler accepts and refuses in Swift 6 mode.
@Suite("What the compiler accepts and refuses from a dependent module")
struct IsolationDiagnosticsTests {
    @Test("the article's main-actor view controller compiles unchanged")
    func articleViewControllerCompiles() throws {
        let result = try typecheck(
            """
            import EventBus
            struct UserLoggedInEvent: Event { let userId: String; let userName: String }
            @MainActor
            final class LoginViewController {
                private(set) var welcome = ""
                private var tokens: Set<Subscription> = []
                func viewDidLoad() {
                    EventBus.shared.subscribe(observer: self) { [weak self] (event: UserLoggedInEvent) in
                        guard let self = self else { return }
                        self.updateUI(with: event.userName)
                    }
                    EventBus.shared.subscribe(to: UserLoggedInEvent.self) { [weak self] event in
                        self?.updateUI(with: event.userName)
                    }.store(in: &tokens)
                    EventBus.shared.subscribeAll(observer: self) { [weak self] _ in
                        self?.updateUI(with: "")
                    }
                }
                func updateUI(with userName: String) { welcome = "Welcome, \\(userName)" }
                deinit { EventBus.shared.unsubscribe(observer: self) }
            }
            """)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardError.contains("warning"), "\(result.standardError)")
    }

    @Test("a non-Sendable observer that captures its own mutable state is refused")
    func nonSendableObserverRefused() throws {
        let result = try typecheck(
            """
            import EventBus
            struct Ping: Event {}
            final class Counter {
                var count = 0
                func start(_ bus: EventBus) {
                    bus.subscribe(observer: self) { [weak self] (_: Ping) in self?.count += 1 }
                }
            }
            """)
        #expect(result.status != 0)
        #expect(
            result.standardError.contains(
                "capture of 'self' with non-Sendable type 'Counter?' in a '@Sendable' closure"),
            "\(result.standardError)")
    }

    @Test("a handler that mutates a captured variable is refused")
    func capturedVariableRefused() throws {
        let result = try typecheck(
            """
            import EventBus
            struct Ping: Event {}
            func count(on bus: EventBus) -> Subscription {
                var pings = 0
                return bus.subscribe(to: Ping.self) { _ in pings += 1 }
            }
            """)
        #expect(result.status != 0)
        #expect(
            result.standardError.contains("mutation of captured var 'pings' in concurrently-executing code"),
            "\(result.standardError)")
    }

    @Test("a queue handler cannot touch main-actor state, even written on the main actor")
    func queueHandlerIsNotIsolated() throws {
        let result = try typecheck(
            """
            import Dispatch
            import EventBus
            struct Ping: Event {}
            @MainActor
            final class Screen {
                var pings = 0
                func start(_ bus: EventBus) {
                    bus.subscribe(observer: self, on: .global()) { [weak self] (_: Ping) in self?.pings += 1 }
                }
            }
            """)
        #expect(result.status != 0)
        #expect(result.standardError.contains("main actor-isolated"), "\(result.standardError)")
    }

    @Test("a delivery monitor whose token is dropped draws a warning, since it would never fire")
    func droppedMonitorTokenWarns() throws {
        let result = try typecheck(
            """
            import EventBus
            final class Monitor: Sendable {}
            func watch(_ bus: EventBus, _ monitor: Monitor) {
                bus.observeDeliveries { _ in }
                bus.observeDeliveries(observer: monitor) { _ in }
            }
            """)
        #expect(result.status == 0, "\(result.standardError)")
        // One line per diagnostic starts with its location; the excerpt below repeats the text.
        let warnings = result.standardError.components(separatedBy: "\n").filter {
            $0.hasPrefix("/") && $0.contains("warning:")
        }
        #expect(warnings.count == 1, "\(result.standardError)")
        #expect(
            result.standardError.contains("result of call to 'observeDeliveries(on:handler:)' is unused"),
            "\(result.standardError)")
    }

    /// Type-checks `source` in Swift 6 mode against the modules built next to the test runner.
    private func typecheck(_ source: String) throws -> ChildResult {
        let modules = try #require(
            Self.modulesFolder, "no Modules folder with EventBus next to the test runner")
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("isolation-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("main.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        return try ChildProcess.run(
            "/usr/bin/env",
            [
                "swiftc", "-typecheck", "-swift-version", "6", "-I", modules, "-module-name", "Dependent",
                file.path,
            ],
            environment: ProcessInfo.processInfo.environment, timeout: 120)
    }

    /// The folder of built module interfaces in the products folder the test runner sits in.
    private static let modulesFolder: String? = BuiltProduct.productsFolders.lazy
        .map { $0.appendingPathComponent("Modules") }
        .first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("EventBus.swiftmodule").path)
        }?
        .path
}
