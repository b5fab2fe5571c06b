internal import ScreenGrid

/// A pane of the dashboard: a titled band of the screen that owns its selection and what is in
/// view, draws its rows into the rectangle the layout gives it, takes focus, and does something
/// on Enter.
///
/// Like a ratatui `StatefulWidget`, a pane is a value holding its own state, and knows nothing
/// of the screen beyond its rectangle. Panes are listed once, in ``DashboardController/panes``;
/// the layout stacks them in that order, Tab moves through their focus titles in that order, and
/// the help's Enter line and column notes come from them. Adding a pane is one file (its type,
/// its state, its drawing) and an entry in that list:
///
/// ```swift
/// struct RatesPane: DashboardPane {
///     let focusTitles = ["Rates"]
///     let name = "rates"
///     let enterHelp = "filter by type"
///     var selection = ListSelection<String>()
///     func height(screenHeight: Int, state: DashboardState) -> Int? { 6 }
///     func contentRows(in area: Rect) -> Int { area.height - 1 }
///     mutating func layOut(rows: Int, in context: PaneContext) { ... }
///     func draw(into grid: inout CellGrid, area: Rect, canvas: PaneCanvas, focusedPart: Int?) {
///         canvas.drawRule(&grid, y: area.y, from: 0, to: area.width, title: "Rates", focused: focusedPart != nil)
///     }
///     // move(by:rows:in:), moveToFirst(in:), moveToLast(in:) and open(in:)
/// }
/// // and in DashboardController:
/// static let panes: [any DashboardPane] = [FleetPane(), TablePane(), ObserversPane(), RatesPane(), LogPane()]
/// ```
///
/// Keys change a pane between frames (the update step), against the ``PaneContext`` of the
/// state shown; a frame first lays every pane out (``layOut(rows:in:)``, which keeps the
/// selection in view), then draws the copies it laid out, changing nothing.
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

    /// Works out what the pane shows in `rows` rows of lines this frame, keeping the selection
    /// in view; called once a frame, before drawing, for a pane that is shown.
    mutating func layOut(rows: Int, in context: PaneContext)
    /// Draws the pane as last laid out into `area` of `grid`, from its own state and `canvas`
    /// alone; `focusedPart` indexes ``focusTitles``.
    func draw(into grid: inout CellGrid, area: Rect, canvas: PaneCanvas, focusedPart: Int?)
    /// Everything ``draw(into:area:canvas:focusedPart:)`` reads besides the area, the focus and
    /// the grid's width, as one value, or `nil` for a pane that draws every frame. While it,
    /// the area, the focus and the width stay as they were, the frame copies the pane's rows
    /// from the last frame instead of drawing them again.
    func drawingInputs(canvas: PaneCanvas) -> PaneInputs?

    /// Moves the selection `delta` lines; `rows` lines are in view.
    mutating func move(by delta: Int, rows: Int, in context: PaneContext)
    /// Selects the first line.
    mutating func moveToFirst(in context: PaneContext)
    /// Selects the last line.
    mutating func moveToLast(in context: PaneContext)
    /// What Enter does on the selection: a change of the pane's own (returning `nil`), or
    /// something the dashboard does; `nil` too when there is nothing to open.
    mutating func open(in context: PaneContext) -> PaneEffect?
    /// Esc: goes back a step within the pane and returns `true`, or returns `false` when the
    /// pane has nowhere to go back to (then Esc clears the filter).
    mutating func goBack() -> Bool
}

/// What a pane's drawing depends on, compared from frame to frame: equal inputs draw equal
/// cells, so a pane whose inputs did not change is copied, not drawn (as Elm's `Html.Lazy` skips
/// a view whose arguments are the same). A snapshot-driven pane (Observers, Handlers) changes a
/// few times a second while the log moves every frame.
struct PaneInputs: Equatable {
    private let value: Any
    private let isEqual: (Any) -> Bool

    /// Inputs made of `value`, equal to other inputs holding an equal value of the same type.
    init<Value: Equatable>(_ value: Value) {
        self.value = value
        isEqual = { ($0 as? Value) == value }
    }

    static func == (lhs: PaneInputs, rhs: PaneInputs) -> Bool {
        lhs.isEqual(rhs.value)
    }
}

extension DashboardPane {
    /// No inputs: the pane is drawn every frame.
    func drawingInputs(canvas: PaneCanvas) -> PaneInputs? { nil }

    /// No notes.
    var columnHelp: [KeyHint] { [] }
    /// Focus starts elsewhere.
    var takesFirstFocus: Bool { false }
    /// Always shown.
    func isShown(in state: DashboardState) -> Bool { true }
    /// Keeps the rows it asks for.
    func minimumHeight(screenHeight: Int, state: DashboardState) -> Int? { nil }
    /// Nowhere to go back to.
    mutating func goBack() -> Bool { false }
}

/// What a pane reads when a key moves it or a frame lays it out.
struct PaneContext {
    /// The state shown: the frozen copy while paused.
    let state: DashboardState
    /// The time the state is shown for: the moment of pausing while paused.
    let now: Double
    /// Whether the display is paused, and ``state`` frozen.
    let isPaused: Bool
    /// Lines the filter left unchecked because they came too fast.
    let uncheckedLines: Int
    /// The log lines that pass the filter; asked for only by a pane that needs them, since
    /// catching a filter up can cost a frame's time.
    let visibleLines: () -> VisibleLines
}

