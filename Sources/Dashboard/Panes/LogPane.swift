internal import BusMonitor
internal import BusWire
internal import EventBus
internal import ScreenGrid

/// The log: time, type, payload and receivers of each line, following the newest unless the
/// person scrolls. Enter shows a line's full payload.
struct LogPane: DashboardPane {
    let focusTitles = ["Log"]
    let name = "log"
    let enterHelp = "the line's full payload"
    let takesFirstFocus = true

    /// Whether the log shows its newest lines as they come.
    private(set) var isFollowing = true
    /// The selected line when not following.
    private(set) var selectedSequence: Int?
    /// The first line shown when not following.
    private(set) var topSequence: Int?
    /// What the last frame showed.
    private(set) var inView = LogView(
        sequences: [], selected: nil, position: 0, matching: 0, unchecked: 0, isFollowing: true)

    func height(screenHeight: Int, state: DashboardState) -> Int? { nil }

    func contentRows(in area: Rect) -> Int { max(0, area.height - 1) }

    /// Shows the newest lines as they come (after a new filter, say).
    mutating func follow() {
        isFollowing = true
    }

    mutating func layOut(rows: Int, in context: PaneContext) {
        let lines = context.visibleLines()
        let (sequences, selected) = viewport(rows: rows, lines: lines)
        inView = LogView(
            sequences: sequences, selected: selected,
            position: selected.map { lines.index(atOrAfter: $0) + 1 } ?? 0, matching: lines.count,
            unchecked: context.uncheckedLines, isFollowing: isFollowing)
    }

    /// Works out which of `lines` to draw in `rows` rows, keeping the selection in view.
    ///
    /// - Returns: The lines' sequence numbers, top first, and the selected one unless following.
    private mutating func viewport(rows: Int, lines: VisibleLines) -> (sequences: [Int], selected: Int?) {
        guard !lines.isEmpty, rows > 0 else { return ([], nil) }
        if isFollowing {
            let top = max(0, lines.count - rows)
            return ((top..<lines.count).map(lines.sequence(at:)), nil)
        }
        let selected = lines.index(atOrAfter: selectedSequence ?? 0)
        var top = lines.index(atOrAfter: topSequence ?? 0)
        top = ListViewport.top(top, keeping: selected, inView: rows, of: lines.count)
        selectedSequence = lines.sequence(at: selected)
        topSequence = lines.sequence(at: top)
        let shownLines = (top..<min(lines.count, top + rows)).map(lines.sequence(at:))
        return (shownLines, selectedSequence)
    }

    mutating func move(by delta: Int, rows: Int, in context: PaneContext) {
        let lines = context.visibleLines()
        guard !lines.isEmpty else { return }
        let current = isFollowing ? lines.count - 1 : lines.index(atOrAfter: selectedSequence ?? 0)
        let target = max(0, min(lines.count - 1, current + delta))
        if delta > 0, target == lines.count - 1 {
            isFollowing = true
            return
        }
        if isFollowing {
            // Leave the view where it is, so that stopping is not a jump.
            topSequence = lines.sequence(at: max(0, lines.count - rows))
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
        isFollowing = true
    }

    mutating func open(in context: PaneContext) -> PaneEffect? {
        let lines = context.visibleLines()
        guard !lines.isEmpty else { return nil }
        let index = isFollowing ? lines.count - 1 : lines.index(atOrAfter: selectedSequence ?? 0)
        return context.state.log[lines.sequence(at: index)].map(PaneEffect.showDetail)
    }
}

/// The log lines one frame shows, and where they stand in the log.
struct LogView {
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
                if canvas.logAppWidth > 0, let origin = event.origin {
                    let label = canvas.state.fleet?.label(for: origin) ?? origin.app
                    grid.put(
                        TextFormat.truncate(
                            label, width: canvas.logAppWidth - 1, ellipsis: canvas.glyphs.ellipsis),
                        x: appX, y: y, style: canvas.style(color: .magenta))
                }
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
                    TextFormat.right(String(event.receivers), width: receiversWidth),
                    x: grid.width - receiversWidth,
                    y: y, style: event.receivers == 0 ? canvas.style(color: .yellow) : canvas.style(dim: true)
                )
            case .lifecycle(let change):
                let text = canvas.glyphs.bullet + " " + change.description
                grid.put(
                    TextFormat.truncate(text, width: grid.width - appX, ellipsis: canvas.glyphs.ellipsis),
                    x: appX,
                    y: y,
                    style: canvas.lifecycleStyle(change.kind))
            case .reclaim(let reclaim):
                let text = canvas.glyphs.bullet + " " + reclaim.description
                grid.put(
                    TextFormat.truncate(text, width: grid.width - appX, ellipsis: canvas.glyphs.ellipsis),
                    x: appX,
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
            let text = canvas.filter == nil ? "no events yet" : "no lines match the canvas.filter"
            grid.put(text, x: typeX, y: titleRow + 1, style: canvas.style(dim: true))
        }
    }

}
