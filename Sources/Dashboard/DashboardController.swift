public import BusMonitor
import EventBus

/// The dashboard: takes in what a ``DashboardSource`` gathers, keeps counters, rates,
/// sparklines and a log, answers keys, and draws onto a ``CellGrid``.
///
/// It knows nothing of terminals. A front end calls, once a frame on one thread:
///
/// ```swift
/// let dashboard = DashboardController(source: source)
/// var grid = CellGrid(width: 80, height: 24)
/// while running {
///     for key in pendingKeys() where !dashboard.handle(key) { running = false }
///     dashboard.update(now: Date().timeIntervalSince1970)
///     dashboard.render(into: &grid, now: Date().timeIntervalSince1970)
///     copyToTerminal(grid)
/// }
/// ```
///
/// Not thread-safe: use it from one thread, as a UI does.
public final class DashboardController {
    /// The smallest width the full dashboard draws at; narrower, ``render(into:now:)`` shows a
    /// "terminal too small" screen, and `q` still quits.
    public static let minimumWidth = 60
    /// The smallest height the full dashboard draws at.
    public static let minimumHeight = 16
    /// Seconds a command's message stays on screen.
    static let messageDuration = 4.0

    /// A box drawn over the dashboard.
    enum Overlay {
        /// The keys and column notes; `scroll` is the first row shown.
        case help(scroll: Int)
        /// The full text of one log line; `scroll` is the first wrapped line shown.
        case detail(LogEntry, scroll: Int)
    }

    let source: any DashboardSource
    let options: DashboardOptions
    let glyphs: Glyphs

    /// Frames rendered so far.
    public private(set) var framesRendered = 0

    /// The state that takes in every batch.
    private(set) var live = DashboardState()
    /// The state shown while the display is paused.
    private(set) var frozen: DashboardState?
    /// The time the display was paused at.
    private(set) var pausedAt: Double?
    /// The latest time given to ``update(now:)`` or ``render(into:now:)``.
    private(set) var lastNow: Double?

    /// The focused part, as an index into ``focusOrder``.
    var focusIndex = DashboardController.firstFocus
    /// The selected row of the tables (types and subscribers share rows); the last row is the
    /// wildcard row.
    var tableSelection = 0
    var tableTop = 0
    /// Whether the log shows its newest lines as they come.
    var isFollowing = true
    /// The selected log line when not following.
    var selectedSequence: Int?
    /// The first log line shown when not following.
    var topSequence: Int?
    /// The selected class of the Observers pane, by name, so that it stays put when classes
    /// come and go; the first class when `nil`.
    var selectedClass: String?
    /// Where the selected class was, for when it goes.
    var classIndex = 0
    var classTop = 0
    /// The class whose objects the Observers pane lists instead of the classes, if any.
    var openClass: String?
    /// The selected object of the open class, by serial, so that it stays put while rows come
    /// and go; the first object when `nil`.
    var selectedObject: UInt64?
    /// Where the selected object was, for when it goes.
    var objectIndex = 0
    var objectTop = 0
    /// The selected member of the Fleet pane, so that it stays put when members come and go;
    /// the first member when `nil`.
    var selectedMember: EventOrigin?
    /// Where the selected member was, for when it goes.
    var fleetIndex = 0
    var fleetTop = 0
    /// The layout of the last frame; keys are handled against it.
    private(set) var layout: DashboardLayout?
    /// Log lines the last frame showed.
    var logRows: Int { rows(ofPane: Self.logPane) }

    /// Lines pane `index` showed in the last frame (10 before the first); paging moves by this much.
    func rows(ofPane index: Int) -> Int {
        layout.map { max(1, $0.contentRows[index]) } ?? 10
    }

    /// Where the tables and the log are in ``panes``.
    static let tablePane = panes.firstIndex { $0 is TablePane }!
    static let logPane = panes.firstIndex { $0 is LogPane }!
    static let observersPane = panes.firstIndex { $0 is ObserversPane }!
    static let fleetPane = panes.firstIndex { $0 is FleetPane }!

