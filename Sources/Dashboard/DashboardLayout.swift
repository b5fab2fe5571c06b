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
    /// The header row.
    let header: Rect
    /// The tables: a title rule, a row of column titles, then rows.
    let table: Rect
    /// The log: a title rule, then lines.
    let log: Rect
    /// The key bar, or the filter prompt.
    let bar: Rect

    /// Lays out a `width` x `height` screen for tables of `typeRows` event types.
    init(width: Int, height: Int, typeRows: Int) {
        self.width = width
        self.height = height
        isTooSmall = width < DashboardController.minimumWidth || height < DashboardController.minimumHeight
        columns = TableColumns(width: width)
        header = Rect(x: 0, y: 0, width: width, height: 1)
        // The tables take the rows they need, the wildcard row included, up to 45% of the rows
        // left once every title and the bar are placed; the log takes the rest.
        let available = height - 5
        let tableRows = max(2, min(typeRows + 1, available * 45 / 100))
        table = Rect(x: 0, y: 1, width: width, height: tableRows + 2)
        log = Rect(x: 0, y: table.maxY, width: width, height: max(0, height - 1 - table.maxY))
        bar = Rect(x: 0, y: height - 1, width: width, height: 1)
    }

    /// Table rows shown.
    var tableRows: Int { max(0, table.height - 2) }
    /// Log lines shown.
    var logRows: Int { max(0, log.height - 1) }
}
