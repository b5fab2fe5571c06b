import BusMonitor
import BusWire
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

/// A frame is drawn only when it would differ from the last: a quiet source costs next to nothing.
@Suite("Frames drawn only on change")
struct FrameSkippingTests {
    private func drawn(_ dashboard: SourceDashboard, at now: Double) {
        var grid = CellGrid(width: 100, height: 30)
        dashboard.render(into: &grid, now: now)
    }

    @Test("a quiet source needs one frame a second, for the clock")
    func aQuietSourceNeedsAFrameASecond() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        dashboard.update(now: startTime)
        #expect(dashboard.needsFrame(at: startTime))
        drawn(dashboard, at: startTime)

        // Nothing comes in: no frame until the clock enters the next second.
        for tick in 1..<25 {
            let now = startTime + Double(tick) * 0.04
            dashboard.update(now: now)
            #expect(!dashboard.needsFrame(at: now), "tick \(tick)")
        }
        dashboard.update(now: startTime + 1.0)
        #expect(dashboard.needsFrame(at: startTime + 1.0))
    }

    @Test("records, a new status, drops, notices and keys each call for a frame")
    func changesCallForAFrame() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        var now = startTime
        func settle() {
            dashboard.update(now: now)
            drawn(dashboard, at: now)
            #expect(!dashboard.needsFrame(at: now))
        }
        settle()

        let batches = [
            SourceBatch(events: [login("ann", at: now)]),
            SourceBatch(records: [], status: "detached"),
            SourceBatch(records: [], droppedEvents: 3, status: "detached"),
            SourceBatch(
                records: [], droppedEvents: 3, status: "detached",
                notices: [SourceNotice(time: now, text: "attached again")]),
        ]
        for batch in batches {
            now += 0.04
            source.enqueue(batch)
            dashboard.update(now: now)
            #expect(dashboard.needsFrame(at: now))
            drawn(dashboard, at: now)
            // The same status and drops again change nothing.
            now += 0.04
            source.enqueue(SourceBatch(records: [], droppedEvents: batch.droppedEvents, status: batch.status))
            dashboard.update(now: now)
            #expect(!dashboard.needsFrame(at: now))
        }

        // A key may change anything: the next frame is drawn.
        _ = dashboard.handle(.character("?"))
        #expect(dashboard.needsFrame(at: now))
    }
}