    /// The applied filter.
    private(set) var filter: LogFilter?
    /// The filter being typed, while the prompt is open.
    private(set) var prompt: String?
    private(set) var overlay: Overlay?
    /// A message from the source, and when it came.
    private(set) var message: (text: String, time: Double)?
    private var filterCache: FilterCache?

    /// Creates a dashboard that reads from `source`.
    ///
    /// - Parameters:
    ///   - source: Where the data comes from.
    ///   - options: Glyphs and colours to draw with.
    public init(source: any DashboardSource, options: DashboardOptions = DashboardOptions()) {
        self.source = source
        self.options = options
        glyphs = options.ascii ? .ascii : .unicode
    }

    /// The state drawn now: the frozen copy while paused, else the live one.
    var shown: DashboardState { frozen ?? live }

    /// Whether the display is paused.
    var isPaused: Bool { frozen != nil }

    // MARK: - Updating

    /// Takes in what the source gathered since the previous call and updates counters, rates,
    /// sparklines and the log. While the display is paused this goes on; only drawing freezes.
    ///
    /// - Parameter now: Seconds since 1970, on the clock of ``CapturedEvent/time``.
    public func update(now: Double) {
        lastNow = now
        live.apply(source.drain(), at: now)
    }

    // MARK: - Keys

    /// Applies a key.
    ///
    /// - Parameter key: The key pressed.
    /// - Returns: `false` when the person asked to quit (`q`, or Ctrl-C as ``DashboardKey/interrupt``).
    public func handle(_ key: DashboardKey) -> Bool {
        if key == .interrupt { return false }
        if prompt != nil {
            handlePromptKey(key)
            return true
        }
        if overlay != nil { return handleOverlayKey(key) }
        guard let action = keyMap.action(for: key) else { return true }
        return perform(action)
    }

    /// Carries out what a key of the key table asked for.
    ///
    /// - Returns: `false` to quit.
    func perform(_ action: DashboardAction) -> Bool {
        switch action {
        case .quit:
            return false
        case .togglePause:
            togglePause()
        case .openFilter:
            prompt = filter?.expression ?? ""
        case .back:
            if openClass != nil, focus.pane == Self.observersPane {
                openClass = nil
            } else {
                filter = nil
            }
        case .showObservers:
            showObservers()
        case .showHelp:
            overlay = .help(scroll: 0)
        case .command(let command):
            send(command)
        case .lineUp:
            focusedPane.move(by: -1, rows: rows(ofPane: focus.pane), in: self)
        case .lineDown:
            focusedPane.move(by: 1, rows: rows(ofPane: focus.pane), in: self)
        case .pageUp:
            focusedPane.move(
                by: -max(1, rows(ofPane: focus.pane) - 1), rows: rows(ofPane: focus.pane), in: self)
        case .pageDown:
            focusedPane.move(
                by: max(1, rows(ofPane: focus.pane) - 1), rows: rows(ofPane: focus.pane), in: self)
        case .first:
            focusedPane.moveToFirst(in: self)
        case .last:
            focusedPane.moveToLast(in: self)
        case .nextPane:
            moveFocus(by: 1)
        case .previousPane:
            moveFocus(by: -1)
        case .open:
            switch focusedPane.open(in: self) {
            case .filter(let newFilter):
                filter = newFilter
                // A new filter shows its newest matches.
                isFollowing = true
            case .showDetail(let entry):
                overlay = .detail(entry, scroll: 0)
            case .showObjects(let className):
                openClass = className
                selectedObject = nil
                objectIndex = 0
                objectTop = 0
            case .closeObjects:
                openClass = nil
            case nil:
                break
            }
        }
        return true
    }

