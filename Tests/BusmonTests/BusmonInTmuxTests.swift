import Foundation
import TestSupport
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Texts of the dashboard that tests look for, kept in one place.
private enum ScreenText {
    static let eventTypesPane = "Event types"
    static let subscribersPane = "Subscribers"
    static let observersPane = "Observers"
    static let tooSmall = "Terminal too small"
    static let keyBar = "q Quit"
}

/// busmon in a real terminal: a private tmux server, keys sent with `send-keys`, the screen read
/// with `capture-pane`, always polling for the expected text against a deadline.
@Suite(.serialized, .enabled(if: TmuxPane.isAvailable, "tmux is not installed; the terminal tests need it"))
struct BusmonInTmuxTests {
    /// A UTF-8 locale and no NO_COLOR, so the outcome does not depend on the test runner's.
    private static let plainEnvironment: [String: String?] = ["LC_ALL": TestHost.utf8Locale, "NO_COLOR": nil]

    private static func start(
        _ arguments: [String] = [], width: Int = 100, height: Int = 30,
        environment: [String: String?] = plainEnvironment
    ) throws -> TmuxPane {
        try TmuxPane(
            busmon: BusmonBinary.require(), arguments: ["--seed", "7"] + arguments, width: width,
            height: height, environment: environment)
    }

    /// busmon at 120x40 under an xterm TERM, whose terminfo tmux's own keys and pastes differ from.
    private static func startAsXterm() throws -> TmuxPane {
        var environment = plainEnvironment
        environment["TERM"] = "xterm-256color"
        return try start(width: 120, height: 40, environment: environment)
    }

    @Test func theDashboardShowsTheSimulatedApp() async throws {
        let pane = try Self.start()
        defer { pane.close() }

        // The key bar is the last row a frame writes: a screen read before it is there is a
        // frame still being written (seen on a loaded machine), not one to judge.
        let screen = try await pane.waitForScreen("both event types, and the whole frame") {
            $0.contains("UserLoggedInEvent") && $0.contains("DataLoadedEvent")
                && $0.contains(ScreenText.keyBar)
        }
        #expect(screen.contains(ScreenText.eventTypesPane))
        #expect(screen.contains(ScreenText.subscribersPane))
        #expect(screen.contains("simulated app (seed 7)"))
        #expect(screen.contains(ScreenText.keyBar))
        #expect(screen.contains("─"), "a UTF-8 locale draws box characters")
        #expect(usesColour(try pane.screenWithStyles()), "colours are on by default")
        #expect(try pane.value("alternate_on") == "1", "busmon draws on the alternate screen")
        #expect(try pane.value("cursor_flag") == "0", "the cursor is hidden while busmon runs")
    }

    @Test func pauseFilterHelpAndDetailsRespondToKeys() async throws {
        let pane = try Self.start()
        defer { pane.close() }
        try await pane.waitForScreen(containing: "UserLoggedInEvent")

        try pane.press("Space")
        try await pane.waitForScreen(containing: "PAUSED")
        try await Task.sleep(for: .milliseconds(200))  // let the frame that showed PAUSED finish
        let frozen = try pane.screen()
        try await Task.sleep(for: .milliseconds(600))
        #expect(try logLines(pane.screen()) == logLines(frozen), "the paused log does not move")
        try pane.press("Space")
        try await pane.waitForScreen("the pause to end") { !$0.contains("PAUSED") }

        try pane.press("?")
        try await pane.waitForScreen(containing: "filter the log by type or payload")
        try pane.press("Escape")
        try await pane.waitForScreen("the help to close") {
            !$0.contains("filter the log by type or payload")
        }

        try pane.press("/")
        try pane.type("UserLoggedIn")
        try pane.press("Enter")
        // A capture can catch the terminal mid-redraw, so the whole condition is what is awaited.
        try await pane.waitForScreen("only matching lines in the filtered log") { screen in
            let lines = logLines(screen)
            return screen.contains("filter: UserLoggedIn") && !lines.isEmpty
                && lines.allSatisfy { $0.contains("UserLoggedIn") }
        }

        try pane.press("Up")
        try pane.press("Enter")
        try await pane.waitForScreen(containing: "Details (Esc closes)")
        try pane.press("Escape")
        try await pane.waitForScreen("the details to close") { !$0.contains("Details (Esc closes)") }
    }

