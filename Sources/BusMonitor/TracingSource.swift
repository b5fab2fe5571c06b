internal import BusWire
internal import EventBus

#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Writes a trace of everything another source delivers, in the Chrome Trace Event format that
/// Perfetto and chrome://tracing open (see ``ChromeTrace``), and passes the batches on unchanged.
///
/// It asks the source for handler calls as it starts (``DashboardSource/requestHandlerCalls()``):
/// the app then times each call on its own and sends it, which it does only while a trace is
/// written. The file is written as batches arrive, as a JSON array: one cut short by a crash
/// lacks only its closing `]`, which the format allows.
///
/// ```swift
/// let source = try TracingSource(wrapping: AttachSource(socketPath: "/tmp/app.bus"), path: "app.trace.json")
/// ```
package final class TracingSource: WrappingSource {
    /// The source being traced.
    package let wrapped: any DashboardSource
    /// Where the trace goes.
    package let path: String

    private struct State {
        var trace: ChromeTrace
        var taken = RecordsTakenOnce()
        var finished = false
        /// Whether the first batch said that a trace is being written.
        var announced = false
    }

    private let file: RecordingWriter
    /// Whether the file's failure was told, as a warning, once.
    private let toldFailure = LockedValue(false)
    private let state: LockedValue<State>

    /// Wraps `source`, creating the file at once, so that a path that cannot be written is
    /// refused before anything runs, and asks `source` for handler calls.
    ///
    /// - Throws: ``RecordingError/unwritable(path:reason:what:)`` when the file cannot be created.
    package init(wrapping source: any DashboardSource, path: String) throws(RecordingError) {
        wrapped = source
        self.path = path
        file = try RecordingWriter(path: path, what: "trace")
        let singleApp: @Sendable () -> ChromeTrace.AppName = {
            if let hello = Self.hello(of: source) {
                return ChromeTrace.AppName(name: hello.process, pid: hello.pid)
            }
            return ChromeTrace.AppName(name: source.title, pid: Int(getpid()))
        }
        state = LockedValue(State(trace: ChromeTrace(singleApp: singleApp)))
        source.requestHandlerCalls()
    }

    /// Why writing the trace stopped, such as a full disk; `nil` while it works.
    package var failure: String? { file.error }

    /// Drains the wrapped source, traces the batch, and returns it.
    package func drain() -> SourceBatch {
        take(wrapped.drain())
    }

    /// Drains the wrapped source's batches (a replay's after its cursor moved), tracing each.
    package func drainBatches() -> [SourceBatch] {
        wrapped.drainBatches().map(take)
    }

    /// Drains the wrapped source for the last time, traces the batch and ends the trace; called
    /// again, returns that batch once more, for a source wrapped around this one (a graph) whose
    /// own last drain comes after.
    package func drainLast() -> SourceBatch {
        lastDrain.take {
            let batch = take(wrapped.drainLast())
            finish()
            return batch
        }
    }

    private let lastDrain = LastDrain()

    /// What the trace will hold, as its first notice says it: where it goes, and where its
    /// handler calls come from.
    package var announcement: String {
        // A recording has the handler calls it has; a live app sends each from now on.
        var innermost = wrapped
        while let wrapping = innermost as? any WrappingSource { innermost = wrapping.wrapped }
        let calls =
            switch (innermost as? ReplaySource)?.handlerCallCount {
            case nil: "the app reports each handler call meanwhile"
            case 0?:
                "the recording has no handler calls (a recording made with --trace has them), "
                    + "so the trace shows its events without the calls they caused"
            case _?: "from the recording's handler calls"
            }
        return "tracing to \(UntrustedText.escaped(path)); \(calls)"
    }

    /// Ends the trace: writes the array's end and closes the file. Calling it again does
    /// nothing.
    package func finish() {
        let bytes = state.withLock { state -> [UInt8]? in
            guard !state.finished else { return nil }
            state.finished = true
            return state.trace.finish()
        }
        guard let bytes else { return }
        file.write(bytes: bytes, lines: 1)
        file.close()
    }

    private func take(_ drained: SourceBatch) -> SourceBatch {
        var batch = drained
        let (bytes, entries) = state.withLock { state -> ([UInt8], Int) in
            guard !state.finished else { return ([], 0) }
            // A replay that moved back hands over records again: the trace takes them once.
            let fresh = state.taken.fresh(batch)
            if !state.announced {
                state.announced = true
                batch.notices.insert(SourceNotice(time: WallClock.now(), text: announcement), at: 0)
            }
            let before = state.trace.entriesWritten
            state.trace.add(fresh)
            return (state.trace.take(), state.trace.entriesWritten - before)
        }
        if !bytes.isEmpty { file.write(bytes: bytes, lines: entries) }
        if let error = file.error {
            let problem = SourceProblem(brief: "\(file.what) stopped", text: error)
            toldFailure.withLock { batch.add(problem: problem, told: &$0) }
        }
        return batch
    }

    /// The app's own hello, when the source has one.
    private static func hello(of source: any DashboardSource) -> FeedHello? {
        if let attach = source as? AttachSource { return attach.hello }
        // The hello in effect where the replay reads, not the recording's first.
        if let replay = source as? ReplaySource { return replay.currentHello }
        if let wrapping = source as? any WrappingSource { return hello(of: wrapping.wrapped) }
        return nil
    }
}
