/// A rectangle of the screen, in cells: the part of a ``CellGrid`` a pane draws into.
package struct Rect: Equatable, Sendable {
    /// The first column.
    package var x: Int
    /// The first row.
    package var y: Int
    /// Columns, from `x`.
    package var width: Int
    /// Rows, from `y`.
    package var height: Int

    /// A rectangle of `width` x `height` cells whose top left cell is at column `x`, row `y`.
    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The row below the rectangle.
    package var maxY: Int { y + height }
}
