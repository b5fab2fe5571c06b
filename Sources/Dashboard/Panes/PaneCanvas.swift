internal import BusMonitor
internal import EventBus
internal import ScreenGrid

/// What a pane draws with, besides its own state and its rectangle: the state shown and its
/// time, the frame's glyphs and colours, and the few facts of the whole frame a pane shows
/// (paused, the filter, the source's message, the column widths the tables and the log share).
///
/// A pane's `draw` is a function of itself, its area and this, and changes nothing: like
/// ratatui's `StatefulWidget::render(self, area, buf, state)`, with the frame's facts passed in
/// rather than reached through the frame.
struct PaneCanvas {
    /// The state drawn: the frozen copy while paused.
    let state: DashboardState
    /// The time the tables are drawn for: the moment of pausing while paused.
    let now: Double
    let options: DashboardOptions
    let glyphs: Glyphs
    let isPaused: Bool
    let filter: LogFilter?
    /// The source's recent message, if any.
    let message: String?
    /// Column widths of the tables, which the log's type column shares.
    let columns: TableColumns
    /// Width of the log's app column; 0 when no event said which process published it.
    let logAppWidth: Int

    /// A cell style; colourless when colours are off.
    func style(
        bold: Bool = false, reverse: Bool = false, dim: Bool = false, color: CellStyle.Color? = nil
    ) -> CellStyle {
        CellStyle(bold: bold, reverse: reverse, dim: dim, color: options.color ? color : nil)
    }

    /// A horizontal line with a title, the title reversed when its pane has focus.
    func drawRule(
        _ grid: inout CellGrid, y: Int, from start: Int, to end: Int, title: String, focused: Bool
    ) {
        guard end > start else { return }
        grid.fill(Cell(glyphs.horizontal, style: style(dim: true)), x: start, y: y, count: end - start)
        grid.put(
            " " + title + " ", x: start + 1, y: y,
            style: focused ? style(bold: true, reverse: true, color: .cyan) : style(bold: true),
            maxWidth: end - start - 1)
    }

    /// The title rule's note, after the title, as the log's says whether it follows.
    func putRuleNote(
        _ grid: inout CellGrid, _ note: String, y: Int, after title: String, style noteStyle: CellStyle
    ) {
        let room = grid.width - title.count - 7
        guard room >= 4 else { return }
        let shown = TextFormat.truncate(note, width: room, ellipsis: glyphs.ellipsis)
        grid.put(" " + shown + " ", x: title.count + 4, y: y, style: noteStyle)
    }

    /// A warning from the source in bold red; other notices in bold.
    func noticeStyle(_ notice: SourceNotice) -> CellStyle {
        notice.isWarning ? warningStyle : style(bold: true)
    }

    /// What needs the person's attention: drops, a source's warnings.
    var warningStyle: CellStyle { style(bold: true, color: .red) }

    /// The colour of a lifecycle change's kind, in the log and the details.
    func lifecycleStyle(_ kind: SubscriberLifecycleEvent.Kind) -> CellStyle {
        switch kind {
        case .subscribed: return style(color: .green)
        case .duplicateSubscription: return style(bold: true, color: .magenta)
        case .unsubscribed, .cancelled: return style(color: .blue)
        case .reclaimed: return style(bold: true, color: .yellow)
        case .leakSuspected: return style(bold: true, color: .red)
        case .leakCleared: return style(color: .green)
        case .cascadeStopped, .handlerFailed: return style(bold: true, color: .red)
        case .slowHandler, .slowDelivery: return style(bold: true, color: .yellow)
        }
    }
}
