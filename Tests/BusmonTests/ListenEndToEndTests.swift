import Foundation
import ProcessTestSupport
import TestSupport
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `busmon --listen` as people use it: simapps dialling in with `--connect`, in a real terminal
/// and headless, with a wrong token, strangers on the port, and apps that start before busmon.
@Suite(.serialized)
struct ListenEndToEndTests {
    private let environment = ProcessInfo.processInfo.environment

    private func startApp(_ name: String, port: Int, token: String, rate: Int = 50) throws -> RunningChild {
        try ChildProcess.start(
            try SimappBinary.require(),
            [
                "--connect", "127.0.0.1:\(port)", "--token", token, "--app", name, "--rate", "\(rate)",
                "--seed", "7",
            ],
            environment: environment)
    }

    private func stop(_ apps: [RunningChild]) {
        for app in apps {
            app.send(SIGTERM)
            _ = try? app.wait()
        }
    }

    /// The header's count of refused connections (`token k3y, 2 refused`), 0 when it shows none.
    private static func refusedCount(in screen: String) -> Int {
        let header = screen.split(separator: "\n").first.map(String.init) ?? ""
        guard let range = header.range(of: " refused") else { return 0 }
        let digits = header[..<range.lowerBound].reversed().prefix { $0.isNumber }
        return Int(String(digits.reversed())) ?? 0
    }

