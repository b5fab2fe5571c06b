import BusMonitor
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

/// A source with no reader of its own (a NATS fleet) is drained at a trickle's pace: a frame
/// for what came in 0.12 s, not one every 40 ms; a busy one at every frame.
@Suite("Paced drains")
struct DrainPacingTests {
    /// Ticks the dashboard every 40 ms for `seconds` from `start`, a batch of `records` events
    /// queued before each tick; returns the ticks after which the source had been drained.
    private func tick(
        _ dashboard: SourceDashboard, _ source: ScriptedSource, records: Int, from start: Double,
        for seconds: Double
    ) -> (drained: Int, ticks: Int) {
        var drained = 0
        var ticks = 0
        var now = start
        while now < start + seconds {
            source.enqueue(SourceBatch(events: (0..<records).map { login("u\($0)", at: now) }))
            let before = source.waiting
            dashboard.update(now: now)
            if source.waiting < before { drained += 1 }
            ticks += 1
            now += 0.04
        }
        return (drained, ticks)
    }

    @Test("a trickle is drained once a pause, and nothing is lost")
    func aTrickleIsDrainedOncePerPause() {
        let source = ScriptedSource(wantsPacedDrains: true)
        let dashboard = SourceDashboard(source: source)
        let run = tick(dashboard, source, records: 2, from: startTime, for: 2)
        // 50 ticks; a drain every third or fourth (0.12 s, as the ticks fall), a batch each.
        #expect(run.drained <= run.ticks / 3 + 1, "\(run.drained) drains in \(run.ticks) ticks")
        #expect(run.drained >= run.ticks / 4)
        // What waits is drained later, not lost: the batches queue in the source.
        #expect(source.waiting == run.ticks - run.drained)
    }

    @Test("a source that is not paced is drained at every tick")
    func anUnpacedSourceIsDrainedEveryTick() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        let run = tick(dashboard, source, records: 2, from: startTime, for: 1)
        #expect(run.drained == run.ticks)
    }

    @Test("a busy source is drained at every tick")
    func aBusySourceIsDrainedEveryTick() {
        let source = ScriptedSource(wantsPacedDrains: true)
        let dashboard = SourceDashboard(source: source)
        // 500 records every 40 ms: 12,500 a second, far past a trickle.
        let run = tick(dashboard, source, records: 500, from: startTime, for: 1)
        #expect(run.drained == run.ticks)
    }

    @Test("a key drains at once, and a clock set back holds no drain")
    func aKeyAndAClockSetBackDrainAtOnce() {
        let source = ScriptedSource(wantsPacedDrains: true)
        let dashboard = SourceDashboard(source: source)
        source.enqueue(SourceBatch(events: [login("ann", at: startTime)]))
        dashboard.update(now: startTime)
        #expect(source.waiting == 0)
        source.enqueue(SourceBatch(events: [login("bob", at: startTime)]))
        dashboard.update(now: startTime + 0.04)
        #expect(source.waiting == 1, "held for the pause")
        _ = dashboard.handle(.character("?"))
        dashboard.update(now: startTime + 0.05)
        #expect(source.waiting == 0, "drained after the key")
        source.enqueue(SourceBatch(events: [login("cy", at: startTime)]))
        dashboard.update(now: startTime - 60)
        #expect(source.waiting == 0, "drained with the clock set back a minute")
    }
}
