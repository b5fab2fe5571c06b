package import BusMonitor
package import ScreenGrid

/// The dashboard with the source it shows: the frame loop's side, which owns the source, drains
/// it into the dashboard each frame and carries out the commands keys ask for. The dashboard
/// itself does no I/O.
package final class SourceDashboard: DashboardController {
    /// Where the data comes from.
    package let source: any DashboardSource

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
    package func update(now: Double) {
        title = source.title
        sourceCommands = source.supportedCommands
        for batch in source.drainBatches() { update(batch, now: now) }
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
