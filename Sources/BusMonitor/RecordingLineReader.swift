import BusWire

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads a recording one line at a time, a chunk of the file at a time, so that memory stays
/// the same whatever the file's size: the chunk plus the longest line, which is cut off at
/// ``FeedRecord/maximumLineLength``.
///
/// Not thread-safe; ``ReplaySource`` uses it under its lock.
final class RecordingLineReader {
    /// One line of the file.
    struct Line {
        /// The line's number, from 1.
        var number: Int
        /// The line without its `\n`, or nil when it is longer than a record may be.
        var bytes: ArraySlice<UInt8>?
        /// Its length in bytes, without the `\n`.
        var length: Int
        /// Whether a `\n` ended it; only the last line of a file may lack one.
        var endsWithNewline: Bool
    }

    /// Bytes held at once: room for the longest line a record may have and a chunk more.
    static let bufferSize = 2 << 20

    let path: String
    private let descriptor: Int32
    /// Bytes from the file: `start..<end` is read but not yet returned.
    private var buffer = [UInt8](repeating: 0, count: RecordingLineReader.bufferSize)
    private var start = 0
    private var end = 0
    private var atEnd = false
    private var lineNumber = 0

    /// Opens `path`.
    ///
    /// - Throws: ``RecordingError/unreadable(path:reason:)`` when it cannot be opened.
    init(path: String) throws(RecordingError) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(path: path, reason: UnixSocket.errorText(errno)) }
    }

    deinit {
        close(descriptor)
    }

    /// The next line, or nil at the end of the file.
    ///
    /// - Throws: ``RecordingError/unreadable(path:reason:)`` when reading fails.
    func next() throws(RecordingError) -> Line? {
        var skipped = 0
        while true {
            if let newline = newlineIndex() {
                lineNumber += 1
                let length = skipped + newline - start
                let bytes = skipped > 0 ? nil : buffer[start..<newline]
                start = newline + 1
                return Line(number: lineNumber, bytes: bytes, length: length, endsWithNewline: true)
            }
            if atEnd {
                guard start < end || skipped > 0 else { return nil }
                lineNumber += 1
                let length = skipped + end - start
                let bytes = skipped > 0 ? nil : buffer[start..<end]
                start = end
                return Line(number: lineNumber, bytes: bytes, length: length, endsWithNewline: false)
            }
            if end - start > FeedRecord.maximumLineLength + 2 {
                // Too long to be a record: count the rest of the line rather than hold it.
                skipped += end - start
                start = end
            }
            try fill()
        }
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
        let (start, end) = (self.start, self.end)
        let result = buffer.withUnsafeMutableBufferPointer { bytes in
            let base = bytes.baseAddress!
            if start > 0 { memmove(base, base + start, end - start) }
            while true {
                let count = read(descriptor, base + (end - start), bytes.count - (end - start))
                if count >= 0 || errno != EINTR { return (count, errno) }
            }
        }
        self.end = end - start
        self.start = 0
        guard result.0 >= 0 else { throw .unreadable(path: path, reason: UnixSocket.errorText(result.1)) }
        if result.0 == 0 { atEnd = true }
        self.end += result.0
    }
}
