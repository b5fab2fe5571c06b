internal import BusWire
internal import EventBus

#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Gathers a ``FlowGraph`` of everything another source delivers, writes it to a DOT file every
/// few seconds and at the end, and passes the batches on unchanged.
///
/// ```swift
/// let source = try GraphingSource(wrapping: AttachSource(socketPath: "/tmp/app.bus"), path: "flow.dot")
/// ```
///
/// The file is replaced whole each time (written beside it, then renamed), so a reader never
/// sees half a graph. When writing fails, the batches say so in ``SourceBatch/problems`` and the
/// monitor goes on.
package final class GraphingSource: WrappingSource {
    /// The source being graphed.
    package let wrapped: any DashboardSource
    /// Where the graph goes.
    package let path: String
    /// Seconds between two writes of the file.
    package static let writeInterval = 2.0

    private struct State {
        var graph = FlowGraph()
        var lastWrite = -Double.infinity
        var error: String?
        /// Whether ``error`` was told, as a warning, once.
        var toldError = false
        var taken = RecordsTakenOnce()
    }

    private let state = LockedValue(State())

    /// Wraps `source`; writes an empty graph to `path` at once, so that a path that cannot be
    /// written is refused before anything runs.
    ///
    /// - Throws: ``GraphFileError`` when `path` cannot be written.
    package init(wrapping source: any DashboardSource, path: String) throws(GraphFileError) {
        wrapped = source
        self.path = path
        if let error = Self.write(FlowGraph().dot(title: source.title), to: path) {
            throw GraphFileError(description: "cannot write the graph to \(path): \(error)")
        }
    }

    /// The graph so far.
    package var graph: FlowGraph { state.withLock { $0.graph } }

    /// Why the newest write of the graph failed, such as a full disk; `nil` once one works.
    package var failure: String? { state.withLock { $0.error } }

    /// Drains the wrapped source, adds the batch to the graph, and returns it.
    package func drain() -> SourceBatch {
        take(wrapped.drain(), forceWrite: false)
    }

    /// Drains the wrapped source's batches (a replay's after its cursor moved), adding each to
    /// the graph.
    package func drainBatches() -> [SourceBatch] {
        let batches = wrapped.drainBatches()
        return batches.indices.map { take(batches[$0], forceWrite: false) }
    }

    /// Drains the wrapped source for the last time and writes the graph; called again, returns
    /// that batch once more, for a source wrapped around this one whose own last drain comes
    /// after.
    package func drainLast() -> SourceBatch {
        lastDrain.take { take(wrapped.drainLast(), forceWrite: true) }
    }

    private let lastDrain = LastDrain()

    /// Writes the graph as it is now; `final` when nothing more will come.
    package func writeNow(final: Bool = false) {
        let (text, title) = state.withLock { ($0.graph, wrapped.title) }
        let error = Self.write(text.dot(title: title, final: final), to: path)
        state.withLock {
            $0.error = error.map { "graph to \(path) not written: \($0)" }
            $0.lastWrite = MonotonicClock.now()
        }
    }

    private func take(_ drained: SourceBatch, forceWrite: Bool) -> SourceBatch {
        var batch = drained
        let now = MonotonicClock.now()
        let due = state.withLock { state in
            // A replay that moved back hands over records again: the graph counts them once.
            state.graph.take(state.taken.fresh(batch))
            return forceWrite || now - state.lastWrite >= Self.writeInterval
        }
        if due { writeNow(final: forceWrite) }
        state.withLock { state in
            if let error = state.error {
                batch.add(
                    problem: SourceProblem(brief: "graph not written", text: error), told: &state.toldError)
            }
        }
        return batch
    }

    /// Writes `text` beside `path` and renames it over `path` (or into a device at `path`);
    /// returns why it could not.
    ///
    /// The file beside it is made anew each time as a recording is (``RecordingWriter``),
    /// readable by its owner only: one left by an earlier run of this user's is removed first,
    /// and anything else found there (another user's file, link or FIFO, planted in a shared
    /// folder) is refused, never written through or opened. A device at `path` (`/dev/null`)
    /// is written as it is: renamed over, it would be replaced by a file for everyone (root may
    /// rename in `/dev`). Anything else there that is not a file (a symbolic link such as
    /// `/dev/stdout`, a FIFO, a socket, a folder) is refused, not replaced, as the other files
    /// busmon writes refuse links.
    private static func write(_ text: String, to path: String) -> String? {
        var info = stat()
        if lstat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                break
            case S_IFLNK:
                return "it is a symbolic link"
            case S_IFCHR:
                do throws(RecordingError) {
                    let device = try RecordingWriter(path: path, what: "graph")
                    device.write(bytes: Array(text.utf8), lines: 1)
                    device.close()
                    return device.failureReason
                } catch {
                    return error.description
                }
            default:
                return "it is not a regular file"
            }
        }
        let temporary = path + ".partial"
        _ = unlink(temporary)
        let writer: RecordingWriter
        do throws(RecordingError) {
            writer = try RecordingWriter(path: temporary, what: "graph", replacing: false)
        } catch {
            guard case .unwritable(_, let reason, _) = error else { return error.description }
            // A file that is there names itself: it is what stands in the way.
            return reason == RecordingWriter.alreadyExists
                ? "\(temporary) already exists and is not this user's" : reason
        }
        writer.write(bytes: Array(text.utf8), lines: 1)
        writer.close()
        if let reason = writer.failureReason {
            unlink(temporary)
            return reason
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            return reason
        }
        return nil
    }
}

/// Why busmon cannot write the flow graph where `--graph` asked.
package struct GraphFileError: Error, CustomStringConvertible, Equatable {
    /// The message busmon prints.
    package let description: String
}