    /// tmux or PuTTY under an xterm TERM send Home and End as ESC[1~ and ESC[4~, which xterm's
    /// terminfo does not name: they must still move the log, not arrive as Esc and characters.
    @Test func homeAndEndWorkAsOtherTerminalsSendThem() async throws {
        let pane = try Self.startAsXterm()
        defer { pane.close() }
        try await pane.waitForScreen(containing: "Log ─ following")
        try pane.press("Up")
        try await pane.waitForScreen(containing: "G follows")
        try pane.type("\u{1B}[4~")
        try await pane.waitForScreen(containing: "Log ─ following")
        try pane.type("\u{1B}[1~")
        try await pane.waitForScreen(containing: "Log ─ line 1/")
    }

    @Test func destroyingScreensDropsSubscribersAndReclaimsTheDead() async throws {
        // A slow app, so that what `c` does is not hidden by the traffic.
        let pane = try Self.start(["--rate", "20"], width: 120, height: 40)
        defer { pane.close() }
        // The app opens screens until it has its usual number, which takes a few seconds; its
        // services hold a few subscriptions of their own.
        try await pane.waitForScreen("the app's screens to open") { liveSubscribers($0) >= 35 }

        // Screens keep opening: the count to beat is the one just before the key.
        let before = try pane.screen()
        try pane.press("c")
        try await pane.waitForScreen(containing: "destroyed")
        // The counts come from the bus's next snapshot, a moment later.
        try await pane.waitForScreen("fewer live subscribers than \(liveSubscribers(before))") {
            liveSubscribers($0) < liveSubscribers(before)
        }

        // Screens that relied on weak references died; the bus reclaims their subscriptions.
        try pane.press("/")
        try pane.type("reclaimed")
        try pane.press("Enter")
        // A capture can catch the terminal mid-redraw, so the whole condition is what is awaited.
        try await pane.waitForScreen("only reclaim lines in the filtered log") { screen in
            let lines = logLines(screen)
            return screen.contains("filter: reclaimed")
                && lines.contains { $0.contains("deallocated;") && $0.contains("reclaimed") }
                && lines.allSatisfy { $0.contains("reclaimed") }
        }
    }

    @Test func aLeakingScreenBecomesASuspectWhoseDetailsOpen() async throws {
        // A slow app, so that the log holds minutes of history for the filter below.
        let pane = try Self.start(["--rate", "20"], width: 120, height: 40)
        defer { pane.close() }
        try await pane.waitForScreen(containing: ScreenText.observersPane)
        // The app keeps one leaking screen open, and a closed batch includes it; five seconds
        // later the bus reports it, and the header counts it.
        try pane.press("c")
        try await pane.waitForScreen("a leak suspect in the header") { screen in
            screen.split(separator: "\n").first.map { $0.contains("leak suspect") } ?? false
        }

        try pane.press("o")
        try pane.press("Enter")
        let details = try await pane.waitForScreen("the suspect's details") { screen in
            screen.contains("Observers › ChatViewController") && screen.contains("overdue")
                && screen.contains("after \"screen closed\"")
        }
        #expect(details.contains("leak suspect"))
        try pane.press("Escape")
        try await pane.waitForScreen("the class list again") {
            !$0.contains("Observers › ChatViewController")
        }

        // The report's line went by in the log; a filter finds it again.
        try pane.press("/")
        try pane.type("leak suspected")
        try pane.press("Enter")
        try await pane.waitForScreen("the log's leak line") { screen in
            logLines(screen).contains { $0.contains("leak suspected: ChatViewController #") }
        }
    }

