package import Dashboard
internal import ScreenGrid

/// What busmon shows: it reacts to keys, pulls new data and draws itself into a cell grid once
/// a frame. The terminal front end knows nothing else about it.
protocol Screen: AnyObject {
    /// Reacts to a key.
    ///
    /// - Returns: `false` when busmon should quit.
    func handle(_ key: DashboardKey) -> Bool
    /// Pulls new data; called once a frame before ``render(into:now:)``.
    ///
    /// - Parameter now: Seconds since 1970, the clock of `FeedEvent.time`.
    func update(now: Double)
    /// Whether a frame drawn at `now` would differ from the last one drawn; the loop skips
    /// frames that would not.
    func needsFrame(at now: Double) -> Bool
    /// Whether something came in or a key was pressed since the last frame, beyond the clock
    /// moving on; the loop looks less often after a while without any.
    var hasChangesToShow: Bool { get }
    /// Draws the whole screen into `grid`, which has the terminal's size and may hold an older
    /// frame: every cell is drawn anew.
    func render(into grid: inout CellGrid, now: Double)
}

extension SourceDashboard: Screen {}
