import BusMonitor
import BusWire
import EventBus
import Foundation
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

/// The header, the filter prompt, the subscribers table and the help, read off the screen, at
/// the sizes busmon accepts.
@Suite("Dashboard screen")
struct DashboardScreenTests {
    /// A dashboard over a live app with `dropped` events dropped so far and DataLoadedEvent at
    /// 1,000 (exactly, from the bus's counters).
    private func dashboard(dropped: Int = 0) -> (SourceDashboard, ScriptedSource, Double) {
        let source = ScriptedSource(title: "simulated app (seed 7)")
        let dashboard = SourceDashboard(source: source)
        let now = startTime + 3
        source.enqueue(SourceBatch(droppedEvents: dropped, status: "live"))
        source.enqueue(
            SourceBatch(
                events: [dataLoaded(["inbox"], at: now - 0.1)],
                snapshot: BusSnapshot(
                    busName: "simulated app",
                    eventTypes: [statistics("DataLoadedEvent", live: 6, published: 1_000)],
                    wildcardObservers: 1),
                droppedEvents: dropped, status: "live"))
        dashboard.update(now: startTime)
        dashboard.update(now: now)
        return (dashboard, source, now)
    }

    private func type(_ text: String, into dashboard: SourceDashboard) {
        for character in text { _ = dashboard.handle(.character(character)) }
    }

    /// The style of the first cell of `text` in row `y`.
    private func style(of text: String, in grid: CellGrid, row y: Int) throws -> CellStyle {
        let row = grid.row(y)
        let start = try #require(row.firstRange(of: text)).lowerBound
        return grid[row.distance(from: row.startIndex, to: start), y].style
    }

    @Test func aFleetsLossesAreSaidAsLostOnTheWayNotAsTooFast() {
        // Given a fleet that lost events when its server restarted
        let source = ScriptedSource(title: "nats://127.0.0.1:4222")
        let dashboard = SourceDashboard(source: source)
        let origin = EventOrigin(app: "beta", host: "vm", pid: 7)
        source.enqueue(
            SourceBatch(
                droppedEvents: 215, status: "live",
                fleet: [FleetMember(origin: origin, presence: .active, lastSeen: startTime)]))
        dashboard.update(now: startTime)
        let grid = rendered(dashboard, width: 150, height: 45, now: startTime)
        // Then the header does not blame busmon's pace: the log says why
        #expect(grid.row(0).contains("215 dropped on the way"), "\(grid.row(0))")
        #expect(!grid.row(0).contains("too fast"))
    }

    @Test func aWarningTheStatusSaysIsNotSaidTwice() {
        // Given a source whose connection went away: its status and its warning say the same
        let source = ScriptedSource(title: "nats://127.0.0.1:4222")
        let dashboard = SourceDashboard(source: source)
        let text = "disconnected from nats://127.0.0.1:4222, retrying"
        source.enqueue(
            SourceBatch(status: text, notices: [SourceNotice(time: startTime, text: text, isWarning: true)]))
        dashboard.update(now: startTime)
        let header = rendered(dashboard, width: 150, height: 45, now: startTime).row(0)
        // Then the header says it once
        #expect(header.components(separatedBy: "disconnected from").count == 2, "\(header)")
    }

    @Test func lossesOutliveAPauseForTheLineBusmonEndsWith() {
        // Given a dashboard paused before the source dropped more
        let (dashboard, source, now) = dashboard(dropped: 5)
        _ = dashboard.handle(.character(" "))
        var later = SourceBatch(droppedEvents: 9, status: "live")
        later.droppedLifecycle = 2
        source.enqueue(later)
        dashboard.update(now: now + 1)
        // Then the losses busmon says as it ends are the newest, not the paused screen's
        #expect(dashboard.losses == RecordLosses(events: 9, lifecycleChanges: 2))
        #expect(dashboard.losses.phrase == "9 events and 2 lifecycle changes dropped on the way")
    }

