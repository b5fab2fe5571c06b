internal import BusWire
internal import EventBus
internal import Foundation

#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Writes what a monitor saw to a file, one JSON object per line, in the wire format.
///
/// Each batch goes to the file in one `write` as soon as it is recorded, so a crash loses at most
/// the batch being written; ``ReplaySource`` skips a last line cut short. When writing fails
/// (for example, the disk is full) the file is cut back to its last whole batch, recording
/// stops, and ``error`` says why once, for the monitor to show; the monitor carries on.
///
/// ```swift
/// let writer = try RecordingWriter(path: "session.jsonl")
/// let source = RecordingSource(wrapping: AttachSource(socketPath: path), writer: writer)
/// ```
package final class RecordingWriter: Sendable {
    /// The reason given when a file is at the path and `replacing` is `false`.
    package static let alreadyExists = "it already exists"

    /// The file being written.
    package let path: String
    /// What it holds, as messages name it: `recording`, `trace`.
    package let what: String
    private let state: LockedValue<State>

    private struct State {
        var descriptor: Int32
        var error: String?
        var failureReason: String?
        var recordsWritten = 0
        var lines = RecordLines()
        /// Whether the file held something of before, emptied only once this run writes (or
        /// closes): a run that cannot start leaves the old file as it was.
        var emptyBeforeWriting = false
        /// Whether the file is this run's own, made new: removed if the run never starts.
        var madeHere = false
    }

    /// Creates the file, readable and writable by its owner only, or takes one of this user's,
    /// emptied when the run first writes to it or closes it: a writer dropped without
    /// ``close()`` (the run never started) leaves a file of before as it was, and removes one it
    /// made.
    ///
    /// A new file is created exclusively, and no symbolic link is followed: in a shared folder
    /// such as `/tmp`, a link or a file another user planted at the path beforehand would
    /// otherwise receive the recording (or have a file of the user's overwritten through it).
    /// An existing regular file must belong to this user; a device (`/dev/null`) is written as
    /// it is, and so is a FIFO that a program reads, and the process's own descriptors
    /// (`--record >(gzip > session.jsonl.gz)`, which names `/dev/fd/63`); a FIFO that nobody
    /// reads is refused, where opening it would wait for a reader.
    ///
    /// - Parameters:
    ///   - path: Where to write.
    ///   - what: What the file holds, as messages name it.
    ///   - replacing: Whether a file already at `path` may be written (emptied if it is one of
    ///     this user's); when `false`, only a new file is, so nothing planted there (a FIFO that
    ///     would block the open) is ever opened.
    /// - Throws: ``RecordingError/unwritable(path:reason:what:)`` when the file cannot be opened,
    ///   is a symbolic link, belongs to another user, or exists and may not be replaced.
    package init(path: String, what: String = "recording", replacing: Bool = true) throws(RecordingError) {
        // The process's own descriptors are links on Linux (`/dev/fd/63`, which a shell's
        // `>(gzip > session.jsonl.gz)` names, and `/dev/stdout`), and nobody else can plant one.
        let ownDescriptor = path.hasPrefix("/dev/fd/") || path == "/dev/stdout" || path == "/dev/stderr"
        let flags = O_WRONLY | O_APPEND | O_CLOEXEC | (ownDescriptor ? 0 : O_NOFOLLOW)
        var descriptor = open(path, flags | O_CREAT | O_EXCL, 0o600)
        let existed = descriptor < 0 && errno == EEXIST
        var emptyBeforeWriting = false
        if descriptor < 0 && errno == EEXIST && !replacing {
            throw .unwritable(path: path, reason: Self.alreadyExists, what: what)
        }
        if descriptor < 0 && errno == EEXIST {
            // Without waiting: a FIFO nobody reads would hold the open, and busmon with it,
            // before anything started; it fails with ENXIO instead.
            descriptor = open(path, flags | O_NONBLOCK)
            if descriptor < 0 && errno == ENXIO {
                // ENXIO is also a device that went away (a revoked terminal on Darwin).
                var info = stat()
                if stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO {
                    throw .unwritable(path: path, reason: "it is a FIFO that nobody reads", what: what)
                }
                errno = ENXIO
            }
            if descriptor >= 0 {
                // Written as before, waiting for a reader that is slow (a terminal, a pipe).
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                var info = stat()
                let isRegular = fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
                if isRegular && info.st_uid != geteuid() {
                    System.closeDescriptor(descriptor)
                    throw .unwritable(path: path, reason: "the file belongs to another user", what: what)
                }
                emptyBeforeWriting = isRegular
            }
        }
        let madeHere = descriptor >= 0 && !emptyBeforeWriting && !existed
        guard descriptor >= 0 else {
            let code = errno
            // O_NOFOLLOW answers ELOOP for a link, a message that would not say what happened.
            let reason = code == ELOOP ? "it is a symbolic link" : UnixSocket.errorText(code)
            throw .unwritable(path: path, reason: reason, what: what)
        }
        self.path = path
        self.what = what
        state = LockedValue(
            State(descriptor: descriptor, emptyBeforeWriting: emptyBeforeWriting, madeHere: madeHere))
    }

    deinit {
        // Never closed: the run did not start (another output could not be opened, say). A
        // file of before stays as it was, and one made for the run goes.
        let abandoned = state.withLock { state -> Bool in
            guard state.descriptor >= 0 else { return false }
            System.closeDescriptor(state.descriptor)
            state.descriptor = -1
            return state.madeHere && state.recordsWritten == 0
        }
        if abandoned { _ = unlink(path) }
    }

    /// Why recording stopped, such as "recording to session.jsonl stopped: No space left on
    /// device"; nil while recording works.
    package var error: String? { state.withLock(\.error) }

    /// Why writing stopped, without the file's name: the system's reason, such as `No space
    /// left on device`; `nil` while it works.
    package var failureReason: String? { state.withLock(\.failureReason) }

    /// Lines written so far.
    package var recordsWritten: Int { state.withLock(\.recordsWritten) }

    /// Closes the file; later writes are ignored.
    package func close() {
        state.withLock { state in
            // The run happened, though it wrote nothing: the file says so, empty.
            Self.emptyIfPending(&state)
            if state.descriptor >= 0 { System.closeDescriptor(state.descriptor) }
            state.descriptor = -1
        }
    }

    /// Empties a file of before the first time this run writes to it (or closes it).
    private static func emptyIfPending(_ state: inout State) {
        guard state.emptyBeforeWriting, state.descriptor >= 0 else { return }
        state.emptyBeforeWriting = false
        _ = ftruncate(state.descriptor, 0)
    }

    /// Writes everything in `batch`, in the order the source received it (see ``SourceBatch``),
    /// and a `dropped` line when the drop count changed: the same lines headless output writes.
    ///
    /// - Parameters:
    ///   - batch: What a source delivered.
    ///   - hello: Who was watched; written first, and again whenever it changes (the source
    ///     reattached to another process).
    func record(_ batch: SourceBatch, hello: WatchedHello) {
        state.withLock { state in
            guard state.error == nil, state.descriptor >= 0 else { return }
            var writer = JSONLineWriter(reservingCapacity: 256 * (batch.records.count + 2))
            var lines = hello.write(before: batch, into: &writer)
            lines += state.lines.write(batch, into: &writer)
            append(writer.bytes, lines: lines, &state)
        }
    }

    /// Writes `bytes` as they are, counting them as `lines` lines: for a file of another
    /// format (a trace) opened and guarded as a recording is.
    package func write(bytes: [UInt8], lines: Int) {
        state.withLock { append(bytes, lines: lines, &$0) }
    }

    /// Writes all of `bytes`, or records why it could not and stops recording.
    ///
    /// A write that fails part way (a full disk, `ulimit -f`) is taken back: a regular file is
    /// cut to the size it had before, so that it ends with the last whole batch, every line
    /// whole, and a trace still opens as a killed run's does.
    private func append(_ bytes: [UInt8], lines: Int, _ state: inout State) {
        guard state.error == nil, state.descriptor >= 0, !bytes.isEmpty else { return }
        Self.emptyIfPending(&state)
        var info = stat()
        let sizeBefore =
            fstat(state.descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? info.st_size : nil
        if let code = bytes.withUnsafeBytes({ System.writeAll(state.descriptor, $0) }) {
            if let sizeBefore { _ = ftruncate(state.descriptor, sizeBefore) }
            let reason = code == 0 ? "nothing written" : UnixSocket.errorText(code)
            state.error = "\(what) to \(path) stopped: \(reason)"
            state.failureReason = reason
            System.closeDescriptor(state.descriptor)
            state.descriptor = -1
            return
        }
        state.recordsWritten += lines
    }
}
