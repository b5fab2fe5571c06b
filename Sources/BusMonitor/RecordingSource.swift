internal import BusWire
internal import EventBus

/// Records everything another source delivers, and passes it on unchanged.
///
/// ```swift
/// let writer = try RecordingWriter(path: "session.jsonl")
/// let source = RecordingSource(wrapping: AttachSource(socketPath: "/tmp/app.bus"), writer: writer)
/// ```
///
/// When recording fails, every batch says so in ``SourceBatch/problems`` (such as `recording to
/// session.jsonl stopped: No space left on device`), the first also as a warning notice, and the
/// monitor goes on without recording.
package final class RecordingSource: WrappingSource {
    /// The source being recorded.
    package let wrapped: any DashboardSource
    /// Where the records go.
    package let writer: RecordingWriter

    /// Wraps `source`, writing what it delivers to `writer`.
    ///
    /// - Parameters:
    ///   - source: Any source: a simulation, an ``AttachSource``, a ``ReplaySource``.
    ///   - writer: The recording file.
    package init(wrapping source: any DashboardSource, writer: RecordingWriter) {
        wrapped = source
        self.writer = writer
        hello = WatchedHello(of: source)
    }

    /// Who is being recorded, written before the first records and again when it changes.
    let hello: WatchedHello

    /// Drains the wrapped source, records the batch, and returns it.
    package func drain() -> SourceBatch {
        record(wrapped.drain())
    }

    /// Drains the wrapped source's batches (a replay's, one a second of its clock), records
    /// each, and returns them: each keeps its own drop counts, so the recording's `dropped`
    /// lines stand where the source's did.
    package func drainBatches() -> [SourceBatch] {
        wrapped.drainBatches().map(record)
    }

    /// Drains the wrapped source for the last time, records the batch, and returns it; after
    /// ``recordRemaining()``, returns what that recorded instead, once.
    package func drainLast() -> SourceBatch {
        if let left = leftover.withLock({ left in
            defer { left = nil }
            return left
        }) {
            return left
        }
        drainedLast.withLock { $0 = true }
        return record(wrapped.drainLast())
    }

    /// What ``recordRemaining()`` drained and recorded, for a source wrapped around this one (a
    /// trace) to take with its own last drain.
    private let leftover = LockedValue<SourceBatch?>(nil)

    /// Whether the writer's failure was told, as a warning, once.
    private let toldFailure = LockedValue(false)

    /// Whether ``drainLast()`` was called: what feeds the source has stopped and everything
    /// was recorded.
    private let drainedLast = LockedValue(false)

    private func record(_ drained: SourceBatch) -> SourceBatch {
        var batch = drained
        if WatchedHello.writesLines(batch) || writer.recordsWritten > 0 { writer.record(batch, hello: hello) }
        if let error = writer.error {
            let problem = SourceProblem(brief: "\(writer.what) stopped", text: error)
            toldFailure.withLock { batch.add(problem: problem, told: &$0) }
        }
        return batch
    }

    /// Records what the wrapped source still holds, which nobody will draw: call it after
    /// stopping what feeds the source and before closing the writer, so that the events of the
    /// last moments before quitting are in the recording too.
    /// A run that ended with ``drainLast()`` (headless output does) has nothing left, and its
    /// recording ends as its output does.
    package func recordRemaining() {
        guard !drainedLast.current else { return }
        let batch = drainLast()
        leftover.withLock { $0 = batch }
    }
}