    @Test func qQuitsAndRestoresTheTerminal() async throws {
        let pane = try Self.start()
        defer { pane.close() }
        try await pane.waitForScreen(containing: ScreenText.eventTypesPane)

        try pane.press("q")
        #expect(try await pane.waitForExit() == "EXIT=0 TTY=restored")
        let screen = try pane.screen()
        #expect(
            !screen.contains(ScreenText.eventTypesPane), "the dashboard is gone with the alternate screen")
        #expect(screen.contains(" frames in "), "a one-line summary follows")
        #expect(try pane.value("alternate_on") == "0")
        #expect(try pane.value("cursor_flag") == "1", "the cursor is visible again")
    }

    /// Ctrl-S, pressed by habit to save, once stopped the terminal's output (XON/XOFF): the
    /// screen froze, and busmon could not even end on SIGTERM, whose way out writes to it.
    @Test func ctrlSNeitherFreezesTheScreenNorHoldsAnExit() async throws {
        let pane = try Self.start()
        defer { pane.close() }
        let first = try await pane.waitForScreen(containing: "up 00:00:0")
        try pane.press("C-s")
        let before = uptime(first)
        try await pane.waitForScreen("the clock to move on after Ctrl-S") { uptime($0) != before }
        kill(try await pane.busmonProcessID(), SIGTERM)
        #expect(try await pane.waitForExit() == "EXIT=143 TTY=restored")
    }

    @Test func aSmallTerminalSaysSoAndStillQuits() async throws {
        let pane = try Self.start()
        defer { pane.close() }
        try await pane.waitForScreen(containing: ScreenText.eventTypesPane)

        try pane.resize(width: 40, height: 10)
        let small = try await pane.waitForScreen(containing: ScreenText.tooSmall)
        #expect(small.contains("40x10"))
        #expect(!small.contains(ScreenText.eventTypesPane))

        try pane.resize(width: 80, height: 24)
        try await pane.waitForScreen(containing: ScreenText.eventTypesPane)

        try pane.resize(width: 10, height: 3)
        try await pane.waitForScreen("the tiny screen") { !$0.contains(ScreenText.eventTypesPane) }
        try pane.press("q")
        try await Task.sleep(for: .milliseconds(300))
        try pane.resize(width: 80, height: 24)  // room for the exit line
        #expect(try await pane.waitForExit() == "EXIT=0 TTY=restored")
    }

    @Test func atTheSmallestSizeTheHelpScrollsAndALongFilterShowsItsEnd() async throws {
        let pane = try Self.start(width: 60, height: 16)
        defer { pane.close() }
        try await pane.waitForScreen(containing: ScreenText.eventTypesPane)

        // The help says there is more, and End and Home reach both ends of it.
        try pane.press("?")
        try await pane.waitForScreen(containing: "↑↓ scroll")
        // The help ends with the Handlers pane's columns (WAIT last) once the bus has timed a
        // handler, and with the Observers pane's before.
        let lastLines = ["(late)", "reclaimed or unsubscribed in the"]
        // The help grows when the first handler rows arrive, and End reaches the end it had:
        // a person presses End again.
        var reachedTheEnd = false
        for _ in 0..<20 where !reachedTheEnd {
            try pane.press("End")
            let end = try? await pane.waitForScreen("the end of the help", timeout: 3) { screen in
                lastLines.contains { screen.contains($0) }
            }
            reachedTheEnd = end != nil
        }
        #expect(reachedTheEnd, "End reaches the end of the help")
        try pane.press("Home")
        try await pane.waitForScreen("the top of the help") { screen in
            screen.contains("q, Ctrl-C") && !lastLines.contains { screen.contains($0) }
        }
        try pane.press("Escape")
        try await pane.waitForScreen("the help to close") { !$0.contains("↑↓ scroll") }

        // A filter longer than the line shows its end while typed; the header keeps its state.
        try pane.press("/")
        try pane.type("a filter much longer than the sixty columns of this terminal, ending here")
        let screen = try await pane.waitForScreen(containing: "ending here")
        let header = screen.split(separator: "\n").first ?? ""
        #expect(header.contains("live") && header.contains("up 00:"), "header: \(header)")
        try pane.press("Escape")
    }

    /// Text pasted with an Esc and letters in it: the Esc once closed the filter and the letters
    /// ran as keys (c destroys screens, q quits). Pasted, it is text in the filter, and nothing
    /// where there is no filter to take it.
    @Test func pastedTextIsNeverTakenForKeys() async throws {
        let pane = try Self.startAsXterm()
        defer { pane.close() }
        try await pane.waitForScreen(containing: "UserLoggedInEvent")

        try pane.press("/")
        try await pane.waitForScreen(containing: "Esc cancel")
        try pane.paste("Data\u{1B}c\nq")
        try await pane.waitForScreen(containing: "Filter: Datac q")
        try pane.press("C-w")
        try await pane.waitForScreen("Ctrl-W to erase the last word") {
            $0.contains("Filter: Datac ") && !$0.contains("Datac q")
        }
        try pane.press("C-u")
        try await pane.waitForScreen("Ctrl-U to erase the filter") { !$0.contains("Datac") }
        try pane.press("Escape")
        try await pane.waitForScreen("the prompt to close") { !$0.contains("Esc cancel") }

        // Pasted where no prompt takes it, it is dropped: busmon runs on, no screen destroyed.
        try pane.paste("cq")
        try await Task.sleep(for: .milliseconds(500))
        let screen = try pane.screen()
        #expect(screen.contains(ScreenText.keyBar), "still running: \(screen)")
        #expect(!screen.contains("destroyed"), "no screens destroyed: \(screen)")
        try pane.press("q")
        let exit = try await pane.waitForExit()
        #expect(exit.contains("EXIT=0"))
    }

    /// Ctrl-Z gives the shell back its terminal as it was: bracketed paste off (a shell that
    /// does not ask for it itself, as dash, read every paste wrapped in `ESC[200~`), and on
    /// again after `fg`, where a paste is text in the filter once more.
    @Test func ctrlZGivesTheShellPastesWithoutMarkers() async throws {
        var environment = Self.plainEnvironment
        environment["TERM"] = "xterm-256color"
        let pane = try TmuxPane(shellWithWidth: 120, height: 40, environment: environment)
        defer { pane.close() }
        // A prompt, trailing space trimmed, alone on the last line written.
        func showsAPrompt(_ screen: String) -> Bool {
            screen.split(separator: "\n").last { !$0.isEmpty } == "$"
        }
        try await pane.waitForScreen("the shell's prompt", until: showsAPrompt)
        try pane.enter("\(TmuxPane.quote(try BusmonBinary.require())) --seed 7")
        try await pane.waitForScreen(containing: ScreenText.keyBar)

        try pane.press("C-z")
        try await pane.waitForScreen(containing: "Stopped")
        try pane.enter("cat -v")
        try pane.paste("pasted")
        try pane.press("Enter")
        let shell = try await pane.waitForScreen("cat to echo the paste") {
            $0.split(separator: "\n").filter { $0.contains("pasted") }.count >= 2
        }
        #expect(!shell.contains("[200~"), "the shell's paste came wrapped in markers: \(shell)")
        try pane.press("C-d")
        try await pane.waitForScreen("cat to end", until: showsAPrompt)

        try pane.enter("fg")
        try await pane.waitForScreen(containing: ScreenText.keyBar)
        try pane.press("/")
        try await pane.waitForScreen(containing: "Esc cancel")
        try pane.paste("Data\u{1B}c\nq")
        try await pane.waitForScreen(containing: "Filter: Datac q")
        try pane.press("Escape")
        try pane.press("q")
        try await pane.waitForScreen(containing: "peak memory")
    }

    @Test func aResizeStormLeavesAWorkingDashboard() async throws {
        let pane = try Self.start()
        defer { pane.close() }
        try await pane.waitForScreen(containing: ScreenText.eventTypesPane)
        for (width, height) in [(50, 12), (130, 45), (61, 17), (20, 5), (90, 28), (75, 20), (100, 30)] {
            try pane.resize(width: width, height: height)
        }
        try await pane.waitForScreen(containing: ScreenText.eventTypesPane)
        try pane.press("q")
        #expect(try await pane.waitForExit() == "EXIT=0 TTY=restored")
    }

    @Test func ctrlCRestoresTheTerminalAndExits130() async throws {
        let pane = try Self.start()
        defer { pane.close() }
        try await pane.waitForScreen(containing: ScreenText.eventTypesPane)

        try pane.press("C-c")
        #expect(try await pane.waitForExit() == "EXIT=130 TTY=restored")
        #expect(try pane.value("alternate_on") == "0")
        #expect(try pane.value("cursor_flag") == "1")
    }

    /// SIGTERM, and the signals whose default action ends a program without a word: each
    /// restores the terminal and exits 128 + its number (143 after SIGTERM).
    @Test(arguments: [SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGQUIT, SIGXCPU, SIGVTALRM, SIGPROF])
    func endingSignalsRestoreTheTerminal(signal: Int32) async throws {
        let pane = try Self.start()
        defer { pane.close() }
        try await pane.waitForScreen(containing: ScreenText.eventTypesPane)

        let pid = try await pane.busmonProcessID()
        #expect(kill(pid, signal) == 0)
        #expect(try await pane.waitForExit() == "EXIT=\(128 + signal) TTY=restored")
        #expect(try pane.value("alternate_on") == "0")
    }

    @Test func durationEndsTheRunByItself() async throws {
        let pane = try Self.start(["--duration", "2"])
        defer { pane.close() }

        #expect(try await pane.waitForExit(timeout: 60) == "EXIT=0 TTY=restored")
        let summary = try #require(
            try pane.screen().split(separator: "\n").first { $0.contains(" frames in ") })
        // "busmon: N frames in S s (F frames/s), ...": it drew, and did not quit before its time.
        let words = summary.split(separator: " ")
        let frames = try #require(words.dropFirst().first.flatMap { Int($0) })
        let seconds = try #require(words.firstIndex(of: "in").flatMap { Double(words[$0 + 1]) })
        #expect(frames > 0)
        #expect(summary.contains(" events, peak memory "))
        #expect(seconds >= 2.0)
    }

    @Test func withoutAUTF8LocaleItDrawsASCII() async throws {
        let pane = try Self.start(environment: ["LC_ALL": "C", "LANG": nil, "NO_COLOR": nil])
        defer { pane.close() }
        let screen = try await pane.waitForScreen(containing: ScreenText.eventTypesPane)
        #expect(!screen.contains("─"))
        #expect(!screen.contains("│"))
        try pane.press("q")
        #expect(try await pane.waitForExit() == "EXIT=0 TTY=restored")
    }

    @Test func asciiFlagWinsOverAUTF8Locale() async throws {
        let pane = try Self.start(["--ascii"])
        defer { pane.close() }
        let screen = try await pane.waitForScreen(containing: ScreenText.eventTypesPane)
        #expect(!screen.contains("─"))
    }

    @Test(arguments: [
        (["--no-color"], [String: String?]()),
        ([], ["NO_COLOR": "1"]),
    ])
    func coloursCanBeTurnedOff(arguments: [String], environment: [String: String?]) async throws {
        let pane = try Self.start(arguments, environment: Self.plainEnvironment.merging(environment) { $1 })
        defer { pane.close() }
        try await pane.waitForScreen(containing: ScreenText.eventTypesPane)
        #expect(!usesColour(try pane.screenWithStyles()), "no colour escape sequences")
    }
}

