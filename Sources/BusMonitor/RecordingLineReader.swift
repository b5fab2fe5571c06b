internal import BusWire

#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Reads a recording one line at a time, a chunk of the file at a time, so that memory stays
/// the same whatever the file's size: the chunk plus the longest line a record may have
/// (``FeedRecord/maximumLineLength``). A file's line longer than that is read past to its
/// end and handed over without its bytes (``Line/overlongLength``), so that one damaged line
/// (or the zeros a crash can leave at a file's end) does not take the rest with it; in input
/// that is not a file likewise, up to ``longestLineSkippedInAStream``, past which it is an
/// error without reading on to its end (`/dev/zero` has none).
///
/// Input that cannot be read twice (a pipe, a FIFO, a terminal, `/dev/stdin`) is copied as it
/// is read into a temporary file of its own, unlinked at once, which ``reread()`` plays back:
/// the input is read once, and memory does not grow with it.
///
/// Not thread-safe; ``ReplaySource`` uses it under its lock.
final class RecordingLineReader {
    /// One line of the file.
    struct Line {
        /// The line's number, from 1.
        var number: Int
        /// The line without its `\n`.
        var bytes: ArraySlice<UInt8>
        /// Whether a `\n` ended it; only the last line of a file may lack one.
        var endsWithNewline: Bool
        /// Where the line starts in the file, in bytes: where ``RecordingLineReader/reread(from:)``
        /// starts to read it again.
        var position: Position
        /// The length of a line longer than a record may be, whose bytes were read past and
        /// not kept (``bytes`` is empty); `nil` for every other line.
        var overlongLength: Int?

        /// The line's record.
        ///
        /// - Throws: What ``FeedRecord/decode(line:)`` throws, and
        ///   ``FeedDecodingError/lineTooLong(length:limit:)`` for an overlong line.
        func record() throws(FeedDecodingError) -> FeedRecord {
            if let overlongLength {
                throw .lineTooLong(length: overlongLength, limit: FeedRecord.maximumLineLength)
            }
            return try FeedRecord.decode(line: bytes)
        }
    }

    /// A place in the file: the byte a line starts at, and that line's number.
    struct Position: Sendable, Equatable {
        /// Bytes before the line.
        var offset: Int
        /// The line's number, from 1.
        var line: Int

        /// The start of the file.
        static let start = Position(offset: 0, line: 1)
    }

    /// Bytes held at once: room for the longest line a record may have and a chunk more.
    static let bufferSize = 2 << 20

    let path: String
    private let descriptor: Int32
    /// The copy of input that cannot be read twice, or -1 for a regular file.
    private let spool: Int32
    /// Bytes copied to ``spool`` so far.
    private var spooled = 0
    /// Bytes of a pipe's input copied at most: a pipe that never ends (a FIFO a program keeps
    /// writing) would fill the temporary folder's disk.
    static let maximumSpoolBytes = 4 << 30
    /// Bytes from the file: `start..<end` is read but not yet returned.
    private var buffer = [UInt8](repeating: 0, count: RecordingLineReader.bufferSize)
    private var start = 0
    private var end = 0
    private var atEnd = false
    private var lineNumber = 0
    /// Where `buffer[0]` is in the file.
    private var bufferOffset = 0
    /// Where the next read starts, for a reader that reads at positions (``reread(from:)``'s):
    /// copies of one spool share its file offset, so each reads at a position of its own.
    /// `nil` for the first reader, which reads its input in order.
    private var readPosition: Int?
    /// Where the first reader found the input's end: a file still being written grows after
    /// that, and the readers made by ``reread(from:)`` stop there, so that playing reads the
    /// recording the first reader read, and no more. `nil` until then.
    private(set) var endOffset: Int?
    /// Where this reader stops, for a reader made by ``reread(from:)``.
    private var limit: Int?

