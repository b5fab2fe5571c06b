package import BusMonitor
internal import BusWire
internal import EventBus
package import ScreenGrid

/// What a key asks of the loop that runs the dashboard, which does no I/O itself.
package enum DashboardCommand: Sendable, Hashable {
    /// End the run.
    case quit
    /// Send the command to the source, and hand its answer back with
    /// ``DashboardController/show(message:at:)``.
    case perform(SourceCommand)
}

/// The dashboard: takes in the batches a ``DashboardSource`` gathers, keeps counters, rates,
/// sparklines and a log, answers keys, and draws onto a ``CellGrid``.
///
/// It does no I/O and knows nothing of terminals or sources: the loop that runs it owns the
/// source, feeds it each batch, and carries out what a key asks for (bubbletea's messages and
/// commands), once a frame on one thread:
///
/// ```swift
/// let dashboard = DashboardController(title: source.title, commands: source.supportedCommands)
/// var grid = CellGrid(width: 80, height: 24)
/// while running {
///     for key in pendingKeys() {
///         switch dashboard.respond(to: key) {
///         case .quit?: running = false
///         case .perform(let command)?: dashboard.show(message: source.perform(command), at: now)
///         case nil: break
///         }
///     }
///     dashboard.update(source.drain(), now: Date().timeIntervalSince1970)
///     dashboard.render(into: &grid, now: Date().timeIntervalSince1970)
///     copyToTerminal(grid)
/// }
/// ```
///
/// Not thread-safe: use it from one thread, as a UI does.
package class DashboardController {
    /// The smallest width the full dashboard draws at; narrower, ``render(into:now:)`` shows a
    /// "terminal too small" screen, and `q` still quits.
    package static let minimumWidth = 60
    /// The smallest height the full dashboard draws at.
    package static let minimumHeight = 16
    /// Seconds a command's message stays on screen.
    static let messageDuration = 4.0

    /// A box drawn over the dashboard.
    enum Overlay {
        /// The keys and column notes; `scroll` is the first row shown.
        case help(scroll: Int)
        /// The full text of one log line; `scroll` is the first wrapped line shown.
        case detail(LogEntry, scroll: Int)
    }

    /// What is being watched, for the header: the source's title, which may change (an attached
    /// app says who it is once it answers); a new one is drawn in the next frame.
    package var title: String {
        didSet { if title != oldValue { changedSinceFrame = true } }
    }
    /// The commands the source takes, which the key bar, the help and the keys offer.
    package var sourceCommands: [SourceCommandDescription] {
        didSet { if sourceCommands != oldValue { keyMapCache = nil } }
    }
    let options: DashboardOptions
    let glyphs: Glyphs

    /// Frames rendered so far.
    package private(set) var framesRendered = 0
    /// Whether a batch, a key or a message changed what the screen shows since the last frame.
    private var changedSinceFrame = true
    /// When the last frame was laid out, seconds since 1970.
    private var lastFrameTime: Double?
    /// The log's ``LogPane/heldBackUntil`` as the last frame's layout left it, which only a
    /// layout changes: asked on every tick, and a pane taken out of the list is a copy.
    private var logHeldBackUntil: Double?
    /// Panes as the last frame drew them, copied by the next while their inputs stay.
    private var drawnPanes: [Int: DashboardView.DrawnPane] = [:]
    /// Whether a frame copies the panes whose inputs did not change from the last one; off, it
    /// draws every pane, as tests compare.
    package var reusesPanes = true
    /// The key table and what it was made from; a frame needs its bar, and it changes only
    /// with what ``KeyMapInputs`` holds.
    var keyMapCache: (inputs: KeyMapInputs, map: KeyMap)?
    /// Panes copied from the frame before instead of drawn, so far.
    package private(set) var panesCopied = 0
    /// What the previous batch said besides its records, to tell whether the next one changes it.
    private var lastBatchStatus:
        (status: String?, dropped: Int, droppedLifecycle: Int, fleet: [FleetMember]?) = (
            nil, 0, 0, nil
        )

    /// The state that takes in every batch.
    private(set) var live = DashboardState()
    /// What the source counted as lost on the way so far, paused or not.
    package var losses: RecordLosses {
        RecordLosses(
            events: live.droppedEvents, lifecycleChanges: live.droppedLifecycle,
            fromAppsPastTheLimit: live.droppedFromAppsPastTheLimit, handlerCalls: live.droppedCalls)
    }
    /// The state shown while the display is paused.
    private(set) var frozen: DashboardState?
    /// The time the display was paused at.
    private(set) var pausedAt: Double?
    /// The latest time given to ``update(now:)`` or ``render(into:now:)``.
    package private(set) var lastNow: Double?

    /// The focused part, as an index into ``focusOrder``.
    var focusIndex = DashboardController.firstFocus
    /// This dashboard's panes, each holding its own selection and what it showed last, in the
    /// order of ``DashboardController/panes``.
    var panes = DashboardController.panes
    /// The layout of the last frame; keys are handled against it.
    private(set) var layout: DashboardLayout?

    /// Lines pane `index` showed in the last frame (10 before the first); paging moves by this much.
    func rows(ofPane index: Int) -> Int {
        layout.map { max(1, $0.contentRows[index]) } ?? 10
    }

    /// The applied filter.
    private(set) var filter: LogFilter?
    /// The filter or value being typed, while the prompt is open.
    private(set) var prompt: String?
    /// What the open prompt asks for: the filter (`nil`), or a value for a source command, with
    /// the prompt's label.
    private(set) var promptAsks: (label: String, command: SourceCommand)?
    private(set) var overlay: Overlay?
    /// A message from the source, and when it came.
    private(set) var message: (text: String, time: Double)?
    private var filterCache: FilterCache?

    /// Creates a dashboard.
    ///
    /// - Parameters:
    ///   - title: What is being watched, for the header.
    ///   - commands: The commands the source takes, offered with their keys.
    ///   - options: Glyphs and colours to draw with.
    package init(
        title: String, commands: [SourceCommandDescription] = [],
        options: DashboardOptions = DashboardOptions()
    ) {
        self.title = title
        sourceCommands = commands
        self.options = options
        glyphs = options.ascii ? .ascii : .unicode
    }

    /// The state drawn now: the frozen copy while paused, else the live one.
    var shown: DashboardState { frozen ?? live }

    /// Whether the display is paused.
    var isPaused: Bool { frozen != nil }

    // MARK: - Updating

    /// Takes in what the source gathered since the previous batch and updates counters, rates,
    /// sparklines and the log. While the display is paused this goes on; only drawing freezes.
    ///
    /// - Parameters:
    ///   - batch: The source's newest batch.
    ///   - now: Seconds since 1970, on the clock of ``FeedEvent/time``.
    package func update(_ batch: SourceBatch, now: Double) {
        lastNow = now
        if batch.replacesState {
            // A replay's cursor moved back or jumped: the bus as it was there is rebuilt from
            // the records that follow, as if the replay had started a minute before.
            live = DashboardState()
            frozen = nil
            pausedAt = nil
            lastSnapshots = [:]
            filterCache = nil
            changedSinceFrame = true
        }
        // A fleet's source sends its members only when one changed: a batch without them says
        // nothing new about the fleet, and is no frame's news.
        let fleet = batch.fleet ?? lastBatchStatus.fleet
        if bringsNews(batch.records, fleet: batch.fleet) || !batch.notices.isEmpty || batch.countersRestarted
            || batch.status != lastBatchStatus.status || batch.droppedEvents != lastBatchStatus.dropped
            || batch.droppedLifecycle != lastBatchStatus.droppedLifecycle || fleet != lastBatchStatus.fleet
        {
            changedSinceFrame = true
            lastBatchStatus = (batch.status, batch.droppedEvents, batch.droppedLifecycle, fleet)
        }
        live.apply(batch, at: now)
    }

    /// Each app's newest snapshot, to tell one that changes something from one that repeats the
    /// last (an idle app's tap sends the same counters twice a second).
    private var lastSnapshots: [FeedOrigin?: FeedSnapshot] = [:]

    /// Whether `records` hold anything but snapshots that repeat the last of their app; keeps
    /// each app's newest snapshot, and forgets the apps no longer in `fleet` when it is given.
    private func bringsNews(_ records: [FeedRecord], fleet: [FleetMember]?) -> Bool {
        var news = false
        if let fleet, lastSnapshots.count > 1 {
            // An app that left (a restarted one comes back under a new pid) keeps no snapshot;
            // forgotten first, so that its slot is free for an app of this batch.
            let members = Set(fleet.map(\.origin))
            lastSnapshots = lastSnapshots.filter { $0.key.map(members.contains) ?? true }
        }
        for record in records {
            guard case .snapshot(let snapshot) = record else {
                news = true
                continue
            }
            if let last = lastSnapshots[snapshot.origin], Self.showTheSame(last, snapshot) { continue }
            // As the state keeps them: at most a fleet's apps.
            guard lastSnapshots[snapshot.origin] != nil || lastSnapshots.count < FleetState.maximumMembers
            else {
                continue
            }
            lastSnapshots[snapshot.origin] = snapshot
            news = true
        }
        return news
    }

    /// Whether two snapshots of one app show the same but for time: their own, and the ages of
    /// objects and suspects, which grow while nothing happens and which the frame drawn each
    /// second shows anyway. A field added to snapshots belongs here too; one left out would show
    /// its change only with the next second's frame.
    static func showTheSame(_ first: FeedSnapshot, _ second: FeedSnapshot) -> Bool {
        let one = first.snapshot
        let other = second.snapshot
        return first.tap == second.tap && first.omittedLeakSuspects == second.omittedLeakSuspects
            && first.omittedInstances == second.omittedInstances && one.busName == other.busName
            && one.eventTypes == other.eventTypes && one.wildcardObservers == other.wildcardObservers
            && one.deadWildcardObservers == other.deadWildcardObservers
            && one.reclaimedWildcardObservers == other.reclaimedWildcardObservers
            && one.wildcardDeliveries == other.wildcardDeliveries && one.observers == other.observers
            && one.handlers == other.handlers && one.stickyEvents == other.stickyEvents
            && one.leakSuspects.elementsEqual(other.leakSuspects) {
                $0.observerID == $1.observerID && $0.className == $1.className && $0.reason == $1.reason
                    && $0.subscriptions == $1.subscriptions
            }
            && one.instances.elementsEqual(other.instances) {
                $0.observerID == $1.observerID && $0.className == $1.className && $0.state == $1.state
                    && $0.subscriptions == $1.subscriptions && $0.leakReason == $1.leakReason
            }
    }

    /// Whether a frame drawn at `now` would differ from the last: something came in, a key was
    /// pressed, the log's held-back lines are due, or the clock entered a new second (the
    /// uptime, rates and sparklines move with it). A frame loop that draws only then costs next to nothing while the source is quiet.
    package func needsFrame(at now: Double) -> Bool {
        guard !hasChangesToShow, let lastFrameTime else { return true }
        // Held-back lines are due only where the log is drawn: a screen too small draws no panes.
        if layout?.isTooSmall != true, let due = logHeldBackUntil, now >= due { return true }
        // Lines the filter has yet to check show in the frames that check them, where the log
        // is drawn (a screen too small draws no panes, and checks nothing).
        if layout?.isTooSmall != true, filter != nil, filterCache?.hasBacklog == true { return true }
        return now.rounded(.down) != lastFrameTime.rounded(.down)
    }

    /// Whether something came in or a key was pressed since the last frame: news, not only a
    /// clock that moved on.
    package var hasChangesToShow: Bool { changedSinceFrame }

    /// Shows a message from the source (the answer to a command) for a few seconds.
    ///
    /// - Parameters:
    ///   - text: The message; `nil` says the source does not take the command.
    ///   - now: Seconds since 1970.
    package func show(message text: String?, at now: Double) {
        changedSinceFrame = true
        message = (text ?? "this source does not take that command", now)
    }

    // MARK: - Keys

    /// Applies a key.
    ///
    /// - Parameter key: The key pressed.
    /// - Returns: What the loop must do: ``DashboardCommand/quit`` when the person asked to quit
    ///   (`q`, or Ctrl-C as ``DashboardKey/interrupt``), a command for the source, or `nil` when
    ///   the dashboard took the key itself.
    package func respond(to key: DashboardKey) -> DashboardCommand? {
        changedSinceFrame = true
        if key == .interrupt { return .quit }
        if prompt != nil { return handlePromptKey(key) }
        if overlay != nil { return handleOverlayKey(key) ? nil : .quit }
        guard let action = keyMap.action(for: key) else { return nil }
        return perform(action)
    }

    /// Carries out what a key of the key table asked for.
    ///
    /// - Returns: What the loop must do, if anything.
    func perform(_ action: DashboardAction) -> DashboardCommand? {
        switch action {
        case .quit:
            return .quit
        case .togglePause:
            togglePause()
        case .openFilter:
            prompt = filter?.expression ?? ""
            promptAsks = nil
        case .ask(let label, let command):
            prompt = ""
            promptAsks = (label, command)
        case .back:
            if !panes[focus.pane].goBack() {
                filter = nil
                withPane(LogPane.self) { $0.catchUp() }
            }
        case .showObservers:
            showObservers()
        case .showHelp:
            overlay = .help(scroll: 0)
        case .command(let command):
            return .perform(command)
        case .lineUp:
            moveFocusedPane(by: -1)
        case .lineDown:
            moveFocusedPane(by: 1)
        case .pageUp:
            moveFocusedPane(by: -max(1, rows(ofPane: focus.pane) - 1))
        case .pageDown:
            moveFocusedPane(by: max(1, rows(ofPane: focus.pane) - 1))
        case .first:
            panes[focus.pane].moveToFirst(in: paneContext())
        case .last:
            panes[focus.pane].moveToLast(in: paneContext())
        case .nextPane:
            moveFocus(by: 1)
        case .previousPane:
            moveFocus(by: -1)
        case .open:
            switch panes[focus.pane].open(in: paneContext()) {
            case .filter(let newFilter):
                apply(newFilter)
            case .showDetail(let entry):
                overlay = .detail(entry, scroll: 0)
            case nil:
                break
            }
        }
        return nil
    }

    /// Moves the focused pane's selection `delta` lines.
    private func moveFocusedPane(by delta: Int) {
        panes[focus.pane].move(by: delta, rows: rows(ofPane: focus.pane), in: paneContext())
    }

    /// Which records the log shows as lines under the filter now: every event and lifecycle
    /// change without one.
    func recordsShown() -> @Sendable (FeedRecord) -> Bool {
        let filter = filter
        return { record in
            // The line the log would make of the record, judged as the log judges its lines.
            let content: LogEntry.Content
            switch record {
            case .event(let event): content = .event(event)
            case .lifecycle(let captured)
            where captured.change.kind == .reclaimed && captured.change.observerID != nil:
                // The log shows an object's reclaim reports as one line, "X #4 deallocated; ...":
                // each report is judged by that line's words.
                content = .reclaim(ObjectReclaim(captured.change))
            case .lifecycle(let captured): content = .lifecycle(captured.change)
            default: return false
            }
            let origin: EventOrigin? =
                if case .lifecycle(let captured) = record { captured.origin } else { nil }
            return filter?.shows(
                LogEntry(sequence: 0, time: record.time ?? 0, content: content, origin: origin))
                ?? true
        }
    }

    /// Filters the log by `newFilter` (none when `nil`); a new filter shows its newest matches.
    private func apply(_ newFilter: LogFilter?) {
        filter = newFilter
        withPane(LogPane.self) { $0.follow() }
    }

    /// What the panes read of this dashboard between frames and while a frame lays them out.
    func paneContext(now: Double? = nil) -> PaneContext {
        PaneContext(
            state: shown, now: pausedAt ?? now ?? lastNow ?? 0, isPaused: pausedAt != nil,
            uncheckedLines: uncheckedLines,
            visibleLines: { [unowned self] in visibleLines() })
    }

    /// The most characters a prompt takes: a filter or a typed time is a few words, and a key
    /// held down must not grow one without end.
    static let longestPrompt = 200

    /// Edits the open prompt; Enter applies the filter, or sends the command with the value.
    private func handlePromptKey(_ key: DashboardKey) -> DashboardCommand? {
        guard var text = prompt else { return nil }
        switch key {
        case .enter:
            prompt = nil
            if let asks = promptAsks {
                promptAsks = nil
                return .perform(asks.command.with(value: text))
            }
            apply(LogFilter(text))
        case .escape:
            prompt = nil
            promptAsks = nil
        case .backspace:
            if !text.isEmpty { text.removeLast() }
            prompt = text
        case .eraseLine:
            prompt = ""
        case .eraseWord:
            // The spaces before the word go with it, as in a shell.
            while text.last == " " { text.removeLast() }
            while let last = text.last, last != " " { text.removeLast() }
            prompt = text
        case .paste(let pasted):
            text += pasted.prefix(max(0, Self.longestPrompt - text.count))
            prompt = text
        case .character(let character):
            if !character.isNewline, text.count < Self.longestPrompt { text.append(character) }
            prompt = text
        default:
            break
        }
        return nil
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
        guard let index = Self.index(of: ObserversPane.self) else { return }
        let wasThere = focus.pane == index && pane(ObserversPane.self)?.openClass == nil
        focusIndex = Self.focusOrder.firstIndex { $0.pane == index } ?? focusIndex
        let context = paneContext()
        withPane(ObserversPane.self) { $0.selectSuspect(next: wasThere, in: context) }
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
    package func render(into grid: inout CellGrid, now: Double) {
        let view = layOut(width: grid.width, height: grid.height, now: now)
        grid.clear()
        let drawn = view.draw(into: &grid, reusing: reusesPanes ? drawnPanes : [:])
        drawnPanes = drawn.panes
        panesCopied += drawn.copied
    }

    /// Lays out a frame of `width` x `height` at `now`, and records it as drawn.
    ///
    /// - Returns: What the frame shows.
    func layOut(width: Int, height: Int, now: Double) -> DashboardView {
        framesRendered += 1
        changedSinceFrame = false
        lastFrameTime = now
        lastNow = max(lastNow ?? now, now)
        let state = shown
        let layout = DashboardLayout(width: width, height: height, state: state)
        self.layout = layout
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
            let context = paneContext(now: now)
            for index in panes.indices where panes[index].isShown(in: state) {
                panes[index].layOut(rows: layout.contentRows[index], in: context)
            }
        }
        logHeldBackUntil = pane(LogPane.self)?.heldBackUntil
        let canvas = PaneCanvas(
            state: state, now: pausedAt ?? now, options: options, glyphs: glyphs, isPaused: isPaused,
            filter: filter, message: currentMessage(at: now), columns: layout.columns,
            logAppWidth: layout.logAppWidth)
        return DashboardView(
            layout: layout, canvas: canvas, title: title, prompt: prompt, promptLabel: promptAsks?.label,
            overlay: overlay, focus: focus,
            panes: panes, keyMap: keyMap)
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
/// Checking a line may mean formatting its payload (microseconds each). A catch-up checks at
/// most ``linesPerCatchUp`` lines: the newest first, then, in later frames, those that came
/// with them (a jump in a replay brings thousands at once). At rates of many thousands of
/// events a second more lines arrive per frame than are worth checking, and each stays in the
/// log only a moment: lines that leave the log before their turn are counted, never shown.
struct FilterCache {
    /// Lines checked per catch-up at most; a fresh cache checks the whole log once.
    static let linesPerCatchUp = 1_000

    let filter: LogFilter
    private(set) var matches: [Int] = []
    /// Lines that arrived while the filter was on and left the log before they were checked.
    private(set) var unchecked = 0
    private var scannedUpTo: Int?
    /// The log the lines are numbered in (a replay that reads again makes a new one).
    private var epoch: Int?
    /// Lines not checked yet, in ranges oldest first, all below those checked since each came:
    /// each catch-up takes the newest. Never more than the log holds.
    private var backlog: [Range<Int>] = []

    init(filter: LogFilter) {
        self.filter = filter
    }

    /// Whether lines still in the log wait to be checked: the next frame checks more of them.
    var hasBacklog: Bool { !backlog.isEmpty }

    mutating func catchUp(with log: EventLog) {
        let first = log.firstSequence
        if epoch != log.epoch || (scannedUpTo ?? 0) > log.nextSequence {
            // Another log than before (a replay read again, the live one after a pause).
            matches.removeAll(keepingCapacity: true)
            scannedUpTo = nil
            backlog = []
            epoch = log.epoch
        }
        if let kept = matches.firstIndex(where: { $0 >= first }) {
            if kept > 0 { matches.removeFirst(kept) }
        } else {
            matches.removeAll(keepingCapacity: true)
        }
        // Lines gone from the log before their turn: too fast to check.
        while let oldest = backlog.first, oldest.lowerBound < first {
            unchecked += min(first, oldest.upperBound) - oldest.lowerBound
            if oldest.upperBound <= first {
                backlog.removeFirst()
            } else {
                backlog[0] = first..<oldest.upperBound
            }
        }
        if let scanned = scannedUpTo, scanned < first {
            // Came and went between two catch-ups.
            unchecked += first - scanned
        }
        var budget = Self.linesPerCatchUp
        var start = max(scannedUpTo ?? first, first)
        if scannedUpTo != nil, log.nextSequence - start > budget {
            // The newest now; the rest waits, right below them.
            let newStart = log.nextSequence - budget
            backlog.append(start..<newStart)
            start = newStart
        }
        for sequence in start..<log.nextSequence {
            guard let entry = log[sequence] else { continue }
            if filter.shows(entry) { matches.append(sequence) }
        }
        budget -= log.nextSequence - start
        scannedUpTo = log.nextSequence
        // The newest of the backlog, each placed among the matches in order.
        while budget > 0, let newest = backlog.last {
            let taken = max(newest.lowerBound, newest.upperBound - budget)..<newest.upperBound
            var found: [Int] = []
            for sequence in taken {
                guard let entry = log[sequence] else { continue }
                if filter.shows(entry) { found.append(sequence) }
            }
            let insertAt = matches.firstIndex { $0 >= taken.upperBound } ?? matches.endIndex
            matches.insert(contentsOf: found, at: insertAt)
            budget -= taken.count
            if taken.lowerBound == newest.lowerBound {
                backlog.removeLast()
            } else {
                backlog[backlog.count - 1] = newest.lowerBound..<taken.lowerBound
            }
        }
    }
}
