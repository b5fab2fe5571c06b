import Foundation
import ProcessTestSupport
import TestSupport
import Testing

/// busmon's answers to why, run as a person would: the simulated app's cascades, failures and
/// slow main-actor calls in the headless output and on screen, the refresh loop stopped on `R`,
/// and `--graph` rendered by Graphviz.
@Suite(.serialized) struct WhyEndToEndTests {
    private var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        return environment
    }

    @Test func headlessOutputAndTheGraphSayWhoPublishedWhatToWhom() throws {
        let directory = TemporaryDirectory()
        let graph = directory.file("flow.dot")
        let result = try ChildProcess.run(
            BusmonBinary.require(), ["--headless", "--seed", "3", "--duration", "8", "--graph", graph],
            environment: environment, timeout: 120)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let events = lines.filter { $0["kind"] as? String == "event" }
        // Every event says where it was published; a sign-in's session load names its cause.
        #expect(!events.isEmpty && events.allSatisfy { $0["fileID"] is String && $0["line"] is Int })
        let signIns = Dictionary(
            events.filter { $0["typeName"] as? String == "UserLoggedInEvent" }.compactMap { event in
                (event["eventID"] as? Int).map { ($0, event) }
            }, uniquingKeysWith: { first, _ in first })
        let sessionLoads = events.filter { event in
            (event["causeID"] as? Int).map { signIns[$0] != nil } ?? false
        }
        #expect(!sessionLoads.isEmpty)
        #expect(sessionLoads.allSatisfy { $0["typeName"] as? String == "DataLoadedEvent" })
        let changes = Set(lines.compactMap { $0["change"] as? String })
        #expect(changes.contains("handlerFailed"))
        #expect(changes.contains("slowHandler"))
        let snapshot = try #require(lines.last { $0["kind"] as? String == "snapshot" })
        let handlers = try #require(snapshot["handlers"] as? [[String: Any]])
        let home = try #require(handlers.first { $0["observerTypeName"] as? String == "HomeViewController" })
        // The home screen's deliveries hop to the main actor, which busmon leaves to the app:
        // most start at once, and only those behind a slow render wait long. (When busmon's
        // loop held the main thread, half of them waited for its next frame.)
        let waits = try #require(home["waits"] as? [String: Any])
        #expect((waits["count"] as? Int ?? 0) > 100)
        #expect((waits["p50"] as? Double ?? 1) < 0.005, "\(waits)")
        let late = lines.filter { $0["change"] as? String == "slowDelivery" }.reduce(0) {
            $0 + ($1["count"] as? Int ?? 0)
        }
        #expect(late < (waits["count"] as? Int ?? 0) / 10, "\(late) late of \(waits)")
        // Handlers called in the publish never wait.
        let inline = handlers.filter { $0["observerTypeName"] as? String == "PhotoCache" }
        #expect(!inline.isEmpty)
        #expect(inline.allSatisfy { (($0["waits"] as? [String: Any])?["maximum"] as? Double) == 0 })

        let dot = try String(contentsOfFile: graph, encoding: .utf8)
        #expect(dot.hasPrefix("digraph busmon {"))
        #expect(dot.contains(#""site:Services.swift:"#))
        #expect(dot.contains(#""type:UserLoggedInEvent" -> "type:DataLoadedEvent""#))
        #expect(dot.contains(#""type:DataLoadedEvent" -> "class:PhotoCache""#))
        #expect(dot.contains(#""class:HomeViewController""#))
        let svg = try ChildProcess.run("/usr/bin/env", ["dot", "-Tsvg", graph], environment: environment)
        #expect(svg.status == 0, "dot: \(svg.standardError)")
        #expect(svg.standardOutput.contains("<svg"))
        #expect(svg.standardOutput.contains("PhotoCache"))
    }

    @Test func aGraphThatCannotBeWrittenIsRefusedAtOnce() throws {
        let result = try ChildProcess.run(
            BusmonBinary.require(), ["--headless", "--duration", "1", "--graph", "/nonexistent/flow.dot"],
            environment: environment)
        #expect(result.status == 1)
        #expect(
            result.standardError
                == "busmon: cannot write the graph to /nonexistent/flow.dot: No such file or directory\n")
        #expect(result.standardOutput.isEmpty)
    }

    @Test("a graph is written owner-only, and never through a link left beside it")
    func aGraphIsWrittenSafely() throws {
        let directory = TemporaryDirectory()
        let graph = directory.file("flow.dot")
        let victim = directory.file("victim.txt")
        // A link where the graph's file is written first: this user's, so it is removed, and the
        // graph's own file made in its place.
        #expect(symlink(victim, graph + ".partial") == 0)
        let written = try ChildProcess.run(
            BusmonBinary.require(), ["--headless", "--duration", "1", "--graph", graph],
            environment: environment)
        #expect(written.status == 0, "\(written.standardError)")
        #expect(access(victim, F_OK) != 0, "nothing was written through the link")
        var info = stat()
        #expect(stat(graph, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(lstat(graph, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
        #expect(access(graph + ".partial", F_OK) != 0)
        #expect(try String(contentsOfFile: graph, encoding: .utf8).hasPrefix("digraph busmon {"))
    }

    @Test(
        "a graph to a device is written to it, never renamed over it; a FIFO there is refused and left alone")
    func aGraphNeverReplacesWhatIsNotAFile() throws {
        let directory = TemporaryDirectory()
        let fifo = directory.file("pipe.dot")
        #expect(mkfifo(fifo, 0o600) == 0)
        let refused = try ChildProcess.run(
            BusmonBinary.require(), ["--headless", "--duration", "1", "--graph", fifo],
            environment: environment)
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("cannot write the graph to \(fifo): it is not a regular file"))
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO is still there")
        // A symbolic link (as /dev/stdout is) is refused too, and stays a link
        let link = directory.file("link.dot")
        #expect(symlink(directory.file("elsewhere.dot"), link) == 0)
        let linked = try ChildProcess.run(
            BusmonBinary.require(), ["--headless", "--duration", "1", "--graph", link],
            environment: environment)
        #expect(linked.status == 1)
        #expect(linked.standardError.contains("cannot write the graph to \(link): it is a symbolic link"))
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        // A device of its own, as /dev/null is (making one needs root; skipped otherwise)
        let device = directory.file("null")
        var null = stat()
        guard stat("/dev/null", &null) == 0, mknod(device, S_IFCHR | 0o666, null.st_rdev) == 0 else { return }
        let written = try ChildProcess.run(
            BusmonBinary.require(), ["--headless", "--duration", "1", "--graph", device],
            environment: environment)
        #expect(written.status == 0, "\(written.standardError)")
        #expect(lstat(device, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "still a device, not a file")
        #expect(access(device + ".partial", F_OK) != 0)
    }

    @Test func aReplayDrawsTheSameGraph() throws {
        let directory = TemporaryDirectory()
        let recording = directory.file("run.jsonl")
        let record = try ChildProcess.run(
            BusmonBinary.require(), ["--headless", "--seed", "5", "--duration", "3", "--record", recording],
            environment: environment, timeout: 120)
        #expect(record.status == 0, "stderr: \(record.standardError)")
        let graph = directory.file("replayed.dot")
        let replay = try ChildProcess.run(
            BusmonBinary.require(),
            ["--headless", "--replay", recording, "--speed", "100", "--graph", graph],
            environment: environment, timeout: 120)
        #expect(replay.status == 0, "stderr: \(replay.standardError)")
        let dot = try String(contentsOfFile: graph, encoding: .utf8)
        #expect(dot.contains(#""type:UserLoggedInEvent" -> "type:DataLoadedEvent""#))
        #expect(dot.contains(#""site:Services.swift:"#))
    }
}

