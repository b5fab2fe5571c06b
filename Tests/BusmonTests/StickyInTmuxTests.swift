import Foundation
import TestSupport
import Testing

/// Sticky events, a protocol's subscribers and dropped events, as a person sees them in busmon
/// watching the simulated app.
@Suite(.serialized, .enabled(if: TmuxPane.isAvailable, "tmux is not installed; the terminal tests need it"))
struct StickyInTmuxTests {
    @Test func theStickyTypeIsMarkedItsValueShownAndTheProtocolHasARow() async throws {
        let pane = try TmuxPane(
            busmon: BusmonBinary.require(), arguments: ["--seed", "7"], width: 140, height: 44,
            environment: ["LC_ALL": TestHost.utf8Locale, "NO_COLOR": nil])
        defer { pane.close() }
        // The network status is published sticky; the account badge follows AuthEvent.
        try await pane.waitForScreen("a marked sticky type and the protocol's row") { screen in
            let lines = screen.split(separator: "\n")
            return lines.contains { $0.hasPrefix("NetworkStatus") && $0.contains("◆") }
                && lines.contains { $0.hasPrefix("any AuthEvent") }
        }
        // A status line's details show the sticky value now.
        try pane.press("/")
        // The payload's field, not the type's name: lifecycle lines name the type too.
        try pane.type("isOnline")
        try pane.press("Enter")
        try await pane.waitForScreen("the filtered log with a status line") { screen in
            screen.contains("filter: isOnline")
                && !screen.contains("no lines match the filter")
        }
        try pane.press("Space")
        try pane.press("Enter")
        try await pane.waitForScreen("the details with the sticky value") { screen in
            screen.contains("Details (Esc closes)") && screen.contains(#"sticky    {"isOnline":"#)
        }
        try pane.press("Escape")
        try pane.press("q")
        _ = try await pane.waitForExit()
    }
}
