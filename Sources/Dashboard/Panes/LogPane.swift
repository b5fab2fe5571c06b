internal import BusMonitor
internal import BusWire
internal import EventBus
internal import ScreenGrid

/// The log: time, type, payload and receivers of each line, following the newest unless the
/// person scrolls. Enter shows a line's full payload.
///
/// While it follows, the log moves on at most ten times a second (``followInterval``). At a
/// few hundred events a second more lines arrive in a frame than the log has rows, so moving on
/// every frame rewrote each row 25 times a second, most of what busmon wrote to the terminal,
/// for lines nobody can read in the 40 ms they stayed. A line that comes after a quiet moment
/// shows in the next frame, as before; a key that follows (`G`, End, ↓ while following) or
/// sets or clears a filter shows the newest at once, and a paused log holds what it showed.
struct LogPane: DashboardPane {
    /// Seconds at least between two moves of a following log onto newer lines.
    static let followInterval = 0.1

    let focusTitles = ["Log"]
    let name = "log"
    let enterHelp = "the line's full payload"
    let takesFirstFocus = true
    let columnHelp = [
        KeyHint(
            keys: "Log",
            text: "each event's time, type and payload, and on the right how many subscribers "
                + "received it (yellow 0: nobody listened); lifecycle changes and notices between")
    ]

    /// Whether the log shows its newest lines as they come.
    private(set) var isFollowing = true
    /// The selected line when not following.
    private(set) var selectedSequence: Int?
    /// The first line shown when not following.
    private(set) var topSequence: Int?
    /// The newest line a following log shows, and when it moved on to it; lines after it wait
    /// until ``followInterval`` has passed.
    private(set) var followedThrough: Int?
    private var followedAt = -Double.infinity
    /// The ``EventLog/epoch`` of the log ``followedThrough`` numbers a line of: a log made anew
    /// numbers its lines from 0 again.
    private var followedEpoch: Int?
    /// When the lines a following log holds back are due, or `nil` when it holds none back.
    private(set) var heldBackUntil: Double?
    /// What the last frame showed.
    private(set) var inView = LogView(
        sequences: [], selected: nil, position: 0, matching: 0, unchecked: 0, isFollowing: true)

    func height(screenHeight: Int, state: DashboardState) -> Int? { nil }

    /// Everything ``draw(into:area:canvas:focusedPart:)`` reads: a line is known by the log's
    /// epoch and its sequence number, since lines never change.
    private struct DrawingInputs: Equatable {
        let epoch: Int
        let inView: LogView
        let isPaused: Bool
        let filter: LogFilter?
        /// The log's length, which a filtered log's title shows.
        let linesWhenFiltered: Int?
        let message: String?
        let nameWidth: Int
        let appWidth: Int
        /// How the log names apps, when it shows them.
        let sharedAppNames: Set<String>?
        let options: DashboardOptions
        let glyphs: Glyphs
    }

    func drawingInputs(canvas: PaneCanvas) -> PaneInputs? {
        PaneInputs(
            DrawingInputs(
                epoch: canvas.state.log.epoch, inView: inView, isPaused: canvas.isPaused,
                filter: canvas.filter,
                linesWhenFiltered: canvas.filter == nil ? nil : canvas.state.log.count,
                message: canvas.message,
                nameWidth: canvas.columns.name, appWidth: canvas.logAppWidth,
                sharedAppNames: canvas.logAppWidth > 0 ? canvas.state.fleet?.sharedAppNames : nil,
                options: canvas.options, glyphs: canvas.glyphs))
    }

    func contentRows(in area: Rect) -> Int { max(0, area.height - 1) }

    /// Shows the newest lines as they come (after a new filter, say).
    mutating func follow() {
        isFollowing = true
        followedThrough = nil
    }

    /// Shows the newest lines at once if the log follows (after the filter was cleared, say),
    /// and leaves a scrolled log where it is.
    mutating func catchUp() {
        followedThrough = nil
    }

    mutating func layOut(rows: Int, in context: PaneContext) {
        if context.state.log.epoch != followedEpoch {
            followedEpoch = context.state.log.epoch
            followedThrough = nil
        }
        let lines = context.visibleLines()
        let (sequences, selected) = viewport(rows: rows, lines: lines, now: context.now)
        // Paused, the log shows what it showed: nothing falls due while time stands still.
        if context.isPaused { heldBackUntil = nil }
        inView = LogView(
            sequences: sequences, selected: selected,
            position: selected.map { lines.index(atOrAfter: $0) + 1 } ?? 0, matching: lines.count,
            unchecked: context.uncheckedLines, isFollowing: isFollowing)
    }