    /// The Fleet pane's row of `app`.
    private static func row(of app: String, in screen: String) -> String? {
        screen.split(separator: "\n").map(String.init).first { line in
            line.hasPrefix(app + " ") && [" active ", " quiet ", " gone "].contains { line.contains($0) }
        }
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "tmux is not installed; the terminal tests need it"))
    func twoAppsDialInSideBySideAndAWrongTokenIsRefused() async throws {
        // busmon first, with no token: it makes one up and shows it with the address.
        let pane = try TmuxPane(
            busmon: BusmonBinary.require(), arguments: ["--listen", "127.0.0.1:0"], width: 140, height: 40,
            environment: ["LC_ALL": TestHost.utf8Locale, "NO_COLOR": nil, "BUSMON_TOKEN": nil])
        defer { pane.close() }
        let first = try await pane.waitForScreen("the address and the token in the header") { screen in
            let header = screen.split(separator: "\n").first ?? ""
            return header.contains("listening on 127.0.0.1:") && header.contains("token ")
        }
        let header = try #require(first.split(separator: "\n").first)
        let words = header.split(separator: " ")
        let address = try #require(words.first { $0.hasPrefix("127.0.0.1:") }).trimmingCharacters(in: [","])
        let port = try #require(Int(address.split(separator: ":").last ?? ""))
        let token = try #require(words.drop { $0 != "token" }.dropFirst().first).trimmingCharacters(in: [","])
        #expect(token.count == 16)

        let apps = try ["checkout", "inventory"].map { try startApp($0, port: port, token: token) }
        defer { stop(apps) }
        func bothActive(_ screen: String) -> Bool {
            screen.contains("Fleet") && screen.contains("2 apps")
                && ["checkout", "inventory"].allSatisfy { name in
                    Self.row(of: name, in: screen).map { $0.contains(" active ") && $0.contains("connected") }
                        ?? false
                }
        }
        _ = try await pane.waitForScreen("both apps active") { bothActive($0) }
        // The intruder dials from the same address once the apps are in: a wrong token refuses
        // the address for a while, which must not disturb the apps already connected.
        let intruder = try startApp("intruder", port: port, token: "not-the-token")
        defer { stop([intruder]) }
        let screen = try await pane.waitForScreen("the intruder refused, both apps still active") { screen in
            // The intruder asks again every 10 s, so on a slow machine the count may be past 1.
            bothActive(screen) && Self.refusedCount(in: screen) >= 1
        }
        #expect(Self.row(of: "intruder", in: screen) == nil, "a refused app is never shown as one")
        #expect(screen.contains("DataLoadedEvent"), "the apps' events are counted")
        try waitFor("the intruder to print the refusal") {
            intruder.standardError.contains("refused: wrong token")
        }

        // Logins carry a session token, which the log shows redacted.
        try pane.press("/")
        try pane.type("UserLoggedIn")
        try pane.press("Enter")
        let logins = try await pane.waitForScreen("a login in the log") { screen in
            screen.split(separator: "\n").contains {
                $0.contains("UserLoggedInEvent") && $0.contains("<redacted>")
            }
        }
        #expect(!logins.contains("st_"), "no token reaches the screen")

        try pane.press("q")
        #expect(try await pane.waitForExit() == "EXIT=0 TTY=restored")
        // The app that lost its monitor runs on.
        #expect(apps.allSatisfy { $0.isRunning })
    }

    @Test func headlessAppsStartedBeforeBusmonWithStrangersOnThePort() throws {
        let port = try NATSServer.freePort()
        // The app first: no busmon yet, so it waits and retries, publishing all along.
        let early = try startApp("early", port: port, token: "s3cret-token-1", rate: 100)
        defer { stop([early]) }
        try waitFor("the app to say it is not reached") { early.standardError.contains("not reached") }
        #expect(early.isRunning)

        let monitor = try ChildProcess.start(
            try BusmonBinary.require(),
            ["--listen", "127.0.0.1:\(port)", "--headless", "--duration", "6"],
            environment: environment.merging(["BUSMON_TOKEN": "s3cret-token-1"]) { $1 })
        try waitFor("the app to join") { monitor.standardError.contains("early@") }
        // Strangers: an HTTP request and random bytes, while the app streams.
        let http = try ChildProcess.run(
            "/bin/bash",
            [
                "-c",
                "exec 3<>/dev/tcp/127.0.0.1/\(port); printf 'GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n' >&3; cat <&3",
            ],
            environment: environment)
        #expect(http.standardOutput.hasPrefix("HTTP/1.0 400 Bad Request"), "\(http.standardOutput)")
        let garbage = try ChildProcess.run(
            "/bin/bash",
            ["-c", "exec 3<>/dev/tcp/127.0.0.1/\(port); head -c 300 /dev/urandom >&3; echo >&3; cat <&3"],
            environment: environment)
        #expect(garbage.standardOutput.contains(#""kind":"refused""#), "\(garbage.standardOutput)")
        let result = try monitor.wait(timeout: 60)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        let events = lines.filter { $0.hasPrefix(#"{"kind":"event""#) }
        #expect(events.count > 100, "events arrived: \(events.count)")
        #expect(events.allSatisfy { $0.contains(#""app":"early""#) }, "each with its app's name")
        let logins = events.filter { $0.contains("UserLoggedInEvent") }
        #expect(!logins.isEmpty && logins.allSatisfy { $0.contains(#""token":"<redacted>""#) })
        #expect(result.standardError.contains("listening on 127.0.0.1:\(port), token s3cret-token-1"))
        #expect(result.standardError.contains("early@") && result.standardError.contains("joined"))
        #expect(result.standardError.contains("an HTTP request"))
        #expect(early.isRunning, "the app outlives its monitor")
        try waitFor("the app to say it connected") { early.standardError.contains("connected to busmon") }
    }

    @Test func badListenAddressesAreClearErrors() throws {
        let busmon = try BusmonBinary.require()
        let usage = try ChildProcess.run(busmon, ["--listen", "nowhere"], environment: environment)
        #expect(usage.status == 2)
        #expect(usage.standardError.contains("--listen needs HOST:PORT"))
        let token = try ChildProcess.run(busmon, ["--token", "x"], environment: environment)
        #expect(token.status == 2 && token.standardError.contains("--token only applies to --listen"))
        let both = try ChildProcess.run(
            busmon, ["--listen", "127.0.0.1:0", "--attach", "/tmp/x.sock"], environment: environment)
        #expect(
            both.status == 2 && both.standardError.contains("--listen and --attach cannot be used together"))
        // A port that is taken: the first busmon listens, the second cannot.
        let port = try NATSServer.freePort()
        let holder = try ChildProcess.start(
            busmon, ["--listen", "127.0.0.1:\(port)", "--headless", "--duration", "10"],
            environment: environment)
        defer { holder.send(SIGTERM) }
        try waitFor("the first busmon to listen") { holder.standardError.contains("listening on") }
        let second = try ChildProcess.run(
            busmon, ["--listen", "127.0.0.1:\(port)", "--headless", "--duration", "1"],
            environment: environment)
        #expect(second.status == 1)
        #expect(
            second.standardError.contains("cannot listen on 127.0.0.1:\(port)"), "\(second.standardError)")
        let nobody = try ChildProcess.run(
            busmon, ["--listen", "127.0.0.1:0", "--headless", "--duration", "0.5"], environment: environment)
        #expect(nobody.status == 1, "a script must not take nobody dialling in for a quiet app")
        #expect(nobody.standardError.contains("busmon: no app dialled in to 127.0.0.1:"))
        let app = try ChildProcess.run(
            try SimappBinary.require(), ["--connect", "127.0.0.1:1"], environment: environment)
        #expect(app.status == 2 && app.standardError.contains("--connect needs --token"))
    }
}
