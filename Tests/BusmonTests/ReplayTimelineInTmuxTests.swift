import Foundation
import TestSupport
import Testing

/// A replay moved through in a real terminal: paused, jumped, stepped, and the panes read back.
@Suite(.serialized, .enabled(if: TmuxPane.isAvailable, "tmux is not installed; the terminal tests need it"))
struct ReplayTimelineInTmuxTests {
    /// The COUNT of the recording's event type `T` on `screen`, if its row is there.
    static func count(on screen: String) -> Int? {
        for line in screen.split(separator: "\n") where line.hasPrefix("T ") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    /// busmon replaying `path` with `arguments`, in a UTF-8 terminal without NO_COLOR.
    static func replay(_ path: String, _ arguments: String...) throws -> TmuxPane {
        try TmuxPane(
            busmon: BusmonBinary.require(), arguments: ["--replay", path] + arguments, width: 110, height: 30,
            environment: ["LC_ALL": TestHost.utf8Locale, "NO_COLOR": nil])
    }

    @Test func atStartsThereAndPaused() async throws {
        let directory = TemporaryDirectory()
        let pane = try Self.replay(TimelineRecording.write(seconds: 60, in: directory), "--at", "0:20")
        defer { pane.close() }
        let screen = try await pane.waitForScreen("the bus at 0:20") { Self.count(on: $0) == 201 }
        #expect(screen.contains("replay 00:20.0 / 00:59.9 [###-------] paused"))
        try pane.press("q")
        #expect(try await pane.waitForExit().hasPrefix("EXIT=0"))
    }

    @Test func atPastTheEndSaysSoInTheLog() async throws {
        let directory = TemporaryDirectory()
        let pane = try Self.replay(TimelineRecording.write(seconds: 30, in: directory), "--at", "99")
        defer { pane.close() }
        let screen = try await pane.waitForScreen(containing: "past the recording's end")
        #expect(screen.contains("--at 01:39.0 is past the recording's end, 00:29.9"))
        #expect(Self.count(on: screen) == 300)
        try pane.press("q")
        #expect(try await pane.waitForExit().hasPrefix("EXIT=0"))
    }

    @Test func stepsAndJumpsMoveThePanesAndComeBack() async throws {
        let directory = TemporaryDirectory()
        let pane = try Self.replay(TimelineRecording.write(seconds: 60, in: directory), "--speed", "0.01")
        defer { pane.close() }
        try await pane.waitForScreen(containing: "/ 00:59.9")

        try pane.press("Space")
        let paused = try await pane.waitForScreen("the replay paused") {
            $0.contains("paused") && Self.count(on: $0) != nil
        }
        #expect(paused.contains("Space Play"))
        let start = try #require(Self.count(on: paused))

        // Ten seconds on: a hundred events more, and again.
        try pane.press(">")
        let ten = try await pane.waitForScreen("ten seconds on") { Self.count(on: $0) == start + 100 }
        #expect(ten.contains("paused"))
        try pane.press(">")
        try await pane.waitForScreen("twenty seconds on") { Self.count(on: $0) == start + 200 }

        // Back ten seconds: the panes as they were.
        try pane.press("<")
        try await pane.waitForScreen("ten seconds back") { Self.count(on: $0) == start + 100 }

        // One event back, then one on.
        try pane.press(",")
        let back = try await pane.waitForScreen("one event back") { Self.count(on: $0) == start + 99 }
        #expect(back.contains("paused"))
        try pane.press(".")
        try await pane.waitForScreen("one event on") { Self.count(on: $0) == start + 100 }

        // t asks for a time; the panes show the bus at 0:30, its 301st event the newest.
        try pane.press("t")
        try await pane.waitForScreen(containing: "Go to (mm:ss, h:mm:ss or seconds): ")
        try pane.type("0:30")
        try pane.press("Enter")
        let thirty = try await pane.waitForScreen("the bus at 0:30") { Self.count(on: $0) == 301 }
        #expect(thirty.contains("replay 00:30.0 / 00:59.9"))

        // With a filter, n and N go to the next and previous line it shows.
        try pane.press("/")
        try pane.type("99")
        try pane.press("Enter")
        try pane.press("n")
        try await pane.waitForScreen("the next 99") { Self.count(on: $0) == 400 }
        try pane.press("N")
        try await pane.waitForScreen("the previous 99") { Self.count(on: $0) == 300 }
        try pane.press("Escape")

        // Space plays on from there (slowly: a hundredth of real time, so that the test,
        // however busy the machine, reads the counts before they move by themselves).
        try pane.press("Space")
        try await pane.waitForScreen("playing again") { !$0.contains("paused") && $0.contains("at 0.01x") }
        try pane.press("q")
        #expect(try await pane.waitForExit().hasPrefix("EXIT=0"))
    }
}