    private func handlePromptKey(_ key: DashboardKey) {
        guard var text = prompt else { return }
        switch key {
        case .enter:
            filter = LogFilter(text)
            prompt = nil
            // A new filter shows its newest matches.
            isFollowing = true
        case .escape:
            prompt = nil
        case .backspace:
            if !text.isEmpty { text.removeLast() }
            prompt = text
        case .character(let character):
            if !character.isNewline, text.count < 200 { text.append(character) }
            prompt = text
        default:
            break
        }
    }

    /// Keys over a box: `q` quits, Esc closes, `?` toggles the help, Enter closes the details;
    /// the key table's moves scroll the box.
    private func handleOverlayKey(_ key: DashboardKey) -> Bool {
        switch (key, overlay) {
        case (.character("q"), _), (.character("Q"), _):
            return false
        case (.escape, _), (.character("?"), .help), (.enter, .detail):
            overlay = nil
        case (.character("?"), .detail):
            overlay = .help(scroll: 0)
        default:
            if let action = keyMap.action(for: key) { scrollOverlay(action) }
        }
        return true
    }

    /// Scrolls the box as `action` moves a pane; the next frame keeps the help within its rows.
    private func scrollOverlay(_ action: DashboardAction) {
        switch overlay {
        case .help(let scroll):
            let page = max(1, overlayRows - 1)
            switch action {
            case .lineUp: overlay = .help(scroll: max(0, scroll - 1))
            case .lineDown: overlay = .help(scroll: scroll + 1)
            case .pageUp: overlay = .help(scroll: max(0, scroll - page))
            case .pageDown: overlay = .help(scroll: scroll + page)
            case .first: overlay = .help(scroll: 0)
            case .last: overlay = .help(scroll: Int.max / 2)
            default: break
            }
        case .detail(let entry, let scroll):
            switch action {
            case .lineUp: overlay = .detail(entry, scroll: max(0, scroll - 1))
            case .lineDown: overlay = .detail(entry, scroll: scroll + 1)
            case .pageUp: overlay = .detail(entry, scroll: max(0, scroll - 10))
            case .pageDown: overlay = .detail(entry, scroll: scroll + 10)
            default: break
            }
        case nil:
            break
        }
    }

    /// Rows a box shows on the last frame's screen (a page of scrolling).
    private var overlayRows: Int {
        guard let layout else { return 10 }
        return DashboardView.helpText(
            keyMap: keyMap, state: shown, width: layout.width, height: layout.height
        )
        .visibleRows
    }

    /// Focuses the Observers pane, showing the classes, with the first leak suspect's class
    /// selected; again, the next suspect's class.
    private func showObservers() {
        let wasThere = focus.pane == Self.observersPane && openClass == nil
        focusIndex = Self.focusOrder.firstIndex { $0.pane == Self.observersPane } ?? focusIndex
        openClass = nil
        let suspects = shown.observers.suspectClasses
        guard let first = suspects.first else { return }
        if wasThere, let current = selectedClass, let index = suspects.firstIndex(of: current) {
            selectedClass = suspects[(index + 1) % suspects.count]
        } else {
            selectedClass = first
        }
        // Where it is among the classes, for a pane that moves by index.
        if let index = shown.observers.classes.firstIndex(where: { $0.className == selectedClass }) {
            classIndex = index
        }
    }

    /// Moves focus `step` parts along the Tab order, passing over panes not shown.
    private func moveFocus(by step: Int) {
        let order = Self.focusOrder
        var index = focusIndex
        for _ in order.indices {
            index = (index + step + order.count) % order.count
            if Self.panes[order[index].pane].isShown(in: shown) { break }
        }
        focusIndex = index
    }

    private func togglePause() {
        if frozen == nil {
            frozen = live
            pausedAt = lastNow
        } else {
            frozen = nil
            pausedAt = nil
        }
        filterCache = nil
    }

    private func send(_ command: SourceCommand) {
        let text = source.perform(command) ?? "this source does not take that command"
        message = (text, lastNow ?? 0)
    }

    // MARK: - The visible log

    /// Lines the filter left unchecked because they came too fast (see ``FilterCache``).
    var uncheckedLines: Int { filterCache?.unchecked ?? 0 }

