import BusMonitor
import Dashboard
import EventBus
import Foundation
import ScreenGrid
import Simulator
import TestSupport
import Testing

/// Frames that copy the panes whose inputs did not change from the last frame, against frames
/// that draw every pane, fed the same batches and the same keys.
@Suite("Panes copied from the last frame")
struct PaneReuseTests {
    @Test("copying unchanged panes shows what drawing every pane shows, frame after frame")
    func copiedPanesMatchDrawnOnes() {
        let bus = EventBus(name: "simulated")
        let app = SimulatedApp(bus: bus, seed: 3, rate: 300, churn: 8)
        // A snapshot with every drain; the app moves every fourth frame, so the panes that
        // draw from snapshots stay the same for a few frames, and change in between; then it
        // stops, and only the clock moves the sparklines on.
        let captured = LocalBusSource(bus: bus, capacity: 10_000, snapshotInterval: 0)
        let copyingSource = ScriptedSource()
        let drawingSource = ScriptedSource()
        let copying = SourceDashboard(source: copyingSource)
        let drawing = SourceDashboard(source: drawingSource)
        drawing.reusesPanes = false
        var copied = CellGrid(width: 150, height: 45)
        var drawn = CellGrid(width: 150, height: 45)
        // Focus and selection move, a class opens and closes, help comes and goes: keys at
        // these frames, to both dashboards.
        let keys: [Int: [DashboardKey]] = [
            21: [.tab, .tab, .tab], 31: [.down], 41: [.enter], 51: [.down, .down], 61: [.escape],
            71: [.tab], 81: [.down], 91: [.character("?")], 95: [.escape], 101: [.character(" ")],
            111: [.character(" ")], 131: [.tab, .tab, .tab], 141: [.down], 151: [.tab], 161: [.enter],
            171: [.down], 181: [.escape], 185: [.tab], 187: [.down], 189: [.tab], 191: [.down], 193: [.tab],
            195: [.down], 197: [.tab], 199: [.down],
        ]
        var now = Date().timeIntervalSince1970
        var mismatches: [Int] = []
        for frame in 0..<200 {
            if frame % 4 == 0, frame < 120 { app.advance(by: 0.16) }
            if frame == 45 { app.destroyScreens(count: 3) }
            let batch = captured.drain()
            copyingSource.enqueue(batch)
            drawingSource.enqueue(batch)
            now += 0.04
            copying.update(now: now)
            drawing.update(now: now)
            for key in keys[frame] ?? [] {
                _ = copying.handle(key)
                _ = drawing.handle(key)
            }
            copying.render(into: &copied, now: now)
            drawing.render(into: &drawn, now: now)
            if copied != drawn { mismatches.append(frame) }
        }
        #expect(mismatches.isEmpty, "frames that differ: \(mismatches)\n\(copied.text)\n---\n\(drawn.text)")
        #expect(copied.text.contains("Observers") && copied.text.contains("Handlers"))
        #expect(copying.panesCopied > 0)
        #expect(drawing.panesCopied == 0)
    }

    @Test("a copied log shows what a drawn one does: filtered, with a message, scrolled, and made anew")
    func copiedLogMatchesDrawnOne() {
        let copyingSource = ScriptedSource()
        let drawingSource = ScriptedSource()
        let copying = SourceDashboard(source: copyingSource)
        let drawing = SourceDashboard(source: drawingSource)
        drawing.reusesPanes = false
        var copied = CellGrid(width: 120, height: 30)
        var drawn = CellGrid(width: 120, height: 30)
        let names = ["ann", "bob", "cyd", "dee"]
        // A filter typed and cleared, a source's answer in the log's title, a scroll up and back,
        // pause and resume.
        let keys: [Int: [DashboardKey]] = [
            10: [.character("/"), .character("a"), .character("n"), .character("n"), .enter],
            20: [.character("-")], 30: [.character("/"), .backspace, .backspace, .backspace, .enter],
            40: [.up, .up], 45: [.end], 50: [.character(" ")], 55: [.character(" ")],
        ]
        var now = startTime
        var mismatches: [Int] = []
        // Lines come in the first frames and the last; keys act while the log stands still, so
        // that nothing but what they change differs from the frame before.
        for frame in 0..<80 {
            now += 0.04
            var batch = SourceBatch()
            if frame < 5 || frame >= 70 {
                batch = SourceBatch(
                    events: (0..<3).map { login(names[(frame * 3 + $0) % names.count], at: now) })
            }
            // A replay that read again from a checkpoint: a new log, numbered from 0 again, with
            // other lines under the same numbers as the old one's.
            if frame == 60 {
                batch = SourceBatch(events: (0..<15).map { login("eve\($0)", at: now) })
                batch.replacesState = true
            }
            copyingSource.enqueue(batch)
            drawingSource.enqueue(batch)
            copying.update(now: now)
            drawing.update(now: now)
            for key in keys[frame] ?? [] {
                _ = copying.handle(key)
                _ = drawing.handle(key)
            }
            copying.render(into: &copied, now: now)
            drawing.render(into: &drawn, now: now)
            if copied != drawn { mismatches.append(frame) }
        }
        #expect(mismatches.isEmpty, "frames that differ: \(mismatches)\n\(copied.text)\n---\n\(drawn.text)")
        #expect(copying.panesCopied > 0)
    }
}