    /// Works out which of `lines` to draw in `rows` rows, keeping the selection in view.
    ///
    /// - Returns: The lines' sequence numbers, top first, and the selected one unless following.
    private mutating func viewport(
        rows: Int, lines: VisibleLines, now: Double
    ) -> (sequences: [Int], selected: Int?) {
        heldBackUntil = nil
        guard !lines.isEmpty, rows > 0 else { return ([], nil) }
        if isFollowing {
            let newest = newestShownIndex(in: lines, now: now)
            let top = max(0, newest + 1 - rows)
            return ((top...newest).map(lines.sequence(at:)), nil)
        }
        let selected = lines.index(atOrAfter: selectedSequence ?? 0)
        var top = lines.index(atOrAfter: topSequence ?? 0)
        top = ListViewport.top(top, keeping: selected, inView: rows, of: lines.count)
        selectedSequence = lines.sequence(at: selected)
        topSequence = lines.sequence(at: top)
        let shownLines = (top..<min(lines.count, top + rows)).map(lines.sequence(at:))
        return (shownLines, selectedSequence)
    }

    /// The index in `lines` of the newest line a following log shows at `now`: the newest of
    /// all, unless it moved on less than ``followInterval`` ago, when lines after the one it
    /// moved on to wait (and ``heldBackUntil`` says until when).
    private mutating func newestShownIndex(in lines: VisibleLines, now: Double) -> Int {
        let newest = lines.count - 1
        let newestSequence = lines.sequence(at: newest)
        // A millisecond's grace, so that a frame that comes a hair early (or clock arithmetic
        // that rounds down) does not put the move off by a whole frame.
        let due = followedAt + Self.followInterval - 0.001
        // A clock set back (`now` a beat or more before the last move) holds nothing back.
        let setBack = now < followedAt - Self.followInterval
        if newestSequence != followedThrough, !setBack, now < due, let held = heldIndex(in: lines) {
            heldBackUntil = due
            return held
        }
        if newestSequence != followedThrough {
            // On the log's own beat while lines keep coming, so that frames 40 ms apart move it
            // on every 2 or 3 frames, ten times a second; after a quiet moment, a key or a clock
            // set back, from now.
            let onBeat = followedThrough != nil && now >= due && now - followedAt < 2 * Self.followInterval
            followedAt = onBeat ? followedAt + Self.followInterval : now
            followedThrough = newestSequence
        }
        return newest
    }

    /// The index in `lines` of the newest line numbered ``followedThrough`` or earlier; `nil`
    /// when there is none, or the log started over (a replay read again from a checkpoint).
    private func heldIndex(in lines: VisibleLines) -> Int? {
        guard let through = followedThrough, !lines.isEmpty else { return nil }
        let index = lines.index(atOrAfter: through)
        let found = lines.sequence(at: index)
        if found < through { return nil }
        if found == through { return index }
        return index > 0 ? index - 1 : nil
    }

    /// The index in `lines` of the line a key acts on while following: the newest shown, also
    /// while paused with newer lines held back.
    private func followedIndex(in context: PaneContext, lines: VisibleLines) -> Int {
        guard context.state.log.epoch == followedEpoch, let held = heldIndex(in: lines) else {
            return lines.count - 1
        }
        return held
    }

    mutating func move(by delta: Int, rows: Int, in context: PaneContext) {
        let lines = context.visibleLines()
        guard !lines.isEmpty else { return }
        let current =
            isFollowing
            ? followedIndex(in: context, lines: lines) : lines.index(atOrAfter: selectedSequence ?? 0)
        let target = max(0, min(lines.count - 1, current + delta))
        if delta > 0, isFollowing || target == lines.count - 1 {
            follow()
            return
        }
        if isFollowing {
            // Leave the view where it is, so that stopping is not a jump.
            topSequence = lines.sequence(at: max(0, current + 1 - rows))
        }
        isFollowing = false
        selectedSequence = lines.sequence(at: target)
    }

    mutating func moveToFirst(in context: PaneContext) {
        let lines = context.visibleLines()
        guard !lines.isEmpty else { return }
        isFollowing = false
        selectedSequence = lines.sequence(at: 0)
        topSequence = selectedSequence
    }

    mutating func moveToLast(in context: PaneContext) {
        follow()
    }

    mutating func open(in context: PaneContext) -> PaneEffect? {
        let lines = context.visibleLines()
        guard !lines.isEmpty else { return nil }
        let index =
            isFollowing
            ? followedIndex(in: context, lines: lines) : lines.index(atOrAfter: selectedSequence ?? 0)
        return context.state.log[lines.sequence(at: index)].map(PaneEffect.showDetail)
    }
}

/// The log lines one frame shows, and where they stand in the log.
struct LogView: Equatable {
    /// Sequence numbers of the lines shown, top first.
    let sequences: [Int]
    /// The selected line, unless following.
    let selected: Int?
    /// The selected line's position among the matching lines, from 1; 0 when none.
    let position: Int
    /// Lines that pass the filter.
    let matching: Int
    /// Lines the filter left unchecked because they came too fast.
    let unchecked: Int
    /// Whether the log shows its newest lines as they come.
    let isFollowing: Bool
}