    @Test(arguments: [(60, 16), (80, 24), (120, 40)])
    func dropsShowInTheHeaderApartFromTheCounts(width: Int, height: Int) throws {
        // Given a source that had to drop 100,107 events, a filter, and the display paused
        let (dashboard, _, now) = dashboard(dropped: 100_107)
        type("/DataLoaded", into: dashboard)
        _ = dashboard.handle(.enter)
        _ = dashboard.handle(.character(" "))
        let grid = rendered(dashboard, width: width, height: height, now: now)

        // Then the header says so, in a warning style, beside PAUSED, at every size
        let header = grid.row(0)
        #expect(header.contains("100,107 dropped"), "\(header)")
        #expect(header.contains("PAUSED"))
        let dropStyle = try style(of: "100,107", in: grid, row: 0)
        #expect(dropStyle.color == .red && dropStyle.bold)
        // and the counts stay the bus's exact ones
        let row = try #require(
            (0..<grid.height).map(grid.row).first { $0.hasPrefix("DataLoaded") }, "\(grid.text)")
        #expect(row.split(separator: " ")[1] == "1000")
    }

    @Test("a prompt that takes no more characters says so in its label")
    func aFullPromptSaysSo() {
        let (dashboard, _, now) = dashboard()
        type("/" + String(repeating: "a", count: DashboardController.longestPrompt - 1), into: dashboard)
        #expect(rendered(dashboard, width: 100, height: 30, now: now).row(29).hasPrefix("Filter: "))
        type("bXYZ", into: dashboard)
        let bar = rendered(dashboard, width: 100, height: 30, now: now).row(29)
        #expect(bar.hasPrefix("Filter (200 characters at most): "), "\(bar)")
        #expect(bar.contains("ab ") || bar.hasSuffix("ab"), "the keys past the limit are not taken: \(bar)")
    }

    @Test(arguments: [(60, 16), (120, 40)])
    func aLongFilterScrollsInThePromptAndTheHeaderKeepsItsState(width: Int, height: Int) throws {
        // Given a long filter applied, then edited further
        let (dashboard, _, now) = dashboard()
        let long = "DataLoadedEvent with a payload that mentions the inbox and the news and more"
        type("/" + long, into: dashboard)
        _ = dashboard.handle(.enter)
        type("/", into: dashboard)
        type(" and the end", into: dashboard)
        let grid = rendered(dashboard, width: width, height: height, now: now)

        // Then the prompt shows the end of what was typed, with the cursor after it
        let bar = grid.row(height - 1)
        #expect(bar.hasPrefix("Filter: "))
        #expect(bar.contains("more and the end"), "\(bar)")
        let cursorX = try #require(bar.firstRange(of: "the end")).upperBound
        #expect(grid[bar.distance(from: bar.startIndex, to: cursorX), height - 1].style.reverse)
        // and the header keeps the uptime and the source's state
        let header = grid.row(0)
        #expect(header.contains("up 00:00:03"), "\(header)")
        #expect(header.contains("live"), "\(header)")
    }

    @Test("a frame drawn into a grid that holds an older one leaves nothing of it")
    func aFrameDrawsOverEveryCell() {
        let (dashboard, _, now) = dashboard()
        var fresh = CellGrid(width: 100, height: 30)
        dashboard.render(into: &fresh, now: now)
        var reused = CellGrid(width: 100, height: 30)
        for y in 0..<30 {
            reused.put(String(repeating: "x", count: 100), x: 0, y: y, style: CellStyle(bold: true))
        }
        dashboard.render(into: &reused, now: now)
        #expect(reused == fresh)
    }

    @Test func aDeadCountStaysVisibleForAMomentAfterCleanup() throws {
        // Given 3 dead subscriptions seen in one snapshot and reclaimed by the next
        let (dashboard, source, start) = dashboard()
        for (offset, dead) in [(0.2, 3), (0.4, 0)] {
            source.enqueue(
                SourceBatch(
                    snapshot: BusSnapshot(
                        busName: "simulated app",
                        eventTypes: [
                            statistics(
                                "DataLoadedEvent", live: 6, dead: dead, reclaimed: 3 - dead, published: 1_000)
                        ], wildcardObservers: 1)))
            dashboard.update(now: start + offset)
        }
        func deadCell(at now: Double) throws -> (String, CellStyle) {
            let grid = rendered(dashboard, width: 80, height: 24, now: now)
            let y = try #require((0..<grid.height).first { grid.row($0).hasPrefix("DataLoadedEvent") })
            let columns = TableColumns(width: 80)
            let x = columns.subscribersX + 1 + TableColumns.narrowSubscriberWidths[0]
            let width = TableColumns.narrowSubscriberWidths[1]
            let text = String(grid.row(y).dropFirst(x).prefix(width)).trimmingCharacters(in: .whitespaces)
            return (text, grid[x + width - 1, y].style)
        }

        // Then for three seconds the column shows the 3 seen, marked as recent
        let (recent, recentStyle) = try deadCell(at: start + 2)
        #expect(recent == "3")
        #expect(recentStyle.dim && recentStyle.color == .yellow)
        // and after that the 0 there is now
        #expect(try deadCell(at: start + 4).0 == "0")

        // When 4 more are reclaimed that no snapshot caught dead, they show the same way.
        source.enqueue(
            SourceBatch(
                snapshot: BusSnapshot(
                    busName: "simulated app",
                    eventTypes: [statistics("DataLoadedEvent", live: 2, reclaimed: 7, published: 1_000)],
                    wildcardObservers: 1)))
        dashboard.update(now: start + 5)
        let (reclaimed, reclaimedStyle) = try deadCell(at: start + 6)
        #expect(reclaimed == "4")
        #expect(reclaimedStyle.dim)
        #expect(try deadCell(at: start + 9).0 == "0")
    }

    @Test func theHelpSaysHowToWatchCleanupSlowly() {
        let (dashboard, _, now) = dashboard()
        _ = dashboard.handle(.character("?"))
        let grid = rendered(dashboard, width: 120, height: 40, now: now)
        #expect(grid.text.contains("slow down with - (a simulated app: --rate 5)"))
    }

    /// Every line of the help at `width` x `height`, read by scrolling the help box to its end.
    private func helpText(_ dashboard: SourceDashboard, width: Int, height: Int, now: Double) -> String {
        _ = dashboard.handle(.character("?"))
        // The box's inside, row by row: between its side borders.
        func inside(_ grid: CellGrid) -> [String] {
            (0..<grid.height).compactMap { y -> String? in
                let row = grid.row(y)
                guard let left = row.firstIndex(of: "│"), let right = row.lastIndex(of: "│"), left < right
                else { return nil }
                return row[row.index(after: left)..<right].trimmingCharacters(in: .whitespaces)
            }
        }
        var rows = inside(rendered(dashboard, width: width, height: height, now: now))
        var seen = rows
        // Each step down brings one new row in at the bottom, until the end.
        for _ in 0..<60 {
            _ = dashboard.handle(.down)
            let next = inside(rendered(dashboard, width: width, height: height, now: now))
            if next == rows { break }
            seen.append(next.last ?? "")
            rows = next
        }
        return seen.filter { !$0.isEmpty }.joined(separator: " ")
    }

    @Test func theWholeHelpIsReadableAtTheSmallestSize() throws {
        let (dashboard, _, now) = dashboard()
        let width = DashboardController.minimumWidth
        let height = DashboardController.minimumHeight
        _ = dashboard.handle(.character("?"))
        let first = rendered(dashboard, width: width, height: height, now: now)
        _ = dashboard.handle(.escape)
        // The box says there is more, and how to see it.
        #expect(first.text.contains("↑↓ scroll"), "\(first.text)")

        // Every line's full text can be read, wrapped, by scrolling.
        let words = helpText(dashboard, width: width, height: height, now: now)
            .split(separator: " ").joined(separator: " ")
        let expected =
            dashboard.keyMap.help + DashboardController.shownPanes(in: dashboard.shown).flatMap(\.columnHelp)
        for line in expected {
            #expect(words.contains(line.keys), "\(line.keys) in \(words)")
            #expect(
                words.contains(line.text.split(separator: " ").joined(separator: " ")),
                "\(line.text) in \(words)")
        }
        #expect(!words.contains("…"))
    }

    @Test func theHelpScrollsWithTheKeysOfTheTable() throws {
        let (dashboard, _, now) = dashboard()
        let width = DashboardController.minimumWidth
        let height = DashboardController.minimumHeight
        /// The help box's title, "Help 1-9 of 40": the last row shown, and of how many.
        func title() throws -> (shown: Int, total: Int) {
            let grid = rendered(dashboard, width: width, height: height, now: now)
            let words = try #require((0..<grid.height).map(grid.row).first { $0.contains(" Help ") })
                .split(separator: " ")
            let help = try #require(words.firstIndex(of: "Help"))
            #expect(words[help + 2] == "of")
            let range = words[help + 1].split(separator: "-")
            return (try #require(Int(range[1])), try #require(Int(words[help + 3])))
        }
        _ = dashboard.handle(.character("?"))
        let top = try title()
        #expect(top.shown < top.total)
        // End goes to the last row; one up answers at once; Home goes back to the top.
        _ = dashboard.handle(.end)
        #expect(try title().shown == top.total)
        _ = dashboard.handle(.up)
        #expect(try title().shown == top.total - 1)
        _ = dashboard.handle(.home)
        #expect(try title().shown == top.shown)
        _ = dashboard.handle(.pageDown)
        #expect(try title().shown > top.shown + 1)
        // The help is still open, and Esc closes it.
        guard case .help = dashboard.overlay else {
            Issue.record("the help closed")
            return
        }
        _ = dashboard.handle(.escape)
        #expect(dashboard.overlay == nil)
    }
}