    /// Opens `path`.
    ///
    /// - Throws: ``RecordingError/unreadable(path:reason:)`` when it cannot be opened.
    init(path: String) throws(RecordingError) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(path: path, reason: UnixSocket.errorText(errno)) }
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            spool = Self.makeSpool()
            guard spool >= 0 else {
                let reason = UnixSocket.errorText(errno)
                close(descriptor)
                throw .unreadable(
                    path: path, reason: "cannot make a temporary copy to replay from: \(reason)")
            }
        } else {
            spool = -1
        }
    }

    /// A reader of a descriptor it owns, from `position` up to `limit`, reading at positions.
    private init(path: String, descriptor: Int32, position: Position = .start, limit: Int?) {
        self.path = path
        self.descriptor = descriptor
        self.spool = -1
        self.limit = limit
        bufferOffset = position.offset
        lineNumber = position.line - 1
        readPosition = position.offset
    }

    deinit {
        close(descriptor)
        if spool >= 0 { close(spool) }
    }

    /// A reader of the same recording from its first line: the file opened again, or the copy
    /// of what this reader read from a pipe.
    ///
    /// - Throws: ``RecordingError/unreadable(path:reason:)`` when it cannot be opened.
    func reread(from position: Position = .start) throws(RecordingError) -> RecordingLineReader {
        // A copy of the spool shares its file offset with every other copy: each reader reads
        // at its own position (pread), so that a search does not move playback.
        let copy = spool >= 0 ? dup(spool) : open(path, O_RDONLY | O_CLOEXEC)
        guard copy >= 0 else { throw .unreadable(path: path, reason: UnixSocket.errorText(errno)) }
        return RecordingLineReader(path: path, descriptor: copy, position: position, limit: endOffset)
    }

    /// Bytes the file at ``path`` holds past where this reader found its end, when it grew
    /// since (it was still being written); `nil` when it did not, or for input that is not a
    /// file.
    func bytesAddedSinceRead() -> Int? {
        guard spool < 0, let endOffset else { return nil }
        var info = stat()
        guard stat(path, &info) == 0, Int(info.st_size) > endOffset else { return nil }
        return Int(info.st_size) - endOffset
    }

    /// An unlinked temporary file, read and written, in `$TMPDIR` or `/tmp`; -1 with `errno`.
    private static func makeSpool() -> Int32 {
        let folder = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((folder + "/busmon-replay-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return -1 }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return descriptor
    }

    /// The next line, or nil at the end of the file.
    ///
    /// - Throws: ``RecordingError/unreadable(path:reason:)`` when reading fails, and, in input
    ///   that is not a file, ``RecordingError/malformedLine(path:line:error:)`` as soon as a
    ///   line is longer than a record may be.
    func next() throws(RecordingError) -> Line? {
        while true {
            if let newline = newlineIndex() { return takeLine(upTo: newline, endsWithNewline: true) }
            if atEnd { return start < end ? takeLine(upTo: end, endsWithNewline: false) : nil }
            if end - start > FeedRecord.maximumLineLength {
                // Read past, and said by whoever decodes it; in input that is not a file, only
                // so far, since it may never end (`/dev/zero`).
                return try skipOverlongLine(atMost: spool < 0 ? nil : Self.longestLineSkippedInAStream)
            }
            try fill()
        }
    }

    /// The longest line read past in input that is not a file, whose end may never come: past
    /// it, the input is not a recording.
    static let longestLineSkippedInAStream = 64 << 20

    /// Reads past the line at `start`, longer than a record may be, to its end, holding no more
    /// than a buffer of it, and returns it without its bytes.
    ///
    /// - Parameter limit: The most bytes to read past, or `nil` for no limit.
    /// - Throws: ``RecordingError/malformedLine(path:line:error:)`` once the line is longer than
    ///   `limit`, and what reading throws.
    private func skipOverlongLine(atMost limit: Int?) throws(RecordingError) -> Line {
        let position = Position(offset: bufferOffset + start, line: lineNumber + 1)
        var length = 0
        var endsWithNewline = false
        while true {
            if let newline = newlineIndex() {
                length += newline - start
                start = newline + 1
                endsWithNewline = true
                break
            }
            length += end - start
            start = end
            if atEnd { break }
            if let limit, length > limit {
                throw .malformedLine(
                    path: path, line: lineNumber + 1,
                    error: .lineTooLong(length: length, limit: FeedRecord.maximumLineLength))
            }
            try fill()
        }
        lineNumber += 1
        return Line(
            number: lineNumber, bytes: [], endsWithNewline: endsWithNewline, position: position,
            overlongLength: length)
    }

    /// Returns the bytes from `start` to `lineEnd` as the next line, and moves past it.
    private func takeLine(upTo lineEnd: Int, endsWithNewline: Bool) -> Line {
        lineNumber += 1
        let line = Line(
            number: lineNumber, bytes: buffer[start..<lineEnd], endsWithNewline: endsWithNewline,
            position: Position(offset: bufferOffset + start, line: lineNumber))
        start = endsWithNewline ? lineEnd + 1 : lineEnd
        return line
    }

    private func newlineIndex() -> Int? {
        guard start < end else { return nil }
        return buffer.withUnsafeBufferPointer { bytes in
            guard let found = memchr(bytes.baseAddress! + start, 0x0A, end - start) else { return nil }
            return UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - bytes.baseAddress!
        }
    }

    /// Moves the unreturned bytes to the front and reads more of the file after them.
    private func fill() throws(RecordingError) {
        let (start, end, position) = (self.start, self.end, readPosition)
        // A reader made to read again stops where the first one found the end.
        let left = limit.map { limit in max(0, limit - (position ?? 0)) } ?? Int.max
        let result = buffer.withUnsafeMutableBufferPointer { bytes in
            let base = bytes.baseAddress!
            if start > 0 { memmove(base, base + start, end - start) }
            while true {
                let room = min(bytes.count - (end - start), left)
                if room == 0 { return (0, Int32(0)) }
                let count =
                    position.map { pread(descriptor, base + (end - start), room, off_t($0)) }
                    ?? read(descriptor, base + (end - start), room)
                if count >= 0 || errno != EINTR { return (count, errno) }
            }
        }
        if result.0 > 0 { readPosition? += result.0 }
        self.end = end - start
        self.start = 0
        bufferOffset += start
        guard result.0 >= 0 else { throw .unreadable(path: path, reason: UnixSocket.errorText(result.1)) }
        if result.0 == 0 {
            atEnd = true
            if readPosition == nil, endOffset == nil { endOffset = bufferOffset + self.end }
        }
        if spool >= 0, result.0 > 0 {
            spooled += result.0
            guard spooled <= Self.maximumSpoolBytes else {
                throw .unreadable(
                    path: path,
                    reason:
                        "input that is not a file is copied to replay it, up to \(Self.maximumSpoolBytes >> 30) GiB, "
                        + "and this one goes on past that: save it to a file and replay the file")
            }
            let failure = buffer.withUnsafeBytes { bytes in
                System.writeAll(
                    spool, UnsafeRawBufferPointer(rebasing: bytes[self.end..<(self.end + result.0)]))
            }
            if let failure {
                throw .unreadable(
                    path: path,
                    reason: "cannot keep a temporary copy to replay from: \(UnixSocket.errorText(failure))")
            }
        }
        self.end += result.0
    }
}