/// The refresh loop and the Handlers pane on a real terminal.
@Suite(.serialized, .enabled(if: TmuxPane.isAvailable, "tmux is not installed; the terminal tests need it"))
struct WhyInTmuxTests {
    @Test func rSetsOffALoopTheBusStopsAndTheScreenSaysSo() async throws {
        let pane = try TmuxPane(
            // A tenth of the default rate: the log's 5,000 lines then hold the cascade's report
            // for minutes after it, however slowly a machine busy with every other suite runs the
            // steps below (at the default rate it was pushed out in one run of five).
            busmon: BusmonBinary.require(), arguments: ["--seed", "7", "--rate", "20"], width: 140,
            height: 44,
            environment: ["LC_ALL": TestHost.utf8Locale, "NO_COLOR": nil])
        defer { pane.close() }
        try await pane.waitForScreen("the Handlers pane with the photo cache") {
            $0.contains("─ Handlers ─") && $0.contains("PhotoCache")
        }
        try pane.press("R")
        // The key's message shows in the bar for a few seconds; the header keeps the count.
        try await pane.waitForScreen("the stopped cascade in the header") { screen in
            (screen.split(separator: "\n").first.map(String.init) ?? "").contains("1 cascade stopped")
        }
        // The report's line went by in the log; a filter finds it again. The display is paused
        // first, so that on a slow machine the app's later lines cannot push it out of the log
        // while the filter is typed.
        try pane.press("Space")
        try pane.press("/")
        try pane.type("cascade stopped")
        try pane.press("Enter")
        try await pane.waitForScreen("the log's cascade line") {
            $0.contains("cascade stopped: TokenRefreshRequestedEvent → TokenRefreshFailedEvent")
        }
        try pane.press("Escape")
        try pane.press("Space")
        // The app goes on: its failing cache and its slow main-actor screen show too.
        // At 20 events a second the home screen's 400th render, the slow one, takes half a minute.
        try await pane.waitForScreen("failures and slow calls in the header", timeout: 180) { screen in
            let header = screen.split(separator: "\n").first.map(String.init) ?? ""
            return header.contains(" failed") && header.contains(" slow")
        }
        // Worst first: the failing cache and the slow home screen lead the Handlers pane.
        try await pane.waitForScreen("the troubled handlers first", timeout: 180) { screen in
            let lines = screen.split(separator: "\n").map(String.init)
            guard let title = lines.firstIndex(where: { $0.hasPrefix("─ Handlers ─") }),
                lines.count > title + 3
            else { return false }
            let top = lines[(title + 2)...(title + 3)]
            return top.contains { $0.hasPrefix("PhotoCache") }
                && top.contains { $0.hasPrefix("HomeViewController") }
        }
        try pane.press("q")
        _ = try await pane.waitForExit()
    }
}
