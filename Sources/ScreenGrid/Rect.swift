/// A rectangle of the screen, in cells: the part of a ``CellGrid`` a pane draws into.
public struct Rect: Equatable, Sendable {
    /// The first column.
    public var x: Int
    /// The first row.
    public var y: Int
    /// Columns, from `x`.
    public var width: Int
    /// Rows, from `y`.
    public var height: Int

    /// A rectangle of `width` x `height` cells whose top left cell is at column `x`, row `y`.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The row below the rectangle.
    public var maxY: Int { y + height }
}
