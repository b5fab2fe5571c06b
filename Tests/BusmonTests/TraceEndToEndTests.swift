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

/// `busmon --trace FILE` from every source, read back as Perfetto reads the file (see
/// ``TraceFile``): in-process, attached, dialled in by two apps, and replayed.
@Suite(.serialized)
struct TraceEndToEndTests {
    private let environment = ProcessInfo.processInfo.environment

    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("busmon-trace-\(getpid())-\(UUID().uuidString.prefix(6))-\(name)").path
    }

    /// What every trace of the simulated app shows, whichever way it was watched: the format's
    /// rules hold, handler calls are slices on named threads, publishes are instants, deliveries
    /// that waited on the main actor have their wait and an arrow from their delivery, handlers
    /// that publish have an arrow to what they published, and the counters are there.
    private func expectSimulatedAppShape(_ trace: TraceFile, process pid: Int) {
        #expect(trace.problems.isEmpty, "\(trace.problems.prefix(5))")
        let handlers = trace.handlerSlices(of: pid)
        #expect(handlers.count > 50, "handler slices: \(handlers.count)")
        #expect(handlers.contains { $0["name"] as? String == "HomeViewController DataLoadedEvent" })
        let threadNames = trace.events("M").filter {
            $0["name"] as? String == "thread_name" && $0["pid"] as? Int == pid
        }.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(threadNames.contains("main thread"), "\(threadNames)")
        #expect(threadNames.count >= 2, "the services publish off the main thread: \(threadNames)")
        let publishes = trace.events("i").filter {
            $0["cat"] as? String == "publish" && $0["pid"] as? Int == pid
        }
        #expect(publishes.count > 20)
        #expect(publishes.allSatisfy { $0["s"] as? String == "t" && $0["tid"] is Int })
        // Main-actor deliveries waited: the gap before the slice, and an arrow to it.
        let waited = handlers.filter { ($0["args"] as? [String: Any])?["waited_us"] != nil }
        #expect(!waited.isEmpty)
        #expect(!trace.events("b").filter { $0["cat"] as? String == "wait" }.isEmpty)
        // An arrow from its delivery to (nearly) every handler call: all but those of events
        // published before the app heard the request for calls.
        let intoHandlers = trace.arrows.count {
            $0.from.category == "delivery" && $0.to.category == "handler"
        }
        let allHandlers = trace.handlerSlices().count
        #expect(
            intoHandlers <= allHandlers && intoHandlers * 100 >= allHandlers * 98,
            "\(intoHandlers) of \(allHandlers)")
        // The simulated app's closures publish from their handlers: the cause chain, an arrow to
        // (nearly) every publish that has a cause.
        let caused = trace.events("i").count {
            $0["cat"] as? String == "publish" && ($0["args"] as? [String: Any])?["cause"] != nil
                && ($0["tid"] as? Int).map { $0 != 0x7FFF_FFFF } == true
        }
        let causeArrows = trace.arrows.count { $0.from.category == "handler" && $0.to.category == "publish" }
        #expect(caused > 0 && causeArrows * 100 >= caused * 95, "\(causeArrows) of \(caused)")
        #expect(
            trace.counterNames.isSuperset(of: ["live subscribers", "events per second"]),
            "\(trace.counterNames)")
        #expect(
            !trace.events("i").filter { $0["cat"] as? String == "lifecycle" && $0["s"] as? String == "p" }
                .isEmpty)
    }

    @Test func aTraceOfTheSimulatedAppInBusmonsProcess() throws {
        let path = temporaryPath("local.json")
        defer { unlink(path) }
        let run = try ChildProcess.run(
            try BusmonBinary.require(),
            ["--headless", "--seed", "3", "--rate", "300", "--duration", "3", "--trace", path],
            environment: environment)
        #expect(run.status == 0, "\(run.standardError)")
        let trace = try TraceFile(path: path)
        let pid = try #require(trace.processNames.first { $0.value.contains("simulated app") }?.key)
        expectSimulatedAppShape(trace, process: pid)
        // Headless output carries the same calls, line for line with the trace's slices.
        let calls = run.standardOutput.split(separator: "\n").count { $0.hasPrefix("{\"kind\":\"call\"") }
        #expect(calls == trace.handlerSlices().count)
    }

    @Test func anAttachedAppIsTracedAndItsRecordingReplaysToTheSameTrace() throws {
        let socket = temporaryPath("tap.sock")
        let (tracePath, recording, replayTrace) = (
            temporaryPath("attach.json"), temporaryPath("attach.jsonl"), temporaryPath("replay.json")
        )
        defer { for path in [socket, tracePath, recording, replayTrace] { unlink(path) } }
        let app = try ChildProcess.start(
            try SimappBinary.require(), ["--tap", socket, "--rate", "300", "--seed", "4"],
            environment: environment)
        defer {
            app.send(SIGKILL)
            _ = try? app.wait()
        }
        try waitFor("the tap socket") { FileManager.default.fileExists(atPath: socket) }
        let run = try ChildProcess.run(
            try BusmonBinary.require(),
            [
                "--attach", socket, "--headless", "--duration", "3", "--trace", tracePath, "--record",
                recording,
            ],
            environment: environment)
        #expect(run.status == 0, "\(run.standardError)")
        let trace = try TraceFile(path: tracePath)
        #expect(trace.processNames[Int(app.pid)] == "simapp (pid \(app.pid))", "\(trace.processNames)")
        expectSimulatedAppShape(trace, process: Int(app.pid))

        // The recording holds the calls too: its replay traces the same slices and arrows.
        let replay = try ChildProcess.run(
            try BusmonBinary.require(),
            ["--replay", recording, "--speed", "50", "--headless", "--trace", replayTrace],
            environment: environment)
        #expect(replay.status == 0, "\(replay.standardError)")
        #expect(
            replay.standardError.contains("from the recording's handler calls"), "a replay has no app to ask")
        let replayed = try TraceFile(path: replayTrace)
        #expect(replayed.problems.isEmpty, "\(replayed.problems.prefix(5))")
        #expect(replayed.handlerSlices().count == trace.handlerSlices().count)
        #expect(replayed.arrows.count == trace.arrows.count)
        #expect(replayed.processNames == trace.processNames)
    }

    @Test func twoAppsThatDialInAreTwoProcesses() throws {
        let port = try LoopbackPort.free()
        let token = "tracetoken0123456"
        let path = temporaryPath("listen.json")
        defer { unlink(path) }
        let monitor = try ChildProcess.start(
            try BusmonBinary.require(),
            [
                "--listen", "127.0.0.1:\(port)", "--token", token, "--headless", "--duration", "6", "--trace",
                path,
            ],
            environment: environment)
        try waitFor("busmon to listen") { LoopbackPort.accepts(port) }
        let apps = try [("alpha", 5), ("beta", 6)].map { name, seed in
            try ChildProcess.start(
                try SimappBinary.require(),
                [
                    "--connect", "127.0.0.1:\(port)", "--token", token, "--app", name, "--rate", "200",
                    "--seed",
                    "\(seed)", "--duration", "3",
                ], environment: environment)
        }
        for app in apps { _ = try app.wait() }
        let result = try monitor.wait()
        #expect(result.status == 0, "\(result.standardError)")
        Self.expectEachApp(
            in: try TraceFile(path: path), apps: zip(apps, ["alpha", "beta"]).map { ($0, $1) },
            handlerSlices: 50)
    }

    /// What a trace of several apps shows of each: a well-formed trace, a process per app named
    /// after it (`alpha on host (pid N)`), with more than `handlerSlices` handler calls.
    static func expectEachApp(in trace: TraceFile, apps: [(RunningChild, String)], handlerSlices: Int) {
        #expect(trace.problems.isEmpty, "\(trace.problems.prefix(5))")
        for (app, name) in apps {
            let pid = Int(app.pid)
            #expect(trace.processNames[pid]?.hasPrefix("\(name) on ") == true, "\(trace.processNames)")
            #expect(trace.handlerSlices(of: pid).count > handlerSlices, "\(name)")
        }
    }

    @Test func withoutATraceNoHandlerCallTravels() throws {
        let socket = temporaryPath("tap.sock")
        defer { unlink(socket) }
        let app = try ChildProcess.start(
            try SimappBinary.require(), ["--tap", socket, "--rate", "300"], environment: environment)
        defer {
            app.send(SIGKILL)
            _ = try? app.wait()
        }
        try waitFor("the tap socket") { FileManager.default.fileExists(atPath: socket) }
        let run = try ChildProcess.run(
            try BusmonBinary.require(), ["--attach", socket, "--headless", "--duration", "2"],
            environment: environment)
        #expect(run.status == 0, "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("{\"kind\":\"event\"") })
        #expect(!lines.contains { $0.hasPrefix("{\"kind\":\"call\"") })
        // Events say nothing of threads either: that too is noted only while tracing.
        #expect(!lines.contains { $0.contains("\"publishedNs\"") })
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "tmux is not installed; the terminal tests need it"))
    func theDashboardSaysItTracesAndTheTraceIsWholeWhenItQuits() async throws {
        let path = temporaryPath("dashboard.json")
        defer { unlink(path) }
        let pane = try TmuxPane(
            busmon: BusmonBinary.require(), arguments: ["--seed", "5", "--trace", path], width: 140,
            height: 40,
            environment: ["LC_ALL": TestHost.utf8Locale])
        defer { pane.close() }
        // The log says a trace is being written, and where (filtered for, as the app's first
        // lines push it up at once).
        _ = try await pane.waitForScreen(containing: "HomeViewController")
        try pane.press("/")
        try pane.type("tracing")
        try pane.press("Enter")
        _ = try await pane.waitForScreen(containing: "tracing to \(path)")
        try pane.press("q")
        #expect(try await pane.waitForExit() == "EXIT=0 TTY=restored")
        // The file ends with the array's `]`, and reads as a trace.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasSuffix("]\n"))
        let trace = try TraceFile(path: path)
        #expect(trace.problems.isEmpty, "\(trace.problems.prefix(5))")
        #expect(!trace.handlerSlices().isEmpty)
    }

    @Test(
        "a trace that stops on a full disk makes the exit status 1, as a recording does",
        .enabled(if: TestHost.fullDevice != nil, "this host has no device that is always full"))
    func aFullDiskStopsTheTraceAndSaysSo() throws {
        let device = try #require(TestHost.fullDevice)
        let result = try ChildProcess.run(
            try BusmonBinary.require(), ["--headless", "--duration", "1.5", "--trace", device],
            environment: environment)
        #expect(result.status == 1)
        // Said once, as a warning when it happened.
        let stopped = "trace to \(device) stopped: No space left on device"
        #expect(
            result.standardError.components(separatedBy: "\n").filter { $0.contains(stopped) }
                == ["busmon: warning: \(stopped)"],
            "\(result.standardError)")
    }

    @Test func aTracePathThatCannotBeWrittenIsRefusedAtOnce() throws {
        let run = try ChildProcess.run(
            try BusmonBinary.require(),
            ["--headless", "--duration", "1", "--trace", "/nonexistent/dir/t.json"],
            environment: environment)
        #expect(run.status == 1)
        #expect(
            run.standardError
                == "busmon: cannot write trace /nonexistent/dir/t.json: No such file or directory\n",
            "\(run.standardError)")
    }
}
