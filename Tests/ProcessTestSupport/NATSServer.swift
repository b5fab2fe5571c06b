import BusWire
import Foundation
import TestSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A `nats-server` of a test's own: a free loopback port, JetStream on, its storage in a
/// temporary folder, killed when the value goes away.
///
/// It can be stopped and started again on the same port, as a server that crashed and came back:
///
/// ```swift
/// let server = try NATSServer()
/// let bridge = try NATSBridge(bus: bus, url: server.url, app: "checkout")
/// server.stop()
/// try server.start()
/// ```
///
/// Tests that need one check ``isInstalled`` first and say ``missingMessage`` when it is not,
/// so that a machine without nats-server fails them visibly rather than passing them.
package final class NATSServer {
    /// What a test says when there is no nats-server.
    package static let missingMessage = "nats-server not installed: apt-get install nats-server"

    /// The nats-server executable: on the PATH, or where Debian puts it (/usr/sbin, which is not
    /// on every user's PATH).
    package static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders =
            path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/usr/local/bin"]
        return folders.map { $0 + "/nats-server" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Whether tests can start a server here.
    package static var isInstalled: Bool { executable != nil }

    /// The loopback port the server listens on, the same across restarts.
    package let port: Int
    /// `nats://127.0.0.1:<port>`.
    package var url: String { "nats://127.0.0.1:\(port)" }

    private let storage = TemporaryDirectory()
    private var child: RunningChild?

    /// Starts a server on a free loopback port and waits until it accepts connections.
    ///
    /// - Throws: When nats-server is missing, or it did not start listening within 10 seconds.
    package init() throws {
        port = try Self.freePort()
        credentials = nil
        try start()
    }

    /// Starts a server that admits only `user` with `password`.
    package init(user: String, password: String) throws {
        port = try Self.freePort()
        credentials = (user, password)
        try start()
    }

    /// The user and password the server asks for, if it asks.
    private let credentials: (user: String, password: String)?

    deinit {
        stop()
    }

    /// Whether the server is running now.
    package var isRunning: Bool { child?.isRunning ?? false }

    /// Starts the server (again) on ``port``, with the same JetStream storage, and waits until it
    /// accepts connections. Does nothing while it runs.
    package func start() throws {
        guard !isRunning else { return }
        guard let executable = Self.executable else {
            throw ChildProcess.Failure(description: Self.missingMessage)
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        var lastError = ""
        while clock.now < deadline {
            let started = try ChildProcess.start(
                executable,
                ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", storage.path]
                    + (credentials.map { ["--user", $0.user, "--pass", $0.password] } ?? []),
                environment: ProcessInfo.processInfo.environment)
            child = started
            while clock.now < deadline && started.isRunning {
                if LoopbackPort.accepts(port) { return }
                usleep(10_000)
            }
            // A restart right after a kill may find the port still held for a moment:
            // nats-server then exits, and is started again.
            lastError = (try? started.wait(timeout: 1).standardError) ?? ""
            child = nil
            usleep(100_000)
        }
        stop()
        throw ChildProcess.Failure(
            description: "nats-server did not listen on port \(port) within 10 s: \(lastError)")
    }

    /// Kills the server at once (SIGKILL, as a crash would) and waits for it to exit.
    package func stop() {
        guard let child else { return }
        self.child = nil
        child.send(SIGKILL)
        _ = try? child.wait(timeout: 10)
    }

    /// A loopback port nothing listens on now: one the kernel picks, released again.
    package static func freePort() throws -> Int {
        try LoopbackPort.free()
    }
}
