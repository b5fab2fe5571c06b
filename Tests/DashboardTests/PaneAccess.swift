@testable import Dashboard

/// What the tests read of the panes, by name, as the controller's older shape spelled it.
extension DashboardController {
    static var tablePane: Int { index(of: TablePane.self) ?? -1 }
    static var logPane: Int { index(of: LogPane.self) ?? -1 }
    static var observersPane: Int { index(of: ObserversPane.self) ?? -1 }
    static var fleetPane: Int { index(of: FleetPane.self) ?? -1 }
    static var handlersPane: Int { index(of: HandlersPane.self) ?? -1 }

    /// Log lines the last frame showed.
    var logRows: Int { rows(ofPane: Self.logPane) }

    private var logPaneState: LogPane { pane(LogPane.self) ?? LogPane() }
    var isFollowing: Bool { logPaneState.isFollowing }
    var selectedSequence: Int? { logPaneState.selectedSequence }
    var topSequence: Int? { logPaneState.topSequence }

    var tableSelection: Int { pane(TablePane.self)?.selection.index ?? 0 }
    var tableTop: Int { pane(TablePane.self)?.selection.top ?? 0 }

    var selectedClass: String? { pane(ObserversPane.self)?.classSelection.selected }
    var openClass: String? { pane(ObserversPane.self)?.openClass }

    /// Selects the class at `index` of the Observers pane, as moving there from the top does.
    func moveClassSelection(to index: Int) {
        let context = paneContext()
        withPane(ObserversPane.self) {
            $0.moveToFirst(in: context)
            $0.move(by: index, rows: 1, in: context)
        }
    }
}

extension DashboardView {
    /// The log lines the frame shows.
    var log: LogView { panes.lazy.compactMap { $0 as? LogPane }.first?.inView ?? LogPane().inView }
}
