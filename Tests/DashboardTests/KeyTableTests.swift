import BusMonitor
import BusWire
import EventBus
import Foundation
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

/// The key table: every key it lists works as listed, and the key bar, the help and the
/// key table in docs/busmon.md all come from it.
@Suite("Key table")
struct KeyTableTests {
    /// A dashboard with 100 log lines of two types, drawn once at 80x24.
    private func dashboard(_ source: ScriptedSource = ScriptedSource()) -> SourceDashboard {
        let dashboard = dashboardWithHundredLogLines(source)
        _ = rendered(dashboard, width: 80, height: 24, now: startTime)
        return dashboard
    }

    @Test func everyKeyTheTableListsDoesWhatItSays() throws {
        let bindings = dashboard().keyMap.bindings
        #expect(bindings.count >= 10)
        for binding in bindings {
            for keys in binding.keys {
                for key in keys.keys {
                    try check(key, does: keys.action, listedAs: binding.help.keys)
                }
            }
        }
    }

    /// Presses `key` on a fresh dashboard and checks that `action` happened.
    private func check(_ key: DashboardKey, does action: DashboardAction, listedAs listed: String) throws {
        let source = ScriptedSource()
        let dashboard = dashboard(source)
        let newest = dashboard.shown.log.nextSequence - 1
        let page = dashboard.logRows - 1
        let comment: Comment = "\(key) (listed as \(listed)) should \(action)"
        switch action {
        case .quit:
            #expect(!dashboard.handle(key), comment)
        case .showHelp:
            _ = dashboard.handle(key)
            guard case .help = dashboard.overlay else {
                Issue.record(comment)
                return
            }
        case .togglePause:
            _ = dashboard.handle(key)
            #expect(dashboard.isPaused, comment)
        case .openFilter:
            _ = dashboard.handle(key)
            #expect(dashboard.prompt == "", comment)
        case .back:
            for key in [DashboardKey.character("/"), .character("x"), .enter] { _ = dashboard.handle(key) }
            #expect(dashboard.filter != nil)
            _ = dashboard.handle(key)
            #expect(dashboard.filter == nil, comment)
        case .showObservers:
            _ = dashboard.handle(key)
            #expect(dashboard.focus.pane == DashboardController.observersPane, comment)
        case .command(let command):
            _ = dashboard.handle(key)
            #expect(source.performed == [command], comment)
        case .ask(let label, let command):
            _ = dashboard.handle(key)
            #expect(dashboard.prompt == "" && dashboard.promptAsks?.label == label, comment)
            for key in [DashboardKey.character("1"), .enter] { _ = dashboard.handle(key) }
            #expect(source.performed == [command.with(value: "1")], comment)
        case .lineUp:
            _ = dashboard.handle(key)
            #expect(!dashboard.isFollowing, comment)
            #expect(dashboard.selectedSequence == newest - 1, comment)
        case .lineDown:
            _ = dashboard.handle(.character("g"))
            _ = dashboard.handle(key)
            #expect(dashboard.selectedSequence == 1, comment)
        case .pageUp:
            _ = dashboard.handle(key)
            #expect(dashboard.selectedSequence == newest - page, comment)
        case .pageDown:
            _ = dashboard.handle(.character("g"))
            _ = dashboard.handle(key)
            #expect(dashboard.selectedSequence == page, comment)
        case .first:
            _ = dashboard.handle(key)
            #expect(!dashboard.isFollowing, comment)
            #expect(dashboard.selectedSequence == 0, comment)
        case .last:
            _ = dashboard.handle(.character("g"))
            _ = dashboard.handle(key)
            #expect(dashboard.isFollowing, comment)
        case .nextPane:
            let order = shownFocusOrder(dashboard)
            let before = try #require(order.firstIndex(of: dashboard.focus))
            _ = dashboard.handle(key)
            #expect(dashboard.focus == order[(before + 1) % order.count], comment)
        case .previousPane:
            let order = shownFocusOrder(dashboard)
            let before = try #require(order.firstIndex(of: dashboard.focus))
            _ = dashboard.handle(key)
            #expect(dashboard.focus == order[(before + order.count - 1) % order.count], comment)
        case .open:
            _ = dashboard.handle(key)
            guard case .detail(let entry, _) = dashboard.overlay else {
                Issue.record(comment)
                return
            }
            #expect(entry.sequence == newest, comment)
        }
    }

