/// A pane of the dashboard: a titled band of the screen that draws its rows into the rectangle
/// the layout gives it, takes focus, and does something on Enter.
///
/// Like a ratatui widget, a pane knows nothing of the screen beyond its rectangle. Panes are
/// listed once, in ``DashboardController/panes``; the layout stacks them in that order, Tab
/// moves through their focus titles in that order, and the help's Enter line and column notes
/// come from them. Adding a pane is a type and an entry in that list:
///
/// ```swift
/// struct RatesPane: DashboardPane {
///     let focusTitles = ["Rates"]
///     let name = "rates"
///     let enterHelp = "filter by type"
///     func height(screenHeight: Int, state: DashboardState) -> Int? { 6 }
///     func contentRows(in area: Rect) -> Int { area.height - 1 }
///     func draw(into grid: inout CellGrid, area: Rect, view: DashboardView, focusedPart: Int?) {
///         view.drawRule(&grid, y: area.y, from: 0, to: area.width, title: "Rates", focused: focusedPart != nil)
///     }
///     // move(by:rows:in:), moveToFirst(in:), moveToLast(in:) and open(in:)
/// }
/// // and in DashboardController:
/// static let panes: [any DashboardPane] = [FleetPane(), TablePane(), ObserversPane(), RatesPane(), LogPane()]
/// ```
///
/// Selection and Enter are handled against the controller between frames (the update step);
/// drawing reads only the ``DashboardView`` of the frame.
protocol DashboardPane: Sendable {
    /// The titles of the pane's parts that take focus, in Tab order: the tables have two
    /// (event types and subscribers), the log one.
    var focusTitles: [String] { get }
    /// What the help calls the pane, such as `log`.
    var name: String { get }
    /// What Enter does in the pane, for the help, such as `the line's full payload`.
    var enterHelp: String { get }
    /// Notes on the pane's columns, for the help.
    var columnHelp: [KeyHint] { get }
    /// Whether focus starts here.
    var takesFirstFocus: Bool { get }

    /// Whether the pane is on screen for `state`; one that is not takes no rows, no focus and
    /// no lines of the help (the Fleet pane shows only for a source that watches several apps).
    func isShown(in state: DashboardState) -> Bool
    /// Rows the pane takes on a screen `screenHeight` rows high, or `nil` for the rows the other
    /// panes leave.
    func height(screenHeight: Int, state: DashboardState) -> Int?
    /// The fewest rows the pane gives back to when the screen is too short for every pane's
    /// ``height(screenHeight:state:)`` and the log's three lines, or `nil` when it keeps them all.
    func minimumHeight(screenHeight: Int, state: DashboardState) -> Int?
    /// Rows of `area` that show lines (not titles); paging moves by this much.
    func contentRows(in area: Rect) -> Int
    /// Draws the pane into `area` of `grid`; `focusedPart` indexes ``focusTitles``.
    func draw(into grid: inout CellGrid, area: Rect, view: DashboardView, focusedPart: Int?)

    /// Moves the selection `delta` lines; `rows` lines are in view.
    func move(by delta: Int, rows: Int, in dashboard: DashboardController)
    /// Selects the first line.
    func moveToFirst(in dashboard: DashboardController)
    /// Selects the last line.
    func moveToLast(in dashboard: DashboardController)
    /// What Enter does on the selection, or `nil` when there is nothing to open.
    func open(in dashboard: DashboardController) -> PaneEffect?
}

extension DashboardPane {
    /// No notes.
    var columnHelp: [KeyHint] { [] }
    /// Focus starts elsewhere.
    var takesFirstFocus: Bool { false }
    /// Always shown.
    func isShown(in state: DashboardState) -> Bool { true }
    /// Keeps the rows it asks for.
    func minimumHeight(screenHeight: Int, state: DashboardState) -> Int? { nil }
}

/// What Enter in a pane asks the dashboard to do.
enum PaneEffect {
    /// Filter the log (`nil` clears the filter); the log follows its newest match.
    case filter(LogFilter?)
    /// Show the full text of a log line.
    case showDetail(LogEntry)
    /// List the objects of an observer class in the Observers pane.
    case showObjects(String)
    /// Go back from a class's objects to the classes.
    case closeObjects
}

/// One part of one pane that takes focus: the pane's index in ``DashboardController/panes``
/// and the index of the part in its ``DashboardPane/focusTitles``.
struct PaneFocus: Equatable {
    let pane: Int
    let part: Int
}

extension DashboardController {
    /// The panes, top to bottom: the one list the layout, focus, Tab order and help come from.
    static let panes: [any DashboardPane] = [FleetPane(), TablePane(), ObserversPane(), LogPane()]

    /// Every part that takes focus, in Tab order; Tab passes over the parts of panes not shown.
    static let focusOrder: [PaneFocus] = panes.enumerated().flatMap { index, pane in
        pane.focusTitles.indices.map { PaneFocus(pane: index, part: $0) }
    }

    /// Where focus starts.
    static let firstFocus = focusOrder.firstIndex { panes[$0.pane].takesFirstFocus } ?? 0

    /// The focused part.
    var focus: PaneFocus { Self.focusOrder[focusIndex] }

    /// The focused part's title, such as `Log`.
    var focusTitle: String { Self.panes[focus.pane].focusTitles[focus.part] }

    /// The focused pane.
    var focusedPane: any DashboardPane { Self.panes[focus.pane] }

    /// The panes shown for `state`, top to bottom.
    static func shownPanes(in state: DashboardState) -> [any DashboardPane] {
        panes.filter { $0.isShown(in: state) }
    }

    /// The help's Enter line: what Enter does in each pane shown for `state`.
    static func enterHelp(in state: DashboardState) -> String {
        shownPanes(in: state).map { $0.name + ": " + $0.enterHelp }.joined(separator: "; ")
    }
}
