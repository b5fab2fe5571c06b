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

    /// Without nats-server the fleet's end-to-end tests cannot run; this one says so rather than
    /// let the suite pass with nothing tested.
    @Test func natsServerIsInstalledForTheFleetTests() {
        if !NATSServer.isInstalled { Issue.record(Comment(rawValue: NATSServer.missingMessage)) }
    }

    /// A fleet as a user runs it: a nats-server of the test's own, simapp processes bridged
    /// through it (`--nats`), and `busmon --attach nats://… --headless` reading them all.
    @Suite(.serialized, .enabled(if: NATSServer.isInstalled, Comment(rawValue: NATSServer.missingMessage)))
    struct FleetEndToEndTests {
        /// Presence times short enough for a test: quiet after 1 s, gone after 3 s.
        private let environment = ProcessInfo.processInfo.environment.merging([
            "BUSMON_FLEET_QUIET_AFTER": "1", "BUSMON_FLEET_GONE_AFTER": "3",
        ]) { $1 }

        private func simapp(
            _ server: NATSServer, app: String, rate: Int, duration: Double? = nil, stream: Bool = false
        ) throws -> RunningChild {
            let path = try #require(
                BuiltProduct.path(named: "simapp"), "simapp was not built next to the tests")
            var arguments = ["--nats", server.url, "--app", app, "--rate", String(rate), "--seed", "7"]
            if let duration { arguments += ["--duration", String(duration)] }
            if stream { arguments.append("--stream") }
            return try ChildProcess.start(path, arguments, environment: environment)
        }

        private func busmon(_ server: NATSServer, _ extra: [String]) throws -> RunningChild {
            try ChildProcess.start(
                try BusmonBinary.require(), ["--attach", server.url, "--headless"] + extra,
                environment: environment)
        }

        @Test func twoAppsArriveWithTheirOriginsAndTheirOwnCounts() throws {
            // Given one server, and busmon watching it
            let server = try NATSServer()
            let monitor = try busmon(server, ["--duration", "12"])
            try waitFor("busmon to connect") { monitor.standardOutput.contains("\"kind\":\"summary\"") }

            // When two apps publish through it, and end
            let alpha = try simapp(server, app: "alpha", rate: 150, duration: 3)
            let beta = try simapp(server, app: "beta", rate: 80, duration: 4)
            let alphaResult = try alpha.wait()
            let betaResult = try beta.wait()
            #expect(alphaResult.status == 0, "\(alphaResult.standardError)")
            #expect(betaResult.status == 0, "\(betaResult.standardError)")
            let result = try monitor.wait()
            #expect(result.status == 0, "\(result.standardError)")

            // Then busmon saw each app's events, every one, with its app, host and pid,
            let output = FleetOutput(result.standardOutput)
            for (name, child, run) in [("alpha", alpha, alphaResult), ("beta", beta, betaResult)] {
                let published = try #require(
                    SimappOutput.published(run.standardOutput), "\(run.standardOutput)")
                #expect(output.events(of: name).count == published, "\(name): nothing is dropped on loopback")
                #expect(output.events(of: name).allSatisfy { $0["pid"] as? Int == Int(child.pid) })
                #expect(output.events(of: name).allSatisfy { ($0["host"] as? String)?.isEmpty == false })
                // and its bus's own counters, type by type, from its last snapshot.
                let counted = try #require(output.lastSnapshotCounts(of: name), "no snapshot of \(name)")
                #expect(counted == SimappOutput.perType(run.standardOutput), "\(name)")
                #expect(counted.values.reduce(0, +) == published)
            }
            // Both left, and said so.
            #expect(output.lastFleet?.map { $0["presence"] as? String } == ["gone", "gone"])
            #expect(result.standardError.contains("alpha@"), "\(result.standardError)")
            #expect(result.standardError.contains("left (its bridge closed)"), "\(result.standardError)")
        }

        @Test func aTraceOfTwoBridgedAppsShowsBothWithTheirHandlerCalls() throws {
            // Given busmon tracing a fleet,
            let server = try NATSServer()
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("busmon-fleet-trace-\(getpid())-\(UUID().uuidString.prefix(6)).json")
                .path
            defer { unlink(path) }
            let monitor = try busmon(server, ["--duration", "10", "--trace", path])
            try waitFor("busmon to connect") { monitor.standardErrorText.contains("connected to") }

            // when two apps publish through it,
            let apps = try [("alpha", 150), ("beta", 80)].map {
                try simapp(server, app: $0, rate: $1, duration: 4)
            }
            for app in apps { #expect(try app.wait().status == 0) }
            let result = try monitor.wait()
            #expect(result.status == 0, "\(result.standardError)")

            // then the trace holds both, each a process named after its app, with its handler
            // calls on its threads (asked of each bridge while the trace was written).
            let trace = try TraceFile(path: path)
            TraceEndToEndTests.expectEachApp(
                in: trace, apps: zip(apps, ["alpha", "beta"]).map { ($0, $1) }, handlerSlices: 20)
            #expect(trace.arrows.contains { $0.from.category == "delivery" && $0.to.category == "handler" })
        }

        @Test func aServerRestartIsSurvivedAndAKilledAppIsGoneWhileTheOtherGoesOn() throws {
            let server = try NATSServer()
            let monitor = try busmon(server, [])
            let alpha = try simapp(server, app: "alpha", rate: 100)
            let beta = try simapp(server, app: "beta", rate: 100)
            defer {
                for child in [alpha, beta, monitor] { child.send(SIGKILL) }
            }
            try waitFor("events of both apps") {
                let output = FleetOutput(monitor.standardOutput)
                return output.events(of: "alpha").count > 20 && output.events(of: "beta").count > 20
            }

            // When the server dies and comes back on the same port,
            server.stop()
            let before = FleetOutput(monitor.standardOutput)
            let (alphaBefore, betaBefore) = (
                before.events(of: "alpha").count, before.events(of: "beta").count
            )
            usleep(500_000)
            try server.start()

            // then busmon reconnects, and both apps' events go on arriving.
            try waitFor("busmon to reconnect") {
                monitor.isRunning && monitor.standardErrorText.contains("reconnected to")
            }
            try waitFor("events of both apps after the restart") {
                let output = FleetOutput(monitor.standardOutput)
                return output.events(of: "alpha").count > alphaBefore + 50
                    && output.events(of: "beta").count > betaBefore + 50
            }

            // When one app is killed (no goodbye from its bridge), it turns gone, and the other
            // goes on.
            alpha.send(SIGKILL)
            _ = try alpha.wait()
            try waitFor("alpha to be gone") {
                FleetOutput(monitor.standardOutput).lastFleet?.first { $0["app"] as? String == "alpha" }?[
                    "presence"]
                    as? String == "gone"
            }
            let betaThen = FleetOutput(monitor.standardOutput).events(of: "beta").count
            try waitFor("beta to go on") {
                FleetOutput(monitor.standardOutput).events(of: "beta").count > betaThen + 50
            }
            let fleet = FleetOutput(monitor.standardOutput).lastFleet
            #expect(fleet?.first { $0["app"] as? String == "beta" }?["presence"] as? String == "active")
            let notices = monitor.standardErrorText
            #expect(notices.contains("is quiet: nothing from it for 1 s"), "\(notices)")
            #expect(notices.contains("is gone: nothing from it for 3 s"), "\(notices)")
            #expect(notices.contains("disconnected from \(server.url)"), "\(notices)")

            beta.send(SIGTERM)
            #expect(try beta.wait().status == 0)
            monitor.send(SIGTERM)
            #expect(try monitor.wait().status == 128 + SIGTERM)
        }

        @Test func aURLsPasswordStaysOutOfEverythingBusmonWritesAndAListReachesItsLiveServer() throws {
            let server = try NATSServer(user: "alice", password: "s3cretpass")
            let dead = try NATSServer.freePort()
            let folder = TemporaryDirectory()
            let url = "nats://127.0.0.1:\(dead), nats://alice:s3cretpass@127.0.0.1:\(server.port)"
            let monitor = try ChildProcess.start(
                try BusmonBinary.require(),
                [
                    "--attach=\(url)", "--headless", "--duration", "4", "--record",
                    folder.file("fleet.jsonl"),
                    "--graph", folder.file("fleet.dot"), "--trace", folder.file("fleet.json"),
                ], environment: environment)
            // Nobody reading the command line sees it either.
            #if os(Linux)
                try waitFor("busmon to start") { monitor.standardErrorText.contains("connected to") }
                let commandLine = try String(
                    decoding: Data(contentsOf: URL(fileURLWithPath: "/proc/\(monitor.pid)/cmdline")),
                    as: UTF8.self)
                #expect(!commandLine.contains("s3cretpass"), "\(commandLine)")
                #expect(commandLine.contains("nats://alice:xxxxxxxxxx@127.0.0.1"), "\(commandLine)")
            #endif
            let app = try ChildProcess.start(
                try #require(BuiltProduct.path(named: "simapp"), "simapp was not built next to the tests"),
                [
                    "--nats", "nats://alice:s3cretpass@127.0.0.1:\(server.port)", "--app", "shop",
                    "--duration", "2",
                ],
                environment: environment)
            let result = try monitor.wait()
            let appResult = try app.wait()
            #expect(appResult.status == 0)
            #expect(result.status == 0, "\(result.standardError)")
            // simapp names the server it bridges to without the password as well.
            #expect(
                appResult.standardOutput.contains("bridged to nats://alice:***@127.0.0.1"),
                "\(appResult.standardOutput)")
            #expect(!(appResult.standardOutput + appResult.standardError).contains("s3cretpass"))
            // The second server of the list was reached, and the app's events came through it.
            #expect(FleetOutput(result.standardOutput).events(of: "shop").count > 0)
            #expect(
                result.standardError.contains(
                    "connected to nats://127.0.0.1:\(dead), nats://alice:***@127.0.0.1"))
            let written = try ["fleet.jsonl", "fleet.dot", "fleet.json"].map {
                try String(contentsOfFile: folder.file($0), encoding: .utf8)
            }
            for text in written + [result.standardOutput, result.standardError] {
                #expect(!text.contains("s3cretpass"))
            }

            // A wrong password: the server was reached and said no, which busmon tells apart.
            let refused = try ChildProcess.run(
                try BusmonBinary.require(),
                [
                    "--attach", "nats://alice:wrongpass@127.0.0.1:\(server.port)", "--headless", "--duration",
                    "2",
                ],
                environment: environment)
            #expect(refused.status == 1)
            #expect(
                refused.standardError.contains("are the user, password or token right?"),
                "\(refused.standardError)")
            #expect(!refused.standardError.contains("wrongpass"))
        }

        @Test func aTLSURLNeverConnectsInClearText() throws {
            // A server that offers no TLS: a tls:// URL must not be answered in plain text.
            let server = try NATSServer()
            let result = try ChildProcess.run(
                try BusmonBinary.require(),
                ["--attach", "tls://127.0.0.1:\(server.port)", "--headless", "--duration", "2"],
                environment: environment)
            #expect(result.status == 1, "\(result.standardError)")
            #expect(
                result.standardError.contains(
                    "nats.c gave up on it; a tls:// URL needs a server that offers TLS"),
                "\(result.standardError)")
            #expect(!result.standardError.contains("connected to"), "\(result.standardError)")
        }

        @Test func sinceReplaysTheHistoryThenFollowsLiveWithoutDuplicates() throws {
            let server = try NATSServer()
            // Without a stream there is no history, and busmon says so, then goes live.
            let early = try busmon(server, ["--since", "5m", "--duration", "1"]).wait()
            #expect(early.status == 0)
            #expect(
                early.standardError.contains("cannot replay history: no JetStream stream"),
                "\(early.standardError)")

            // Given an app that published and ended before busmon started (its bridge keeps a
            // stream), and one that is still publishing while busmon replays
            let alpha = try simapp(server, app: "alpha", rate: 200, duration: 2, stream: true).wait()
            #expect(alpha.status == 0, "\(alpha.standardError)")
            let beta = try simapp(server, app: "beta", rate: 200, duration: 8, stream: true)
            // (beta's events are on the server, which a live watcher sees, so the stream has
            // them too)
            let watcher = try busmon(server, ["--duration", "8"])
            try waitFor("beta's events on the server") {
                FleetOutput(watcher.standardOutput).events(of: "beta").count > 50
            }
            watcher.send(SIGKILL)
            let monitor = try busmon(server, ["--since", "10m", "--duration", "10"])
            // The seam is crossed while beta still publishes: its events come from the history,
            // then live.
            try waitFor("busmon to replay the history and go live") {
                monitor.standardErrorText.contains("from history; now live")
            }
            #expect(beta.isRunning, "beta stopped before busmon went live: the seam was not tested")
            let betaResult = try beta.wait()
            let result = try monitor.wait()
            #expect(result.status == 0, "\(result.standardError)")

            // Then busmon has every event of both, once: the history, then live from the seam.
            let output = FleetOutput(result.standardOutput)
            #expect(output.events(of: "alpha").count == SimappOutput.published(alpha.standardOutput))
            #expect(output.events(of: "beta").count == SimappOutput.published(betaResult.standardOutput))
            #expect(result.standardError.contains("joined (from history)"), "\(result.standardError)")
            #expect(result.standardError.contains("from history; now live"), "\(result.standardError)")

            // A --since longer than the clock has run since 1970 asks for all the stream kept.
            let everything = try busmon(server, ["--since", "99999999999h", "--duration", "3"]).wait()
            #expect(everything.status == 0, "\(everything.standardError)")
            #expect(
                FleetOutput(everything.standardOutput).events(of: "alpha").count
                    == SimappOutput.published(alpha.standardOutput))
        }
    }

    /// busmon's headless output, parsed.
    private struct FleetOutput {
        let lines: [[String: Any]]

        init(_ text: String) {
            // The last line may be cut short while busmon writes it.
            lines = text.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }

        func events(of app: String) -> [[String: Any]] {
            lines.filter { $0["kind"] as? String == "event" && $0["app"] as? String == app }
        }

        /// Published per type in the app's last snapshot.
        func lastSnapshotCounts(of app: String) -> [String: Int]? {
            guard
                let snapshot = lines.last(where: {
                    $0["kind"] as? String == "snapshot" && $0["app"] as? String == app
                }),
                let types = snapshot["eventTypes"] as? [[String: Any]]
            else { return nil }
            var counts: [String: Int] = [:]
            for type in types {
                if let name = type["typeName"] as? String, let published = type["published"] as? Int,
                    published > 0
                {
                    counts[name] = published
                }
            }
            return counts
        }

        var lastFleet: [[String: Any]]? {
            lines.last { $0["kind"] as? String == "fleet" }?["members"] as? [[String: Any]]
        }
    }

    /// What simapp prints when it ends.
    private enum SimappOutput {
        static func published(_ output: String) -> Int? {
            guard let line = output.split(separator: "\n").last(where: { $0.contains("published") }) else {
                return nil
            }
            let words = line.split(separator: " ")
            return words.firstIndex(of: "published").flatMap { Int(words[$0 + 1]) }
        }

        /// `simapp: by type A=1 B=2`.
        static func perType(_ output: String) -> [String: Int] {
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("simapp: by type") })
            else {
                return [:]
            }
            var counts: [String: Int] = [:]
            for pair in line.dropFirst("simapp: by type".count).split(separator: " ") {
                let parts = pair.split(separator: "=")
                if parts.count == 2, let count = Int(parts[1]) { counts[String(parts[0])] = count }
            }
            return counts
        }
    }

    extension RunningChild {
        /// What the child has written to stderr so far.
        fileprivate var standardErrorText: String {
            standardError
        }
    }
#endif
