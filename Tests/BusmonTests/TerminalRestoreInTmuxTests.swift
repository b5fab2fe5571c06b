import Foundation
import TestSupport
import Testing

/// What busmon leaves on the terminal when it quits, in a real terminal (tmux).
@Suite(.serialized, .enabled(if: TmuxPane.isAvailable, "tmux is not installed; the terminal tests need it"))
struct TerminalRestoreInTmuxTests {
    @Test("after resizes, quitting leaves none of the dashboard on the terminal")
    func quittingAfterResizesLeavesAClearTerminal() async throws {
        // Given busmon at 110x32, shrunk to 30x8 and grown to 130x40, as a person resizes a window
        let pane = try TmuxPane(
            busmon: BusmonBinary.require(), arguments: ["--seed", "7"], width: 110, height: 32,
            environment: ["LC_ALL": TestHost.utf8Locale])
        defer { pane.close() }
        try await pane.waitForScreen(containing: "Event types")
        try pane.resize(width: 30, height: 8)
        try await pane.waitForScreen(containing: "Terminal too small")
        try pane.resize(width: 130, height: 40)
        try await pane.waitForScreen(containing: "Event types")

        // When it quits
        try pane.press("q")
        #expect(try await pane.waitForExit() == "EXIT=0 TTY=restored")

        // Then the terminal holds busmon's exit line and the script's, nothing of the dashboard.
        let lines = try pane.screen().split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }
        #expect(lines.count == 2, "\(lines.joined(separator: "\n"))")
        #expect(lines.first?.hasPrefix("busmon: ") == true)
    }
}
