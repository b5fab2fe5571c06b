import BusMonitor
import Dashboard
import EventBus
import Foundation
import ScreenGrid
import Simulator
import TestSupport
import Testing

/// Two dashboards fed the same batches and keys: one copies the panes that did not change from
/// its last frame, the other draws every pane.
private final class SideBySide {
    private let copyingSource = ScriptedSource()
    private let drawingSource = ScriptedSource()
    let copying: SourceDashboard
    let drawing: SourceDashboard
    private(set) var copied: CellGrid
    private(set) var drawn: CellGrid
    /// The frames the two drew differently.
    private(set) var mismatches: [Int] = []
    private var frames = 0

    init(width: Int, height: Int) {
        copying = SourceDashboard(source: copyingSource)
        drawing = SourceDashboard(source: drawingSource)
        drawing.reusesPanes = false
        copied = CellGrid(width: width, height: height)
        drawn = CellGrid(width: width, height: height)
    }

    /// Hands both `batch` at `now`, then `keys`, and draws a frame on each.
    func frame(_ batch: SourceBatch, keys: [DashboardKey], at now: Double) {
        copyingSource.enqueue(batch)
        drawingSource.enqueue(batch)
        for dashboard in [copying, drawing] {
            dashboard.update(now: now)
            for key in keys { _ = dashboard.handle(key) }
        }
        copying.render(into: &copied, now: now)
        drawing.render(into: &drawn, now: now)
        if copied != drawn { mismatches.append(frames) }
        frames += 1
    }

    /// What the last frames showed, when any differed.
    var difference: String { "frames that differ: \(mismatches)\n\(copied.text)\n---\n\(drawn.text)" }
}

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
        let screens = SideBySide(width: 150, height: 45)
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
        for frame in 0..<200 {
            if frame % 4 == 0, frame < 120 { app.advance(by: 0.16) }
            if frame == 45 { app.destroyScreens(count: 3) }
            now += 0.04
            screens.frame(captured.drain(), keys: keys[frame] ?? [], at: now)
        }
        #expect(screens.mismatches.isEmpty, "\(screens.difference)")
        #expect(screens.copied.text.contains("Observers") && screens.copied.text.contains("Handlers"))
        #expect(screens.copying.panesCopied > 0)
        #expect(screens.drawing.panesCopied == 0)
    }

    @Test("a copied log shows what a drawn one does: filtered, with a message, scrolled, and made anew")
    func copiedLogMatchesDrawnOne() {
        let screens = SideBySide(width: 120, height: 30)
        let names = ["ann", "bob", "cyd", "dee"]
        // A filter typed and cleared, a source's answer in the log's title, a scroll up and back,
        // pause and resume.
        let keys: [Int: [DashboardKey]] = [
            10: [.character("/"), .character("a"), .character("n"), .character("n"), .enter],
            20: [.character("-")], 30: [.character("/"), .backspace, .backspace, .backspace, .enter],
            40: [.up, .up], 45: [.end], 50: [.character(" ")], 55: [.character(" ")],
        ]
        var now = startTime
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
            screens.frame(batch, keys: keys[frame] ?? [], at: now)
        }
        #expect(screens.mismatches.isEmpty, "\(screens.difference)")
        #expect(screens.copying.panesCopied > 0)
    }
}
