import BusMonitor
import BusWire
import EventBus
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

/// A following log moves on at most ten times a second, and never leaves a line unshown.
@Suite("The log's pace while following")
struct LogFollowPacingTests {
    /// The user names of the login lines the screen shows, top first.
    private func shownNames(_ dashboard: SourceDashboard, at now: Double) -> [String] {
        var grid = CellGrid(width: 120, height: 30)
        dashboard.render(into: &grid, now: now)
        return (0..<grid.height).compactMap { row in
            let text = grid.row(row)
            guard let range = text.firstRange(of: "\"userName\":\"") else { return nil }
            return String(text[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    /// A following dashboard that showed "ann" at ``startTime`` and holds back "bob", which came
    /// 20 ms later.
    private func holdingBob() -> (ScriptedSource, SourceDashboard) {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        feed("ann", source, dashboard, at: startTime)
        _ = shownNames(dashboard, at: startTime)
        feed("bob", source, dashboard, at: startTime + 0.02)
        return (source, dashboard)
    }

    /// Hands the dashboard a login by `name` at `now`.
    private func feed(_ name: String, _ source: ScriptedSource, _ dashboard: SourceDashboard, at now: Double)
    {
        source.enqueue(SourceBatch(events: [login(name, at: now)]))
        dashboard.update(now: now)
    }

    @Test("lines that come within a tenth of a second of the last move wait for the next, and are then shown")
    func linesWaitForTheNextMove() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        feed("ann", source, dashboard, at: startTime)
        #expect(shownNames(dashboard, at: startTime).last == "ann", "after a quiet moment, at once")

        feed("bob", source, dashboard, at: startTime + 0.04)
        #expect(dashboard.needsFrame(at: startTime + 0.04))
        #expect(shownNames(dashboard, at: startTime + 0.04).last == "ann", "held back")
        // Nothing else comes in, yet the held-back line is due: the loop must draw.
        dashboard.update(now: startTime + 0.08)
        #expect(!dashboard.needsFrame(at: startTime + 0.08))
        dashboard.update(now: startTime + 0.1)
        #expect(dashboard.needsFrame(at: startTime + 0.1))
        #expect(shownNames(dashboard, at: startTime + 0.1) == ["ann", "bob"])
        #expect(!dashboard.needsFrame(at: startTime + 0.12))

        // A line long after the last move shows at once.
        feed("cyd", source, dashboard, at: startTime + 0.5)
        #expect(shownNames(dashboard, at: startTime + 0.5).last == "cyd")
    }

    @Test("under a steady stream the log moves on ten times a second, keeping up with the newest")
    func aSteadyStreamMovesOnTenTimesASecond() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        var moves = 0
        var lastShown: String?
        // Eight lines a frame for two seconds, more than the log's rows hold, 25 frames a second.
        for frame in 0..<50 {
            let now = startTime + Double(frame) * 0.04
            source.enqueue(
                SourceBatch(events: (0..<8).map { login("u\(frame * 8 + $0)", at: now) }))
            dashboard.update(now: now)
            let shown = shownNames(dashboard, at: now)
            if shown.last != lastShown { moves += 1 }
            lastShown = shown.last
        }
        #expect((18...21).contains(moves), "moved \(moves) times in 2 s")
        #expect(lastShown == "u399" || lastShown == "u391" || lastShown == "u383")
    }

    @Test("a key that follows, or moves down while following, shows the newest line at once")
    func keysShowTheNewestAtOnce() {
        let (source, dashboard) = holdingBob()
        #expect(shownNames(dashboard, at: startTime + 0.02).last == "ann")
        _ = dashboard.handle(.end)
        #expect(shownNames(dashboard, at: startTime + 0.03).last == "bob")

        feed("cyd", source, dashboard, at: startTime + 0.05)
        #expect(shownNames(dashboard, at: startTime + 0.05).last == "bob")
        _ = dashboard.handle(.down)
        #expect(shownNames(dashboard, at: startTime + 0.06).last == "cyd")
    }

    @Test("Esc that clears the filter shows the newest lines at once")
    func clearingTheFilterCatchesUp() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        feed("ann", source, dashboard, at: startTime)
        feed("bob", source, dashboard, at: startTime)
        for character in "/ann" { _ = dashboard.handle(.character(character)) }
        _ = dashboard.handle(.enter)
        #expect(shownNames(dashboard, at: startTime) == ["ann"])
        _ = dashboard.handle(.escape)
        #expect(shownNames(dashboard, at: startTime + 0.01) == ["ann", "bob"])
    }

    @Test("Enter while following opens the newest line shown, not one still held back")
    func enterOpensTheLineShown() {
        let (_, dashboard) = holdingBob()
        #expect(shownNames(dashboard, at: startTime + 0.02).last == "ann")
        _ = dashboard.handle(.enter)
        var grid = CellGrid(width: 120, height: 30)
        dashboard.render(into: &grid, now: startTime + 0.03)
        #expect(grid.text.contains("id-ann"))
        #expect(!grid.text.contains("id-bob"))
    }

    @Test("paused, lines held back stay held, and call for no frames")
    func pausedHoldsStill() {
        let (_, dashboard) = holdingBob()
        _ = dashboard.handle(.character(" "))
        #expect(shownNames(dashboard, at: startTime + 0.03) == ["ann"])
        for tick in 1...10 {
            let now = startTime + 0.03 + Double(tick) * 0.04
            dashboard.update(now: now)
            #expect(!dashboard.needsFrame(at: now), "tick \(tick)")
        }
        // Enter opens the line shown.
        _ = dashboard.handle(.enter)
        var grid = CellGrid(width: 120, height: 30)
        dashboard.render(into: &grid, now: startTime + 0.5)
        #expect(grid.text.contains("id-ann") && !grid.text.contains("id-bob"))
        _ = dashboard.handle(.escape)
        _ = dashboard.handle(.character(" "))
        #expect(shownNames(dashboard, at: startTime + 0.5) == ["ann", "bob"])
    }

    @Test("a log made anew, numbered from 0 again, shows its newest lines at once")
    func aNewLogIsNotHeldBack() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        source.enqueue(SourceBatch(events: ["ann", "bob", "cyd"].map { login($0, at: startTime) }))
        dashboard.update(now: startTime)
        #expect(shownNames(dashboard, at: startTime) == ["ann", "bob", "cyd"])
        feed("dee", source, dashboard, at: startTime + 0.02)
        #expect(shownNames(dashboard, at: startTime + 0.02).last == "cyd")
        // A replay read again from a checkpoint: its lines take the old ones' numbers.
        var replaced = SourceBatch(events: (0..<5).map { login("eve\($0)", at: startTime + 0.04) })
        replaced.replacesState = true
        source.enqueue(replaced)
        dashboard.update(now: startTime + 0.04)
        #expect(shownNames(dashboard, at: startTime + 0.04) == (0..<5).map { "eve\($0)" })
    }

    @Test("a wall clock set back holds nothing back")
    func aClockSetBackHoldsNothing() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        feed("ann", source, dashboard, at: startTime)
        _ = shownNames(dashboard, at: startTime)
        feed("bob", source, dashboard, at: startTime - 5)
        #expect(shownNames(dashboard, at: startTime - 5).last == "bob")
        feed("cyd", source, dashboard, at: startTime - 4)
        #expect(shownNames(dashboard, at: startTime - 4).last == "cyd")
    }
}