extension LogPane {
    /// Writes the app a line came from in the log's app column, when the log has one and the
    /// line names an app; returns where the line's text starts: after the column then, at `x`
    /// otherwise (a change of a single app's bus, a notice).
    private func putApp(
        of entry: LogEntry, x: Int, y: Int, into grid: inout CellGrid, canvas: PaneCanvas
    ) -> Int {
        guard canvas.logAppWidth > 0, let origin = entry.origin else { return x }
        let label = canvas.state.fleet?.label(for: origin) ?? origin.app
        grid.put(
            TextFormat.truncate(label, width: canvas.logAppWidth - 1, ellipsis: canvas.glyphs.ellipsis),
            x: x, y: y, style: canvas.style(color: .magenta))
        return x + canvas.logAppWidth
    }

    /// Draws the log into `area`: a title rule with the log's state, then lines.
    func draw(into grid: inout CellGrid, area: Rect, canvas: PaneCanvas, focusedPart: Int?) {
        let focused = focusedPart != nil
        let log = inView
        let columns = canvas.columns
        let titleRow = area.y
        let sequences = log.sequences
        let selected = log.selected
        let title = focusTitles[0]

        canvas.drawRule(&grid, y: titleRow, from: 0, to: grid.width, title: title, focused: focused)
        var info: String
        if canvas.isPaused {
            info = "PAUSED, space resumes"
        } else if log.isFollowing {
            info = "following"
        } else {
            // `G` acts on the focused pane, so it is offered only while the log has the focus.
            info = "line \(log.position)/\(log.matching), " + (focused ? "G follows" : "not following")
        }
        if canvas.filter != nil {
            info += ", \(log.matching) of \(canvas.state.log.count) match"
            if log.unchecked > 0 { info += ", \(log.unchecked) too fast to check" }
        }
        let infoX = 7
        let infoEnd = grid.put(
            " " + info + " ", x: infoX, y: titleRow,
            style: canvas.isPaused ? canvas.style(bold: true, color: .yellow) : canvas.style(dim: false),
            maxWidth: grid.width - infoX - 1)
        if let text = canvas.message {
            let room = grid.width - infoEnd - 3
            if room > 4 {
                let shown =
                    " " + TextFormat.truncate(text, width: room - 2, ellipsis: canvas.glyphs.ellipsis) + " "
                grid.put(
                    shown, x: grid.width - 1 - shown.count, y: titleRow,
                    style: canvas.style(bold: true, color: .green))
            }
        }

        let timeWidth = 12
        let appX = timeWidth + 1
        let typeX = appX + canvas.logAppWidth
        let detailX = typeX + columns.name
        let receiversWidth = 4
        for (offset, sequence) in sequences.enumerated() {
            guard let entry = canvas.state.log[sequence] else { continue }
            let y = titleRow + 1 + offset
            grid.put(TextFormat.clock(entry.time), x: 0, y: y, style: canvas.style(dim: true))
            switch entry.content {
            case .event(let event):
                _ = putApp(of: entry, x: appX, y: y, into: &grid, canvas: canvas)
                grid.put(
                    TextFormat.truncate(
                        event.typeName, width: columns.name - 1, ellipsis: canvas.glyphs.ellipsis),
                    x: typeX, y: y, style: canvas.style(color: .cyan))
                let detailWidth = grid.width - detailX - receiversWidth - 1
                grid.put(
                    TextFormat.truncate(
                        event.payload.text, width: detailWidth, ellipsis: canvas.glyphs.ellipsis),
                    x: detailX, y: y)
                grid.put(
                    TextFormat.right(
                        TextFormat.count(event.receivers, width: receiversWidth), width: receiversWidth),
                    x: grid.width - receiversWidth,
                    y: y, style: event.receivers == 0 ? canvas.style(color: .yellow) : canvas.style(dim: true)
                )
            case .lifecycle(let change):
                let x = putApp(of: entry, x: appX, y: y, into: &grid, canvas: canvas)
                let text = canvas.glyphs.bullet + " " + change.description
                grid.put(
                    TextFormat.truncate(text, width: grid.width - x, ellipsis: canvas.glyphs.ellipsis),
                    x: x,
                    y: y,
                    style: canvas.lifecycleStyle(change.kind))
            case .reclaim(let reclaim):
                let x = putApp(of: entry, x: appX, y: y, into: &grid, canvas: canvas)
                let text = canvas.glyphs.bullet + " " + reclaim.description
                grid.put(
                    TextFormat.truncate(text, width: grid.width - x, ellipsis: canvas.glyphs.ellipsis),
                    x: x,
                    y: y, style: canvas.lifecycleStyle(.reclaimed))
            case .notice(let notice):
                let text = canvas.glyphs.bullet + " " + notice.text
                grid.put(
                    TextFormat.truncate(text, width: grid.width - appX, ellipsis: canvas.glyphs.ellipsis),
                    x: appX,
                    y: y, style: canvas.noticeStyle(notice))
            }
            if sequence == selected, focused {
                grid.style(x: 0, y: y, count: grid.width, canvas.style(reverse: true))
            }
        }
        if sequences.isEmpty {
            let text = canvas.filter == nil ? "no events yet" : "no lines match the filter"
            grid.put(text, x: typeX, y: titleRow + 1, style: canvas.style(dim: true))
        }
    }

}
