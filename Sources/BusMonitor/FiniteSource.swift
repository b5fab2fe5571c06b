/// A source that comes to an end, such as a replay, so that a runner knows when to stop.
package protocol FiniteSource: DashboardSource {
    /// Whether everything the source will ever deliver has been drained.
    var isFinished: Bool { get }
}
