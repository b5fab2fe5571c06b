internal import BusWire

/// Turns a byte stream of wire-format lines into records, as every reader of an app's stream
/// does (``AttachSource``, ``ListenSource``): a line longer than the wire's limit, or one that
/// cannot be read, is counted as malformed; a record of a kind this version does not know is
/// skipped, as the format promises, so that a newer tap still talks to an older busmon.
struct RecordStreamDecoder {
    private var lines = LineSplitter(limit: FeedRecord.maximumLineLength)

    /// Decodes the complete lines in `bytes` (with what came before them), handing each record
    /// over in order and counting what could not be read in `malformed`.
    mutating func decode(
        _ bytes: ArraySlice<UInt8>, malformed: inout MalformedLines, _ handle: (FeedRecord) -> Void
    ) {
        lines.append(bytes) { piece in
            switch piece {
            case .tooLong:
                malformed.add(reason: "a line longer than the limit of \(FeedRecord.maximumLineLength) bytes")
            case .line(let line):
                do throws(FeedDecodingError) {
                    handle(try FeedRecord.decode(line: line))
                } catch {
                    if case .unknownKind = error { return }
                    malformed.add(reason: error.description)
                }
            }
        }
    }

    /// Counts in `malformed` a line the stream began and never ended, for a connection that
    /// ended: the app went away in the middle of writing its last record.
    func finish(malformed: inout MalformedLines) {
        let bytes = lines.unfinishedBytes
        guard bytes > 0 else { return }
        malformed.add(reason: "the connection ended \(bytes) bytes into a line, which is lost")
    }
}

/// Lines of an app's stream that could not be read: how many, and why the first could not, so
/// that a notice says more than a count.
struct MalformedLines {
    private(set) var count = 0
    /// Why the first of them could not be read, such as `missing field "time" in an event`.
    private(set) var firstReason: String?

    mutating func add(reason: String) {
        count += 1
        if firstReason == nil { firstReason = reason }
    }

    /// Adds what `other` counted.
    mutating func add(_ other: MalformedLines) {
        count += other.count
        if firstReason == nil { firstReason = other.firstReason }
    }

    /// `skipped 1 malformed line (line is not valid UTF-8)`, `skipped 3 malformed lines (the
    /// first: ...)`.
    var notice: String {
        let lines = count == 1 ? "1 malformed line" : "\(count) malformed lines"
        guard let reason = firstReason else { return "skipped \(lines)" }
        // The reason may quote what the app sent: escaped, and a sentence's length at most.
        let shown = UntrustedText.escaped(String(reason.prefix(160)))
        return "skipped \(lines) (\(count == 1 ? "" : "the first: ")\(shown))"
    }
}

/// Malformed lines from one peer, said at most once every ``interval``: a stranger's flood of
/// junk makes skipped lines of every read, and a notice for each read was hundreds of lines a
/// second on stderr and in the log, each saying less than the one that sums them.
struct MalformedLineNotices {
    /// Seconds between two notices at least.
    static let interval = 1.0

    private var unsaid = MalformedLines()
    private var saidAt: Double?

    /// Counts `lines` towards the next notice.
    mutating func add(_ lines: MalformedLines) {
        unsaid.add(lines)
    }

    /// Counts one line that could not be read for `reason` towards the next notice.
    mutating func add(reason: String) {
        unsaid.add(reason: reason)
    }

    /// The lines to say now, on a monotonic clock: those not said yet, once the last notice is
    /// an interval old, or at once when `atOnce` (the peer is gone, or busmon ends); `nil` when
    /// there are none, or not yet.
    mutating func take(now: Double, atOnce: Bool = false) -> MalformedLines? {
        guard unsaid.count > 0 else { return nil }
        if !atOnce, let saidAt, now - saidAt < Self.interval { return nil }
        saidAt = now
        defer { unsaid = MalformedLines() }
        return unsaid
    }
}

/// Splits a byte stream into lines, refusing to hold more than `limit` bytes of one line.
struct LineSplitter {
    enum Piece {
        /// A complete line, without its `\n`.
        case line(ArraySlice<UInt8>)
        /// A line longer than the limit, skipped.
        case tooLong
    }

    let limit: Int
    private var partial: [UInt8] = []
    private var skippingLongLine = false

    init(limit: Int) {
        self.limit = limit
    }

    /// Bytes of a line begun and not ended yet (one past the limit, already counted, is not).
    var unfinishedBytes: Int { skippingLongLine ? 0 : partial.count }

    mutating func append(_ bytes: ArraySlice<UInt8>, _ handle: (Piece) -> Void) {
        var start = bytes.startIndex
        while let newline = Self.firstNewline(in: bytes, from: start) {
            if skippingLongLine {
                skippingLongLine = false
            } else if partial.isEmpty {
                if newline - start > limit + 1 {
                    handle(.tooLong)
                } else {
                    handle(.line(bytes[start..<newline]))
                }
            } else {
                partial.append(contentsOf: bytes[start..<newline])
                if partial.count > limit + 1 { handle(.tooLong) } else { handle(.line(partial[...])) }
                partial.removeAll(keepingCapacity: partial.capacity <= 1 << 16)
            }
            start = newline + 1
        }
        guard !skippingLongLine, start < bytes.endIndex else { return }
        partial.append(contentsOf: bytes[start...])
        if partial.count > limit + 1 {
            // Report it now and ignore the rest of the line, so memory stays bounded.
            handle(.tooLong)
            partial.removeAll()
            skippingLongLine = true
        }
    }

    /// The index of the first `\n` in `bytes` from `start` on.
    private static func firstNewline(in bytes: ArraySlice<UInt8>, from start: Int) -> Int? {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return nil }
            let skipped = start - bytes.startIndex
            return System.firstOffset(of: 0x0A, in: base + skipped, count: buffer.count - skipped)
                .map { start + $0 }
        }
    }
}