/// The log pane's lines: those that start with a time stamp.
/// The header's uptime, such as `up 00:00:07`.
private func uptime(_ screen: String) -> Substring? {
    guard let start = screen.range(of: "up 00:")?.lowerBound else { return nil }
    return screen[start...].prefix(11)
}

private func logLines(_ screen: String) -> [String] {
    screen.split(separator: "\n").map(String.init).filter { line in
        let parts = line.prefix(12).split(separator: ":")
        return parts.count == 3 && line.count > 12 && parts.allSatisfy { $0.first?.isNumber == true }
    }
}

/// The sum of the LIVE column of the subscribers pane, wildcard row excluded.
private func liveSubscribers(_ screen: String) -> Int {
    var total = 0
    for line in screen.split(separator: "\n") where line.contains("Event") && line.contains("│") {
        guard let right = line.split(separator: "│", maxSplits: 1).last,
            let live = right.split(separator: " ").first.flatMap({ Int($0) })
        else { continue }
        total += live
    }
    return total
}

/// Whether any SGR escape sequence in `styledScreen` sets a foreground or background colour
/// (30-37, 40-47, 90-97, 100-107, or 38/48 extended); 39 and 49 only reset to the default.
private func usesColour(_ styledScreen: String) -> Bool {
    var rest = Substring(styledScreen)
    while let start = rest.range(of: "\u{1B}[") {
        rest = rest[start.upperBound...]
        guard let end = rest.firstIndex(of: "m") else { break }
        let parameters = rest[..<end].split(separator: ";").compactMap { Int($0) }
        if parameters.contains(where: {
            (30...38).contains($0) || (40...48).contains($0) || (90...107).contains($0)
        }) {
            return true
        }
        rest = rest[end...]
    }
    return false
}