    /// The parts Tab moves through: those of the panes shown.
    private func shownFocusOrder(_ dashboard: SourceDashboard) -> [PaneFocus] {
        DashboardController.focusOrder.filter {
            DashboardController.panes[$0.pane].isShown(in: dashboard.shown)
        }
    }

    @Test func theKeyBarAndTheHelpComeFromTheTable() throws {
        let dashboard = dashboard()
        let keyMap = dashboard.keyMap
        var grid = CellGrid(width: 200, height: 40)
        dashboard.render(into: &grid, now: startTime)
        #expect(grid.row(39) == keyMap.bar.map { "\($0.keys) \($0.text)" }.joined(separator: " "))

        _ = dashboard.handle(.character("?"))
        dashboard.render(into: &grid, now: startTime)
        let help = grid.text
        for line in keyMap.help {
            #expect(
                help.contains(line.keys + String(repeating: " ", count: 18 - line.keys.count) + line.text))
        }
        // Pausing changes the bar's word.
        _ = dashboard.handle(.escape)
        _ = dashboard.handle(.character(" "))
        #expect(dashboard.keyMap.bar.contains(KeyHint(keys: "Space", text: "Resume")))
    }

    @Test func aDisabledBindingShowsNowhereAndDoesNothing() {
        let keyMap = KeyMap(bindings: [
            KeyBinding(
                [.character("x")], .showHelp, help: KeyHint(keys: "x", text: "on"),
                bar: KeyHint(keys: "x", text: "On")),
            KeyBinding(
                [.character("y")], .quit, help: KeyHint(keys: "y", text: "off"),
                bar: KeyHint(keys: "y", text: "Off"),
                isEnabled: false),
        ])
        #expect(keyMap.action(for: .character("x")) == .showHelp)
        #expect(keyMap.action(for: .character("y")) == nil)
        #expect(keyMap.bar == [KeyHint(keys: "x", text: "On")])
        #expect(keyMap.help == [KeyHint(keys: "x", text: "on")])
    }

    @Test func theDocumentedKeyTableIsTheKeyTable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("docs/busmon.md"), encoding: .utf8)
        let section =
            try #require(guide.components(separatedBy: "\n## busmon\n").dropFirst().first)
            .components(separatedBy: "\n## ").first ?? ""
        var rows: [KeyHint] = []
        var inTable = false
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "| key | does |" {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map {
                $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "")
            }
            guard cells.count == 2, cells[0] != "---" else { continue }
            rows.append(KeyHint(keys: cells[0], text: cells[1]))
        }

        // busmon's fullest table: the simulated app's commands with a fleet's panes (a fleet
        // adds to the lines of `/` and Enter), and what a replay (of a fleet) has instead.
        func fleetDashboard(_ source: ScriptedSource) -> SourceDashboard {
            let dashboard = dashboard(source)
            source.enqueue(SourceBatch(fleet: threeAppFleet(lastSeen: startTime)))
            dashboard.update(now: startTime)
            return dashboard
        }
        var expected = fleetDashboard(ScriptedSource()).keyMap.help
        for line in fleetDashboard(ScriptedSource(supportedCommands: [.replaySpeed])).keyMap.help
        where !expected.contains(line) {
            expected.append(line)
        }
        #expect(rows.count == expected.count)
        #expect(Set(rows.map(\.markdownRow)) == Set(expected.map(\.markdownRow)))
    }
}

extension KeyHint {
    /// The hint as a row of a markdown table.
    var markdownRow: String { "| \(keys) | \(text) |" }
}