/// What Enter in a pane asks the dashboard to do.
enum PaneEffect {
    /// Filter the log (`nil` clears the filter); the log follows its newest match.
    case filter(LogFilter?)
    /// Show the full text of a log line.
    case showDetail(LogEntry)
}

/// One part of one pane that takes focus: the pane's index in ``DashboardController/panes``
/// and the index of the part in its ``DashboardPane/focusTitles``.
struct PaneFocus: Equatable {
    let pane: Int
    let part: Int
}

/// The selection of a list whose rows come and go, and the first row in view: the selected
/// row is remembered by its identity, so that it stays put when rows are added above it, and by
/// its position, so that when it goes the row now in its place is selected.
///
/// The tables, the Fleet pane and both lists of the Observers pane select this way.
struct ListSelection<ID: Equatable & Sendable>: Sendable {
    /// The selected row's identity; the first row when `nil`.
    private(set) var selected: ID?
    /// Where the selected row was last seen.
    private(set) var index = 0
    /// The first row in view.
    private(set) var top = 0

    /// Selects the row at `position` of `rows`, kept within them.
    mutating func select<Rows: RandomAccessCollection<ID>>(at position: Int, of rows: Rows)
    where Rows.Index == Int {
        guard !rows.isEmpty else { return }
        index = max(0, min(rows.count - 1, position))
        selected = rows[rows.startIndex + index]
    }

    /// Selects `row`; its position is taken from `rows` when it is there.
    mutating func select<Rows: RandomAccessCollection<ID>>(_ row: ID, of rows: Rows)
    where Rows.Index == Int {
        selected = row
        if let found = rows.firstIndex(of: row) { index = found - rows.startIndex }
    }

    /// Moves the selection `delta` rows from where it was last seen.
    mutating func move<Rows: RandomAccessCollection<ID>>(by delta: Int, of rows: Rows)
    where Rows.Index == Int {
        select(at: index + delta, of: rows)
    }

    /// Back to the first row, with nothing remembered.
    mutating func reset() {
        self = ListSelection()
    }

    /// The rows of `rows` to show in `height` rows, keeping the selection in view. Rows are any
    /// list with whole-number positions: a table whose rows are its positions passes a range,
    /// not an array of them built every frame.
    mutating func viewport<Rows: RandomAccessCollection<ID>>(height: Int, of rows: Rows) -> ListViewport
    where Rows.Index == Int {
        guard !rows.isEmpty, height > 0 else { return ListViewport(rows: 0..<0, selected: nil) }
        let found = selected.flatMap { rows.firstIndex(of: $0) }.map { $0 - rows.startIndex }
        index = max(0, min(rows.count - 1, found ?? index))
        selected = rows[rows.startIndex + index]
        top = ListViewport.top(top, keeping: index, inView: height, of: rows.count)
        return ListViewport(rows: top..<min(rows.count, top + height), selected: index)
    }
}

/// The rows of a list one frame shows.
struct ListViewport: Equatable, Sendable {
    /// Indexes of the rows in view.
    let rows: Range<Int>
    /// The selected row's index, if any row is.
    let selected: Int?

    /// The first of `count` items to show in `rows` rows so that `selected` is among them:
    /// `top` moved as little as that takes, and no further down than a full last page.
    static func top(_ top: Int, keeping selected: Int, inView rows: Int, of count: Int) -> Int {
        var top = top
        if selected < top { top = selected }
        if selected >= top + rows { top = selected - rows + 1 }
        return max(0, min(top, count - rows))
    }
}

extension DashboardController {
    /// The panes, top to bottom: the one list the layout, focus, Tab order and help come from.
    /// Each dashboard starts from these values and keeps its own copies.
    static let panes: [any DashboardPane] = [
        FleetPane(), TablePane(), ObserversPane(), HandlersPane(), LogPane(),
    ]

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

    /// The panes shown for `state`, top to bottom.
    static func shownPanes(in state: DashboardState) -> [any DashboardPane] {
        panes.filter { $0.isShown(in: state) }
    }

    /// The help's Enter line: what Enter does in each pane shown for `state`.
    static func enterHelp(in state: DashboardState) -> String {
        shownPanes(in: state).map { $0.name + ": " + $0.enterHelp }.joined(separator: "; ")
    }

    /// Where the pane of type `Pane` is in ``panes``, if it is listed.
    static func index<Pane: DashboardPane>(of type: Pane.Type) -> Int? {
        panes.firstIndex { $0 is Pane }
    }

    /// This dashboard's pane of type `Pane`, as the last key or frame left it.
    func pane<Pane: DashboardPane>(_ type: Pane.Type) -> Pane? {
        Self.index(of: type).flatMap { panes[$0] as? Pane }
    }

    /// Changes this dashboard's pane of type `Pane` with `body`.
    ///
    /// - Returns: What `body` returned, or `nil` when no such pane is listed.
    @discardableResult
    func withPane<Pane: DashboardPane, Result>(_ type: Pane.Type, _ body: (inout Pane) -> Result) -> Result? {
        guard let index = Self.index(of: type), var pane = panes[index] as? Pane else { return nil }
        let result = body(&pane)
        panes[index] = pane
        return result
    }
}
