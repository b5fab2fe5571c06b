package import BusMonitor
package import ScreenGrid

/// The dashboard with the source it shows: the frame loop's side, which owns the source, drains
/// it into the dashboard each frame and carries out the commands keys ask for. The dashboard
/// itself does no I/O.
package final class SourceDashboard: DashboardController {
    /// Where the data comes from.
    package let source: any DashboardSource
    /// For a source that wants paced drains: the pace of its records, and when it is next
    /// drained (seconds since 1970).
    private var drainPacing: ReadPacing?
    private var nextDrain = -Double.infinity

    /// A dashboard of `source`.
    ///
    /// - Parameters:
    ///   - source: Where the data comes from.
    ///   - options: Glyphs and colours to draw with.
    package init(source: any DashboardSource, options: DashboardOptions = DashboardOptions()) {
        self.source = source
        super.init(title: source.title, commands: source.supportedCommands, options: options)
    }

    /// Drains the source into the dashboard; the source's title and commands may have changed.
    ///
    /// A source that ``DashboardSource/wantsPacedDrains`` is drained at once when it brought
    /// nothing last time, and otherwise after ``ReadPacing/pause`` while its records come at a
    /// trickle: a frame each 0.12 s shows what came, instead of one every 40 ms.
    package func update(now: Double) {
        // Read after the drain too: what it read may name another app (a replay stepping over a
        // new process's hello), and the header names it in the frame that shows its records.
        defer {
            title = source.title
            sourceCommands = source.supportedCommands
        }
        let paced = source.wantsPacedDrains
        // A clock set back holds no drain for longer than a pause.
        if paced, now < nextDrain, nextDrain - now <= ReadPacing.pause { return }
        let batches = source.drainBatches()
        if paced {
            let records = batches.reduce(0) { $0 + $1.records.count }
            var pacing = drainPacing ?? ReadPacing(now: now, allowance: ReadPacing.recordsPerPause)
            let pauses = records > 0 && pacing.pausesAfter(reading: records, at: now)
            drainPacing = pacing
            nextDrain = pauses ? now + ReadPacing.pause : -.infinity
        }
        for batch in batches { update(batch, now: now) }
    }

    /// The source that searches its records, this one or one it wraps (a replay under
    /// `--graph`).
    private static func searchable(_ source: any DashboardSource) -> (any SearchableSource)? {
        if let searchable = source as? any SearchableSource { return searchable }
        if let wrapping = source as? any WrappingSource { return searchable(wrapping.wrapped) }
        return nil
    }

    /// What every pane shows now, as one JSON line (see ``DashboardState/reportLine(cursor:now:)``).
    package func stateReport(cursor: Double?, now: Double) -> String {
        shown.reportLine(cursor: cursor, now: now)
    }

    /// Applies a key, carrying out a command for the source.
    ///
    /// - Returns: `false` when the person asked to quit.
    package func handle(_ key: DashboardKey) -> Bool {
        // What a key changes shows with what came since, not a pause later.
        nextDrain = -.infinity
        switch respond(to: key) {
        case .quit?:
            return false
        case .perform(let command)?:
            if command == .findNext || command == .findPrevious,
                let searchable = Self.searchable(source)
            {
                // The source reads its records; the dashboard says which lines it shows.
                let answer = searchable.find(forward: command == .findNext, matching: recordsShown())
                show(message: answer, at: lastNow ?? 0)
                return true
            }
            show(message: source.perform(command), at: lastNow ?? 0)
            return true
        case nil:
            return true
        }
    }
}
