internal import EventBus

/// The last drain of a source that wraps another (a trace, a graph): the first call drains
/// and keeps the batch, and a second hands that batch over once more, for a source wrapped
/// around this one whose own last drain comes after. The dashboard winds the wrappers up
/// innermost first, each taking its last drain through those inside it, so without this the
/// events of the last moments before quitting would reach only the innermost output.
struct LastDrain: Sendable {
    private let kept = LockedValue<SourceBatch?>(nil)

    /// The batch a first call keeps, or `drain()`'s, kept for the next call.
    func take(_ drain: () -> SourceBatch) -> SourceBatch {
        if let kept = kept.withLock({ kept in
            defer { kept = nil }
            return kept
        }) {
            return kept
        }
        let batch = drain()
        kept.withLock { $0 = batch }
        return batch
    }
}
