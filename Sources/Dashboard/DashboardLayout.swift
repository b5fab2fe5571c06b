internal import BusMonitor
internal import ScreenGrid

/// Where everything goes on a screen of one size, worked out once a frame before anything is
/// drawn. Keys are handled against the last one: paging moves by the rows it shows.
struct DashboardLayout: Equatable {
    let width: Int
    let height: Int
    /// Whether the screen is below the minimum size; only a note saying so is drawn.
    let isTooSmall: Bool
    /// Column widths of the tables, which the log's type column shares.
    let columns: TableColumns
    /// Width of the log's app column, between the time and the type; 0 when no event said which
    /// process published it (a single app).
    let logAppWidth: Int
    /// The header row.
    let header: Rect
    /// Each pane's rectangle, in the order of `panes`, stacked top to bottom; a pane not shown
    /// has no rows.
    let panes: [Rect]
    /// Rows of each pane that show lines.
    let contentRows: [Int]
    /// The key bar, or the filter prompt.
    let bar: Rect

    /// Rows the panes that fill (the log) keep, title included, before panes that can give rows
    /// back do so (see ``DashboardPane/minimumHeight(screenHeight:state:)``).
    static let fillMinimum = 4

    /// Lays out a `width` x `height` screen showing `state`: the header, then the panes each at
    /// the height it asks for (those that ask for none share what is left), then the key bar.
    /// When that would leave a filling pane less than ``fillMinimum`` rows, panes that can give
    /// rows back do, top first, down to their minimum.
    init(
        width: Int, height: Int, state: DashboardState,
        panes: [any DashboardPane] = DashboardController.panes
    ) {
        self.width = width
        self.height = height
        isTooSmall = width < DashboardController.minimumWidth || height < DashboardController.minimumHeight
        columns = TableColumns(width: width)
        logAppWidth = Self.appColumnWidth(screenWidth: width, state: state)
        header = Rect(x: 0, y: 0, width: width, height: 1)
        bar = Rect(x: 0, y: height - 1, width: width, height: 1)
        var asked = panes.map { $0.isShown(in: state) ? $0.height(screenHeight: height, state: state) : 0 }
        let fills = asked.filter { $0 == nil }.count
        let room = max(0, height - 2)
        var short = asked.reduce(0) { $0 + ($1 ?? 0) } + fills * Self.fillMinimum - room
        for index in panes.indices where short > 0 {
            guard let rows = asked[index], rows > 0,
                let minimum = panes[index].minimumHeight(screenHeight: height, state: state), minimum < rows
            else { continue }
            var given = min(short, rows - minimum)
            // Rows that show no line (a table's title and column titles) say no more than the
            // pane's minimum does: it keeps that, and the filling pane gets the rest.
            let kept = Rect(x: 0, y: 0, width: width, height: rows - given)
            if rows - given > minimum, panes[index].contentRows(in: kept) == 0 { given = rows - minimum }
            asked[index] = rows - given
            short -= given
        }
        var left = max(0, room - asked.reduce(0) { $0 + ($1 ?? 0) })
        var fillsLeft = fills
        var y = header.maxY
        var rects: [Rect] = []
        for rows in asked {
            var paneHeight = rows ?? 0
            if rows == nil {
                paneHeight = left / fillsLeft
                left -= paneHeight
                fillsLeft -= 1
            }
            paneHeight = max(0, min(paneHeight, bar.y - y))
            rects.append(Rect(x: 0, y: y, width: width, height: paneHeight))
            y += paneHeight
        }
        self.panes = rects
        contentRows = zip(panes, rects).map { $0.contentRows(in: $1) }
    }

    /// The log's app column: as wide as the longest name the fleet's members go by, within a
    /// limit that grows with the screen; a few columns when there is no fleet list to measure
    /// (a recording of a fleet's events).
    private static func appColumnWidth(screenWidth: Int, state: DashboardState) -> Int {
        guard state.hasOrigins else { return 0 }
        let limit = screenWidth >= 110 ? 24 : screenWidth >= 90 ? 20 : 12
        let longest =
            state.fleet.map { fleet in
                fleet.rows.map { fleet.label(for: $0.member.origin).count }.max() ?? 0
            } ?? limit
        return min(limit, max(6, longest + 1))
    }
}
