/// A rectangle of the screen, in cells.
struct Rect: Equatable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    /// The row below the rectangle.
    var maxY: Int { y + height }
}

/// Where everything goes on a screen of one size, worked out once a frame before anything is
/// drawn. Keys are handled against the last one: paging moves by the rows it shows.
struct DashboardLayout: Equatable {
    let width: Int
    let height: Int
    /// Whether the screen is below the minimum size; only a note saying so is drawn.
    let isTooSmall: Bool
    /// Column widths of the tables, which the log's type column shares.
    let columns: TableColumns
    /// Column widths of the Observers pane.
    let observerColumns: ObserverColumns
    /// The header row.
    let header: Rect
    /// Each pane's rectangle, in the order of `panes`, stacked top to bottom.
    let panes: [Rect]
    /// Rows of each pane that show lines.
    let contentRows: [Int]
    /// The key bar, or the filter prompt.
    let bar: Rect

    /// Lays out a `width` x `height` screen showing `state`: the header, then the panes each at
    /// the height it asks for (those that ask for none share what is left), then the key bar.
    init(
        width: Int, height: Int, state: DashboardState,
        panes: [any DashboardPane] = DashboardController.panes
    ) {
        self.width = width
        self.height = height
        isTooSmall = width < DashboardController.minimumWidth || height < DashboardController.minimumHeight
        columns = TableColumns(width: width)
        observerColumns = ObserverColumns(width: width)
        header = Rect(x: 0, y: 0, width: width, height: 1)
        bar = Rect(x: 0, y: height - 1, width: width, height: 1)
        let asked = panes.map { $0.height(screenHeight: height, state: state) }
        let fills = asked.filter { $0 == nil }.count
        var left = max(0, height - 2 - asked.reduce(0) { $0 + ($1 ?? 0) })
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
}