    /// The lines of the shown log that pass the filter.
    func visibleLines() -> VisibleLines {
        let log = shown.log
        guard let filter else { return .all(log.sequences) }
        var cache = filterCache ?? FilterCache(filter: filter)
        if cache.filter != filter { cache = FilterCache(filter: filter) }
        cache.catchUp(with: log)
        filterCache = cache
        return .some(cache.matches)
    }

    /// Works out which log lines to draw in `rows` rows, keeping the selection in view.
    ///
    /// - Returns: The lines' sequence numbers, top first, and the selected one unless following.
    func logViewport(rows: Int) -> (sequences: [Int], selected: Int?) {
        let lines = visibleLines()
        guard !lines.isEmpty, rows > 0 else { return ([], nil) }
        if isFollowing {
            let top = max(0, lines.count - rows)
            return ((top..<lines.count).map(lines.sequence(at:)), nil)
        }
        let selected = lines.index(atOrAfter: selectedSequence ?? 0)
        var top = lines.index(atOrAfter: topSequence ?? 0)
        top = Self.top(top, keeping: selected, inView: rows, of: lines.count)
        selectedSequence = lines.sequence(at: selected)
        topSequence = lines.sequence(at: top)
        let shownLines = (top..<min(lines.count, top + rows)).map(lines.sequence(at:))
        return (shownLines, selectedSequence)
    }

    /// The first of `count` items to show in `rows` rows so that `selected` is among them:
    /// `top` moved as little as that takes, and no further down than a full last page.
    private static func top(_ top: Int, keeping selected: Int, inView rows: Int, of count: Int) -> Int {
        var top = top
        if selected < top { top = selected }
        if selected >= top + rows { top = selected - rows + 1 }
        return max(0, min(top, count - rows))
    }

    /// Rows of the table to draw, keeping the selection in view.
    func tableViewport(rows: Int) -> Range<Int> {
        let count = shown.rows.count + 1
        tableSelection = max(0, min(count - 1, tableSelection))
        tableTop = Self.top(tableTop, keeping: tableSelection, inView: rows, of: count)
        return tableTop..<min(count, tableTop + rows)
    }

    /// Selects the class at `index` of the Observers pane, kept within the classes.
    func moveClassSelection(to index: Int) {
        let classes = shown.observers.classes
        guard !classes.isEmpty else { return }
        classIndex = max(0, min(classes.count - 1, index))
        selectedClass = classes[classIndex].className
    }

    /// Selects the object at `index` of the open class, kept within its objects.
    func moveObjectSelection(to index: Int) {
        guard let openClass else { return }
        let objects = shown.observers.instances(of: openClass, at: pausedAt ?? lastNow ?? 0)
        guard !objects.isEmpty else { return }
        objectIndex = max(0, min(objects.count - 1, index))
        selectedObject = objects[objectIndex].observerID
    }

    /// The classes of the Observers pane to draw in `rows` rows, keeping the selection in view.
    func classViewport(rows: Int) -> (rows: Range<Int>, selected: Int?) {
        let classes = shown.observers.classes
        guard !classes.isEmpty, rows > 0 else { return (0..<0, nil) }
        let found = selectedClass.flatMap { name in classes.firstIndex { $0.className == name } }
        classIndex = max(0, min(classes.count - 1, found ?? classIndex))
        selectedClass = classes[classIndex].className
        classTop = Self.top(classTop, keeping: classIndex, inView: rows, of: classes.count)
        return (classTop..<min(classes.count, classTop + rows), classIndex)
    }

