import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Texts of the screen busmon shows, kept in one place because they change with that screen.
private enum ScreenText {
    static let title = "busmon demo screen"
    static func size(_ width: Int, _ height: Int) -> String { "size: \(width)x\(height)" }
    static func lastKey(_ key: String) -> String { "last key: \(key)" }
    static func tooSmall(_ width: Int, _ height: Int) -> String { "terminal too small: \(width)x\(height)" }
}

/// busmon in a real terminal: a private tmux server, keys sent with `send-keys`, the screen read
/// with `capture-pane`, always polling for the expected text against a deadline.
@Suite(.enabled(if: TmuxPane.isAvailable, "tmux is not installed; the terminal tests need it"))
struct BusmonInTmuxTests {
    /// A UTF-8 locale and no NO_COLOR, so the outcome does not depend on the test runner's.
    private static let plainEnvironment: [String: String?] = ["LC_ALL": "C.UTF-8", "NO_COLOR": nil]

    @Test func theScreenAppearsAndKeysReachIt() async throws {
        let pane = try TmuxPane(busmon: BusmonBinary.require(), environment: Self.plainEnvironment)
        defer { pane.close() }

        let screen = try await pane.waitForScreen(containing: ScreenText.size(100, 30))
        #expect(screen.contains(ScreenText.title))
        #expect(screen.contains("┌"), "a UTF-8 locale draws box characters")
        #expect(screen.contains("color: on"))
        #expect(try pane.value("alternate_on") == "1", "busmon draws on the alternate screen")
        #expect(try pane.value("cursor_flag") == "0", "the cursor is hidden while busmon runs")

        try pane.press("x")
        try await pane.waitForScreen(containing: ScreenText.lastKey("x"))
        try pane.press("Up")
        try await pane.waitForScreen(containing: ScreenText.lastKey("up"))
        try pane.press("NPage")
        try await pane.waitForScreen(containing: ScreenText.lastKey("pageDown"))
        try pane.press("End")
        try await pane.waitForScreen(containing: ScreenText.lastKey("end"))
        try pane.press("Enter")
        try await pane.waitForScreen(containing: ScreenText.lastKey("enter"))
        try pane.press("BSpace")
        try await pane.waitForScreen(containing: ScreenText.lastKey("backspace"))
        try pane.press("Tab")
        try await pane.waitForScreen(containing: ScreenText.lastKey("tab"))
        try pane.press("Escape")
        try await pane.waitForScreen(containing: ScreenText.lastKey("escape"))
        try pane.type("é")
        try await pane.waitForScreen(containing: ScreenText.lastKey("é"))
    }

    @Test func qQuitsAndRestoresTheTerminal() async throws {
        let pane = try TmuxPane(busmon: BusmonBinary.require(), environment: Self.plainEnvironment)
        defer { pane.close() }
        try await pane.waitForScreen(containing: ScreenText.title)

        try pane.press("q")
        #expect(try await pane.waitForExit() == "EXIT=0 TTY=restored")
        let screen = try pane.screen()
        #expect(!screen.contains(ScreenText.title), "the dashboard is gone with the alternate screen")
        #expect(screen.contains(" frames in "), "a one-line summary follows")
        #expect(try pane.value("alternate_on") == "0")
        #expect(try pane.value("cursor_flag") == "1", "the cursor is visible again")
    }

    @Test func aSmallTerminalSaysSoAndStillQuits() async throws {
        let pane = try TmuxPane(busmon: BusmonBinary.require(), environment: Self.plainEnvironment)
        defer { pane.close() }
        try await pane.waitForScreen(containing: ScreenText.size(100, 30))

        try pane.resize(width: 40, height: 10)
        let small = try await pane.waitForScreen(containing: ScreenText.tooSmall(40, 10))
        #expect(!small.contains(ScreenText.title))

        try pane.resize(width: 80, height: 24)
        try await pane.waitForScreen(containing: ScreenText.size(80, 24))

        try pane.resize(width: 40, height: 10)
        try await pane.waitForScreen(containing: ScreenText.tooSmall(40, 10))
        try pane.press("q")
        #expect(try await pane.waitForExit() == "EXIT=0 TTY=restored")
    }

    @Test func ctrlCRestoresTheTerminalAndExits130() async throws {
        let pane = try TmuxPane(busmon: BusmonBinary.require(), environment: Self.plainEnvironment)
        defer { pane.close() }
        try await pane.waitForScreen(containing: ScreenText.title)

        try pane.press("C-c")
        #expect(try await pane.waitForExit() == "EXIT=130 TTY=restored")
        #expect(try pane.value("alternate_on") == "0")
        #expect(try pane.value("cursor_flag") == "1")
    }

    @Test func sigtermRestoresTheTerminalAndExits143() async throws {
        let pane = try TmuxPane(busmon: BusmonBinary.require(), environment: Self.plainEnvironment)
        defer { pane.close() }
        try await pane.waitForScreen(containing: ScreenText.title)

        let pid = try await pane.busmonProcessID()
        #expect(kill(pid, SIGTERM) == 0)
        #expect(try await pane.waitForExit() == "EXIT=143 TTY=restored")
        #expect(try pane.value("alternate_on") == "0")
    }

    @Test func durationEndsTheRunByItself() async throws {
        let pane = try TmuxPane(
            busmon: BusmonBinary.require(), arguments: ["--duration", "2"], environment: Self.plainEnvironment
        )
        defer { pane.close() }
        try await pane.waitForScreen(containing: ScreenText.title)

        #expect(try await pane.waitForExit(timeout: 30) == "EXIT=0 TTY=restored")
        let summary = try #require(
            try pane.screen().split(separator: "\n").first { $0.contains(" frames in ") })
        // "busmon: N frames in S s": it must not have quit before its time.
        let seconds = try #require(summary.split(separator: " ").dropLast().last.flatMap { Double($0) })
        #expect(seconds >= 2.0)
    }

    @Test func withoutAUTF8LocaleItDrawsASCII() async throws {
        let pane = try TmuxPane(
            busmon: BusmonBinary.require(), environment: ["LC_ALL": "C", "LANG": nil, "NO_COLOR": nil])
        defer { pane.close() }
        let screen = try await pane.waitForScreen(containing: ScreenText.title)
        #expect(screen.contains("+- " + ScreenText.title))
        #expect(screen.contains("charset: ascii"))
        #expect(!screen.contains("┌"))
        try pane.press("q")
        #expect(try await pane.waitForExit() == "EXIT=0 TTY=restored")
    }

    @Test func asciiFlagWinsOverAUTF8Locale() async throws {
        let pane = try TmuxPane(
            busmon: BusmonBinary.require(), arguments: ["--ascii"], environment: Self.plainEnvironment)
        defer { pane.close() }
        let screen = try await pane.waitForScreen(containing: ScreenText.title)
        #expect(screen.contains("charset: ascii"))
        #expect(!screen.contains("┌"))
    }

    @Test(arguments: [
        (["--no-color"], [String: String?]()),
        ([], ["NO_COLOR": "1"]),
    ])
    func coloursCanBeTurnedOff(arguments: [String], environment: [String: String?]) async throws {
        let pane = try TmuxPane(
            busmon: BusmonBinary.require(), arguments: arguments,
            environment: Self.plainEnvironment.merging(environment) { $1 })
        defer { pane.close() }
        try await pane.waitForScreen(containing: "color: off")
    }
}
