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

/// Two processes, as a user runs them: `simapp --tap PATH` publishing, `busmon --attach PATH`
/// watching (headless, so the output can be read), plus recording and replaying.
@Suite(.serialized)
struct AttachEndToEndTests {
    private let environment = ProcessInfo.processInfo.environment

    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("busmon-e2e-\(getpid())-\(UUID().uuidString.prefix(6))-\(name)").path
    }

    /// Runs the simulated app headless for 2 s at `rate`, recording to `path`, and expects it to
    /// succeed.
    @discardableResult
    private func recordHeadless(seed: Int, rate: Int, to path: String) throws -> ChildResult {
        let run = try ChildProcess.run(
            try BusmonBinary.require(),
            ["--headless", "--seed", "\(seed)", "--rate", "\(rate)", "--duration", "2", "--record", path],
            environment: environment)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        return run
    }

    /// How many event records the recording at `path` holds.
    private func eventRecords(in path: String) throws -> Int {
        try String(contentsOfFile: path, encoding: .utf8)
            .split(separator: "\n").count { $0.hasPrefix("{\"kind\":\"event\"") }
    }

    @Test func countsSeenByBusmonMatchWhatSimappPublished() throws {
        let socket = temporaryPath("tap.sock")
        let app = try ChildProcess.start(
            try SimappBinary.require(), ["--tap", socket, "--rate", "300", "--duration", "3"],
            environment: environment)
        try waitFor("the tap socket") { FileManager.default.fileExists(atPath: socket) }

        // Long enough for simapp to finish and go away first, with room for a loaded machine
        // (a sanitizer build of the whole suite) on which it starts and stops slowly.
        let monitor = try ChildProcess.run(
            try BusmonBinary.require(), ["--attach", socket, "--headless", "--duration", "12"],
            environment: environment)
        let appResult = try app.wait()

        #expect(appResult.status == 0)
        #expect(monitor.status == 0, "stderr: \(monitor.standardError)")
        let published = try #require(publishedCount(appResult.standardOutput))
        let lines = try jsonLines(monitor.standardOutput)
        #expect(
            lines.first?["kind"] as? String == "hello" || lines.contains { $0["kind"] as? String == "event" })
        let summary = try #require(lines.last { $0["kind"] as? String == "summary" })
        // The bus's own counter, from the tap's last snapshot, is exactly what simapp published.
        #expect(summary["published"] as? Int == published)
        let seen = try #require(summary["events"] as? Int)
        #expect(seen > 0 && seen <= published)
        #expect(summary["status"] as? String == "detached", "simapp went away first")
        // The attach and the detach are told on stderr, beside the output.
        let notices = monitor.standardError.split(separator: "\n")
        #expect(
            notices.first?.hasPrefix("busmon: attached to simapp (pid ") == true, "\(monitor.standardError)")
        #expect(
            notices.contains { $0.hasPrefix("busmon: detached from simapp (pid ") },
            "\(monitor.standardError)")
    }

    @Test func killingBusmonLeavesTheAppRunning() throws {
        let socket = temporaryPath("tap.sock")
        let app = try ChildProcess.start(
            try SimappBinary.require(), ["--tap", socket, "--rate", "1000000", "--duration", "3"],
            environment: environment)
        try waitFor("the tap socket") { FileManager.default.fileExists(atPath: socket) }
        let monitor = try ChildProcess.start(
            try BusmonBinary.require(), ["--attach", socket, "--headless"], environment: environment)
        try waitFor("busmon to receive events") { monitor.standardOutput.contains("\"kind\":\"event\"") }

        monitor.send(SIGKILL)
        #expect(try monitor.wait().status == 128 + SIGKILL)

        let appResult = try app.wait()
        #expect(
            appResult.status == 0, "simapp survives a monitor dying mid-stream: \(appResult.standardError)")
        #expect((publishedCount(appResult.standardOutput) ?? 0) > 0)
    }

    @Test func busmonSaysDetachedAndReattachesWhenTheAppComesBack() throws {
        let socket = temporaryPath("tap.sock")
        let first = try ChildProcess.start(
            try SimappBinary.require(), ["--tap", socket, "--rate", "200"], environment: environment)
        try waitFor("the tap socket") { FileManager.default.fileExists(atPath: socket) }
        let monitor = try ChildProcess.start(
            try BusmonBinary.require(), ["--attach", socket, "--headless", "--duration", "20"],
            environment: environment)
        try waitFor("an attached summary") { monitor.standardOutput.contains("\"status\":\"attached\"") }

        // The app dies without cleaning up: its socket file stays behind.
        first.send(SIGKILL)
        _ = try first.wait()
        try waitFor("a detached summary") { monitor.standardOutput.contains("\"status\":\"detached\"") }
        let eventsWhileDetached = monitor.standardOutput.components(separatedBy: "\"kind\":\"event\"").count

        // A new app replaces the stale socket, and busmon attaches to it by itself.
        let second = try ChildProcess.start(
            try SimappBinary.require(), ["--tap", socket, "--rate", "200", "--seed", "2"],
            environment: environment)
        try waitFor("busmon to reattach") {
            let output = monitor.standardOutput
            let lastSummary = output.split(separator: "\n").last { $0.contains("\"kind\":\"summary\"") } ?? ""
            return lastSummary.contains("\"status\":\"attached\"")
                && output.components(separatedBy: "\"kind\":\"event\"").count > eventsWhileDetached + 10
        }
        second.send(SIGTERM)
        #expect(try second.wait().status == 0)
        monitor.send(SIGTERM)
        #expect(try monitor.wait().status == 128 + SIGTERM)
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "tmux is not installed"))
    func theDashboardNamesTheAttachedAppAndSaysWhenItIsGone() async throws {
        let socket = temporaryPath("tap.sock")
        let app = try ChildProcess.start(
            try SimappBinary.require(), ["--tap", socket, "--rate", "100"], environment: environment)
        try waitFor("the tap socket") { FileManager.default.fileExists(atPath: socket) }
        let pane = try TmuxPane(
            busmon: BusmonBinary.require(), arguments: ["--attach", socket],
            environment: ["LC_ALL": TestHost.utf8Locale])
        defer { pane.close() }

        // The header's title is read as the frame is drawn and its state from the frame's batch,
        // so for one frame the app's name may show before `attached` does: wait for both.
        try await pane.waitForScreen("the app's name and attached") { screen in
            screen.contains("simapp (pid \(app.pid)") && screen.contains("attached")
        }
        try await pane.waitForScreen(containing: "UserLoggedInEvent")

        app.send(SIGTERM)
        _ = try app.wait()
        let detached = try await pane.waitForScreen(containing: "detached")
        #expect(detached.contains("UserLoggedInEvent"), "the data stays on screen")
        try pane.press("q")
        #expect(try await pane.waitForExit() == "EXIT=0 TTY=restored")
    }

    @Test("--headless and --record of one run hold the same records in the same order")
    func headlessOutputAndRecordingAgree() throws {
        let recording = temporaryPath("same.jsonl")
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let run = try recordHeadless(seed: 5, rate: 300, to: recording)
        let recorded = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n")
        // Headless output adds summaries (and, for a fleet, its members) between the records;
        // it starts with the same hello, so that it replays as the recording does.
        let output = run.standardOutput.split(separator: "\n")
            .filter { !$0.hasPrefix(#"{"kind":"summary""#) && !$0.hasPrefix(#"{"kind":"fleet""#) }
        #expect(recorded.count > 100)
        #expect(recorded.first?.hasPrefix(#"{"kind":"hello""#) == true)
        #expect(recorded.contains { $0.hasPrefix(#"{"kind":"lifecycle""#) })
        #expect(recorded.contains { $0.hasPrefix(#"{"kind":"snapshot""#) })
        #expect(output == recorded)
    }

    @Test func aRecordingReplaysToTheSameTotals() throws {
        let recording = temporaryPath("session.jsonl")
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let live = try recordHeadless(seed: 3, rate: 100, to: recording)
        let replay = try ChildProcess.run(
            try BusmonBinary.require(), ["--headless", "--replay", recording, "--speed", "1000"],
            environment: environment)
        #expect(replay.status == 0, "stderr: \(replay.standardError)")

        let liveSummary = try #require(
            try jsonLines(live.standardOutput).last { $0["kind"] as? String == "summary" })
        let replaySummary = try #require(
            try jsonLines(replay.standardOutput).last { $0["kind"] as? String == "summary" })
        #expect(replaySummary["status"] as? String == "replay finished")
        #expect(replaySummary["events"] as? Int == liveSummary["events"] as? Int)
        #expect((replaySummary["types"] as? [String: Int]) == (liveSummary["types"] as? [String: Int]))
        #expect((liveSummary["events"] as? Int ?? 0) > 0)
    }

    @Test func anOutputThatCannotBeWrittenLeavesTheOtherFilesAsTheyWere() throws {
        let recording = temporaryPath("kept.jsonl")
        let trace = temporaryPath("new-trace.json")
        try "an older recording\n".write(toFile: recording, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let result = try ChildProcess.run(
            try BusmonBinary.require(),
            [
                "--headless", "--duration", "1", "--record", recording, "--trace", trace, "--graph",
                "/nonexistent/folder/graph.dot",
            ],
            environment: environment)
        #expect(result.status == 1)
        #expect(result.standardError.contains("/nonexistent/folder/graph.dot"), "\(result.standardError)")
        #expect(try String(contentsOfFile: recording, encoding: .utf8) == "an older recording\n")
        #expect(!FileManager.default.fileExists(atPath: trace), "busmon never started: no trace of it")
    }

    @Test(
        "a recording and a trace cut short by `ulimit -f` end with their last whole record: the one replays, the other opens"
    )
    func filesCutShortEndWhole() throws {
        let recording = temporaryPath("cut.jsonl")
        let trace = temporaryPath("cut.trace.json")
        defer {
            try? FileManager.default.removeItem(atPath: recording)
            try? FileManager.default.removeItem(atPath: trace)
        }
        // The files may grow to 256 blocks (128 KiB or more), less than 3 s of records and calls
        // at this rate; busmon ignores SIGXFSZ, so the write that passes the limit fails with
        // "File too large" part way through its batch. The headless output goes where no limit
        // applies, so that busmon runs on.
        let result = try ChildProcess.run(
            "/bin/sh",
            [
                "-c", #"ulimit -f 256 && exec "$0" "$@" > /dev/null"#, try BusmonBinary.require(),
                "--headless",
                "--rate", "500", "--duration", "3", "--record", recording, "--trace", trace,
            ],
            environment: environment)
        #expect(result.status == 1)
        #expect(result.standardError.contains("stopped: File too large"), "\(result.standardError)")
        let recorded = try String(contentsOfFile: recording, encoding: .utf8)
        #expect(recorded.hasSuffix("\n"))
        #expect(try !jsonLines(recorded).isEmpty, "every line whole")
        let traced = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(traced.hasSuffix("\n"))
        // A trace that stopped lacks only its closing bracket, as one of a run killed would.
        let events = try #require(
            try JSONSerialization.jsonObject(with: Data((traced + "]").utf8)) as? [Any])
        #expect(!events.isEmpty)
    }

    @Test(.enabled(if: TestHost.fullDevice != nil, "this host has no device that is always full"))
    func aFullDiskStopsRecordingButNotTheMonitor() throws {
        // Writing to the full device fails with ENOSPC, as a full disk does.
        let result = try ChildProcess.run(
            try BusmonBinary.require(),
            [
                "--headless", "--rate", "100", "--duration", "1.5", "--record",
                try #require(TestHost.fullDevice),
            ],
            environment: environment)
        // The watching went on, but the recording is not whole: the status says so, and why.
        #expect(result.status == 1)
        // Said once, when it happened, and not again at the end.
        let stopped = "recording to \(try #require(TestHost.fullDevice)) stopped: No space left on device"
        #expect(
            result.standardError.components(separatedBy: "\n").filter { $0.contains(stopped) }
                == ["busmon: warning: \(stopped)"],
            "\(result.standardError)")
        let summary = try #require(
            try jsonLines(result.standardOutput).last { $0["kind"] as? String == "summary" })
        #expect((summary["status"] as? String)?.contains("No space left on device") == true)
        #expect((summary["events"] as? Int ?? 0) > 0, "watching went on")
    }

    @Test(
        .enabled(if: TmuxPane.isAvailable, "tmux is not installed"),
        .enabled(if: TestHost.fullDevice != nil, "this host has no device that is always full"))
    func theDashboardShowsARecordingErrorAndKeepsRunning() async throws {
        let pane = try TmuxPane(
            busmon: BusmonBinary.require(), arguments: ["--record", try #require(TestHost.fullDevice)],
            width: 160,
            environment: ["LC_ALL": TestHost.utf8Locale])
        defer { pane.close() }
        try await pane.waitForScreen(containing: "No space left on device")
        try await pane.waitForScreen(containing: "UserLoggedInEvent")
        try pane.press("q")
        #expect(try await pane.waitForExit() == "EXIT=1 TTY=restored", "a recording cut short is a failure")
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "tmux is not installed"))
    func theDashboardRecordsEveryEventUpToTheEnd() async throws {
        let recording = temporaryPath("dashboard.jsonl")
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let pane = try TmuxPane(
            busmon: BusmonBinary.require(),
            arguments: ["--seed", "3", "--rate", "1000", "--duration", "2", "--record", recording],
            width: 160,
            environment: ["LC_ALL": TestHost.utf8Locale])
        defer { pane.close() }
        #expect(try await pane.waitForExit() == "EXIT=0 TTY=restored")

        // "busmon: 50 frames in 2.0 s (25.0 frames/s), 2013 events, peak memory 24 MB"
        let summary = try #require(
            try pane.screen().split(separator: "\n").first { $0.contains(" frames in ") })
        let published = try #require(
            summary.split(separator: ", ").first { $0.hasSuffix(" events") }.flatMap {
                Int($0.dropLast(" events".count))
            })
        let recorded = try eventRecords(in: recording)
        #expect(published > 1000)
        #expect(recorded == published, "the events published after the last frame are recorded too")
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "tmux is not installed"))
    func aFastReplayEndsWithTheRecordingsTotal() async throws {
        let recording = temporaryPath("fast.jsonl")
        defer { try? FileManager.default.removeItem(atPath: recording) }
        try recordHeadless(seed: 7, rate: 500, to: recording)
        let recorded = try eventRecords(in: recording)

        // At 100x a frame takes in snapshots with events recorded after them; the total counts both.
        let pane = try TmuxPane(
            busmon: BusmonBinary.require(), arguments: ["--replay", recording, "--speed", "100"],
            width: 120, height: 40, environment: ["LC_ALL": TestHost.utf8Locale])
        defer { pane.close() }
        let finished = try await pane.waitForScreen(containing: "replay finished")
        let total = try #require(finished.split(separator: "\n").first { $0.hasPrefix("* any type") })
        #expect(
            total.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first == "\(recorded)")
        try pane.press("q")
        #expect(try await pane.waitForExit() == "EXIT=0 TTY=restored")
    }

    /// Running busmon as another user needs root (to switch) and setpriv (util-linux).
    static let canSwitchUser =
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to run busmon as another user"))
    func aSocketWithoutPermissionGivesAClearMessage() throws {
        // The tap's socket is mode 0600, so another user may not open it.
        let socket = temporaryPath("tap.sock")
        let app = try ChildProcess.start(
            try SimappBinary.require(), ["--tap", socket, "--rate", "10", "--duration", "5"],
            environment: environment)
        try waitFor("the tap socket") { FileManager.default.fileExists(atPath: socket) }
        let result = try ChildProcess.run(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", try BusmonBinary.require(), "--attach",
                socket,
                "--headless", "--duration", "1",
            ], environment: environment)
        #expect(result.status == 1)
        #expect(result.standardError.contains("cannot attach to \(socket): Permission denied"))
        app.send(SIGTERM)
        _ = try app.wait()
    }

    @Test func aTruncatedLastLineIsReportedAndSkipped() throws {
        let recording = temporaryPath("cut.jsonl")
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let lines = [
            #"{"kind":"hello","version":1,"pid":1,"process":"app","bus":"shared","time":100}"#,
            #"{"kind":"event","seq":1,"time":100.5,"typeName":"Tick","receivers":1,"payload":{"n":1}}"#,
            #"{"kind":"event","seq":2,"time":100.6,"typeName":"Tick","rece"#,
        ]
        try lines.joined(separator: "\n").write(toFile: recording, atomically: true, encoding: .utf8)
        let replay = try ChildProcess.run(
            try BusmonBinary.require(), ["--replay", recording, "--headless", "--speed", "100"],
            environment: environment)
        #expect(replay.status == 0)
        #expect(replay.standardError.contains("cut.jsonl:3"), "names the cut line: \(replay.standardError)")
        let summary = try #require(
            try jsonLines(replay.standardOutput).last { $0["kind"] as? String == "summary" })
        #expect(summary["events"] as? Int == 1)
    }

    @Test func headlessOutputIsJSONLines() throws {
        let result = try ChildProcess.run(
            try BusmonBinary.require(), ["--headless", "--rate", "200", "--duration", "1.5"],
            environment: environment)
        #expect(result.status == 0)
        let lines = try jsonLines(result.standardOutput)
        let kinds = Set(lines.compactMap { $0["kind"] as? String })
        #expect(kinds.isSuperset(of: ["event", "lifecycle", "summary"]))
    }

    @Test func badSourcesGiveAClearMessage() throws {
        let busmon = try BusmonBinary.require()
        let notASocket = temporaryPath("plain.txt")
        try "hello".write(toFile: notASocket, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: notASocket) }

        let attach = try ChildProcess.run(
            busmon, ["--attach", notASocket, "--headless"], environment: environment)
        #expect(attach.status == 1)
        #expect(attach.standardError.contains("not a socket"))
        #expect(try String(contentsOfFile: notASocket, encoding: .utf8) == "hello", "the file is left alone")

        let malformed = temporaryPath("bad.jsonl")
        try
            "{\"kind\":\"hello\",\"version\":1,\"pid\":1,\"process\":\"x\",\"bus\":\"b\",\"time\":1}\nnot json\n"
            .write(toFile: malformed, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: malformed) }
        let replay = try ChildProcess.run(
            busmon, ["--replay", malformed, "--headless"], environment: environment)
        #expect(replay.status == 1)
        #expect(replay.standardError.contains("bad.jsonl:2"), "names the line: \(replay.standardError)")

        // One damaged line among good ones: the rest plays, the line is named, the status says so.
        let damaged = temporaryPath("damaged.jsonl")
        let event = { (sequence: Int) in
            #"{"kind":"event","seq":\#(sequence),"time":\#(1_700_000_000 + sequence),"typeName":"Tick","receivers":1,"payload":{}}"#
        }
        try [event(1), event(2), "{\"kind\":\"event\",\"ti", event(3)].joined(separator: "\n")
            .appending("\n").write(toFile: damaged, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: damaged) }
        let played = try ChildProcess.run(
            busmon, ["--replay", damaged, "--speed", "1000", "--headless"], environment: environment)
        #expect(played.status == 1)
        #expect(played.standardError.contains("damaged.jsonl:3:"), "\(played.standardError)")
        #expect(played.standardOutput.components(separatedBy: #""kind":"event""#).count - 1 == 3)

        let missing = try ChildProcess.run(
            busmon, ["--replay", "/nonexistent/recording.jsonl", "--headless"], environment: environment)
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("/nonexistent/recording.jsonl"))

        let unwritable = try ChildProcess.run(
            busmon, ["--headless", "--duration", "1", "--record", "/nonexistent/folder/rec.jsonl"],
            environment: environment)
        #expect(unwritable.status == 1)
        #expect(unwritable.standardError.contains("/nonexistent/folder/rec.jsonl"))
    }
}

/// The count in simapp's last line, "simapp: published N events in S s (R events/s)".
private func publishedCount(_ output: String) -> Int? {
    guard let line = output.split(separator: "\n").last(where: { $0.contains("published") }) else {
        return nil
    }
    let words = line.split(separator: " ")
    return words.firstIndex(of: "published").flatMap { Int(words[$0 + 1]) }
}

/// Every line of `output` parsed as a JSON object; a line that is not one fails the test.
private func jsonLines(_ output: String) throws -> [[String: Any]] {
    try output.split(separator: "\n").map { line in
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(object as? [String: Any], "not a JSON object: \(line)")
    }
}