    /// The objects of the open class to draw in `rows` rows at `now`, keeping the selection in
    /// view.
    func objectViewport(rows: Int, now: Double) -> ObjectsView? {
        guard let openClass else { return nil }
        let objects = shown.observers.instances(of: openClass, at: now)
        guard !objects.isEmpty, rows > 0 else {
            return ObjectsView(className: openClass, all: objects, rows: 0..<0, selected: nil)
        }
        let found = selectedObject.flatMap { id in objects.firstIndex { $0.observerID == id } }
        objectIndex = max(0, min(objects.count - 1, found ?? objectIndex))
        // When the selected object has gone from the list, the one now in its place is selected.
        selectedObject = objects[objectIndex].observerID
        objectTop = Self.top(objectTop, keeping: objectIndex, inView: rows, of: objects.count)
        return ObjectsView(
            className: openClass, all: objects, rows: objectTop..<min(objects.count, objectTop + rows),
            selected: objectIndex)
    }

    /// Selects the member at `index` of the Fleet pane, kept within the members.
    func moveFleetSelection(to index: Int) {
        guard let rows = shown.fleet?.rows, !rows.isEmpty else { return }
        fleetIndex = max(0, min(rows.count - 1, index))
        selectedMember = rows[fleetIndex].member.origin
    }

    /// The members of the Fleet pane to draw in `rows` rows, keeping the selection in view.
    func fleetViewport(rows: Int) -> FleetView {
        guard let fleet = shown.fleet, !fleet.rows.isEmpty, rows > 0 else {
            return FleetView(rows: 0..<0, selected: nil)
        }
        let count = fleet.rows.count
        fleetIndex = max(0, min(count - 1, selectedMember.flatMap(fleet.index(of:)) ?? fleetIndex))
        selectedMember = fleet.rows[fleetIndex].member.origin
        fleetTop = Self.top(fleetTop, keeping: fleetIndex, inView: rows, of: count)
        return FleetView(rows: fleetTop..<min(count, fleetTop + rows), selected: fleetIndex)
    }

    /// The message to show at `now`, if one is recent.
    func currentMessage(at now: Double) -> String? {
        guard let message, now - message.time < Self.messageDuration else { return nil }
        return message.text
    }

    // MARK: - Frames

    /// Draws the whole screen for `grid.width` x `grid.height`.
    ///
    /// First the frame is laid out, once: the layout, the rows in view (keeping the selection
    /// in view) and the filter's catching up are the only changes a frame makes, and keys are
    /// handled against that layout until the next frame. Then ``DashboardView`` draws, changing
    /// nothing.
    ///
    /// - Parameters:
    ///   - grid: The screen to draw on; it is cleared first.
    ///   - now: Seconds since 1970; rates, highlights and messages are worked out for it.
    public func render(into grid: inout CellGrid, now: Double) {
        let view = layOut(width: grid.width, height: grid.height, now: now)
        grid.clear()
        view.draw(into: &grid)
    }

    /// Lays out a frame of `width` x `height` at `now`, and records it as drawn.
    ///
    /// - Returns: What the frame shows.
    func layOut(width: Int, height: Int, now: Double) -> DashboardView {
        framesRendered += 1
        lastNow = max(lastNow ?? now, now)
        let state = shown
        let layout = DashboardLayout(width: width, height: height, state: state)
        self.layout = layout
        var tableRows = 0..<0
        var fleet = FleetView(rows: 0..<0, selected: nil)
        var observers = ObserversView(classRows: 0..<0, selectedClass: nil, objects: nil)
        var log = LogView(
            sequences: [], selected: nil, position: 0, matching: 0, unchecked: 0, isFollowing: isFollowing)
        if case .help(let scroll) = overlay {
            // Keep the help within its rows, so scrolling back up answers at once.
            let help = DashboardView.helpText(keyMap: keyMap, state: state, width: width, height: height)
            overlay = .help(scroll: min(scroll, help.maximumScroll))
        }
        if !Self.panes[focus.pane].isShown(in: state) {
            // The source stopped being a fleet, say: focus goes where it starts.
            focusIndex = Self.firstFocus
        }
        if !layout.isTooSmall {
            tableRows = tableViewport(rows: layout.contentRows[Self.tablePane])
            fleet = fleetViewport(rows: layout.contentRows[Self.fleetPane])
            let observerRows = layout.contentRows[Self.observersPane]
            let classes = classViewport(rows: observerRows)
            observers = ObserversView(
                classRows: classes.rows, selectedClass: classes.selected,
                objects: objectViewport(rows: observerRows, now: pausedAt ?? now))
            let (sequences, selected) = logViewport(rows: layout.contentRows[Self.logPane])
            let lines = visibleLines()
            log = LogView(
                sequences: sequences, selected: selected,
                position: selected.map { lines.index(atOrAfter: $0) + 1 } ?? 0, matching: lines.count,
                unchecked: uncheckedLines, isFollowing: isFollowing)
        }
        return DashboardView(
            layout: layout, state: state, title: source.title, options: options, glyphs: glyphs,
            isPaused: isPaused, shownNow: pausedAt ?? now, filter: filter, prompt: prompt, overlay: overlay,
            message: currentMessage(at: now), focus: focus, tableSelection: tableSelection,
            tableRows: tableRows, fleet: fleet, observers: observers,
            log: log, keyMap: keyMap)
    }
}

