#if NATS
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

    /// The fleet dashboard in a real terminal: a nats-server of the test's own, two simapp
    /// processes bridged through it, and busmon attached to the server in tmux.
    @Suite(
        .serialized,
        .enabled(if: TmuxPane.isAvailable, "tmux is not installed; the terminal tests need it"),
        .enabled(if: NATSServer.isInstalled, Comment(rawValue: NATSServer.missingMessage)))
    struct FleetInTmuxTests {
        @Test func theFleetPaneShowsEachAppAndEnterFiltersTheLogByOne() async throws {
            let server = try NATSServer()
            let simapp = try #require(
                BuiltProduct.path(named: "simapp"), "simapp was not built next to the tests")
            let environment = ProcessInfo.processInfo.environment
            let apps = try ["checkout", "inventory"].map { name in
                try ChildProcess.start(
                    simapp, ["--nats", server.url, "--app", name, "--rate", "50", "--seed", "7"],
                    environment: environment)
            }
            defer {
                for app in apps {
                    app.send(SIGTERM)
                    _ = try? app.wait()
                }
            }
            let pane = try TmuxPane(
                busmon: BusmonBinary.require(), arguments: ["--attach", server.url], width: 120, height: 40,
                environment: [
                    "LC_ALL": TestHost.utf8Locale, "NO_COLOR": nil, "BUSMON_FLEET_QUIET_AFTER": "1",
                ])
            defer { pane.close() }

            // Both apps, active, their bridges connected, in the Fleet pane and the header.
            let screen = try await pane.waitForScreen("both apps active and connected") { screen in
                screen.contains("Fleet") && screen.contains("2 apps")
                    && ["checkout", "inventory"].allSatisfy { name in
                        Self.row(of: name, in: screen).map {
                            $0.contains(" active ") && $0.contains("connected")
                        }
                            ?? false
                    }
            }
            #expect(screen.contains("DataLoadedEvent"), "the apps' events are counted")

            // Enter on an app's row keeps that app's lines in the log. Focus starts on the log;
            // Tab goes round to the Fleet pane, the first, whose first row is checkout.
            try pane.press("Tab")
            try pane.press("Home")
            try pane.press("Enter")
            try await pane.waitForScreen("the log filtered by one app") { screen in
                let lines = Self.logLines(screen)
                return screen.contains("filter: app:checkout") && !lines.isEmpty
                    && lines.allSatisfy { $0.contains("checkout") }
            }

            // An app that stops is shown quiet, and the other goes on.
            apps[1].send(SIGKILL)
            try await pane.waitForScreen("inventory shown quiet or gone") { screen in
                guard let row = Self.row(of: "inventory", in: screen) else { return false }
                return row.contains("quiet") || row.contains("gone")
            }
            try pane.press("q")
            #expect(try await pane.waitForExit() == "EXIT=0 TTY=restored")
        }

        /// The Fleet pane's row of `app`.
        private static func row(of app: String, in screen: String) -> String? {
            screen.split(separator: "\n").map(String.init).first { line in
                line.hasPrefix(app + " ") && [" active ", " quiet ", " gone "].contains { line.contains($0) }
            }
        }

        private static func logLines(_ screen: String) -> [String] {
            screen.split(separator: "\n").map(String.init).filter { line in
                let parts = line.prefix(12).split(separator: ":")
                return parts.count == 3 && line.count > 12 && parts.allSatisfy { $0.first?.isNumber == true }
            }
        }
    }
#endif