/// Log lines that pass the filter: a range when nothing is filtered, else a sorted list.
enum VisibleLines {
    case all(Range<Int>)
    case some([Int])

    var count: Int {
        switch self {
        case .all(let range): return range.count
        case .some(let sequences): return sequences.count
        }
    }

    var isEmpty: Bool { count == 0 }

    func sequence(at index: Int) -> Int {
        switch self {
        case .all(let range): return range.lowerBound + index
        case .some(let sequences): return sequences[index]
        }
    }

    /// The index of the first line numbered `sequence` or later, or the last index when there
    /// is none; `count` must not be 0.
    func index(atOrAfter sequence: Int) -> Int {
        switch self {
        case .all(let range):
            return max(0, min(range.count - 1, sequence - range.lowerBound))
        case .some(let sequences):
            var low = 0
            var high = sequences.count
            while low < high {
                let middle = (low + high) / 2
                if sequences[middle] < sequence { low = middle + 1 } else { high = middle }
            }
            return min(low, sequences.count - 1)
        }
    }
}

/// The lines matching a filter, extended as lines arrive, so each line is checked once.
///
/// Checking a line may mean formatting its payload (microseconds each). At rates of many
/// thousands of events a second more lines arrive per frame than are worth checking, and each
/// stays in the log only a moment, so a catch-up checks at most ``linesPerCatchUp`` of the
/// newest lines and leaves the older new ones unchecked (and unshown), counting them.
struct FilterCache {
    /// New lines checked per catch-up at most; a fresh cache checks the whole log once.
    static let linesPerCatchUp = 1_000

    let filter: LogFilter
    private(set) var matches: [Int] = []
    /// Lines that arrived while the filter was on and were never checked.
    private(set) var unchecked = 0
    private var scannedUpTo: Int?

    init(filter: LogFilter) {
        self.filter = filter
    }

    mutating func catchUp(with log: EventLog) {
        let first = log.firstSequence
        if let scanned = scannedUpTo, scanned > log.nextSequence {
            // Another log than before (the live one after a pause): start again.
            matches.removeAll(keepingCapacity: true)
            scannedUpTo = nil
        }
        if let kept = matches.firstIndex(where: { $0 >= first }) {
            if kept > 0 { matches.removeFirst(kept) }
        } else {
            matches.removeAll(keepingCapacity: true)
        }
        var start = max(scannedUpTo ?? first, first)
        if scannedUpTo != nil, log.nextSequence - start > Self.linesPerCatchUp {
            let skipped = log.nextSequence - Self.linesPerCatchUp - start
            unchecked += skipped
            start += skipped
        }
        for sequence in start..<log.nextSequence {
            guard let entry = log[sequence] else { continue }
            if filter.shows(typeName: entry.typeName, origin: entry.origin, detail: { entry.detailText }) {
                matches.append(sequence)
            }
        }
        scannedUpTo = log.nextSequence
    }
}
