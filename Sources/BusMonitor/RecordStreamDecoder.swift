internal import BusWire

/// Turns a byte stream of wire-format lines into records, as every reader of an app's stream
/// does (``AttachSource``, ``ListenSource``): a line longer than the wire's limit, or one that
/// cannot be read, is counted as malformed; a record of a kind this version does not know is
/// skipped, as the format promises, so that a newer tap still talks to an older busmon.
struct RecordStreamDecoder {
    private var lines = LineSplitter(limit: FeedRecord.maximumLineLength)

    /// Decodes the complete lines in `bytes` (with what came before them), handing each record
    /// over in order and counting what could not be read in `malformed`.
    mutating func decode(_ bytes: ArraySlice<UInt8>, malformed: inout Int, _ handle: (FeedRecord) -> Void) {
        lines.append(bytes) { piece in
            switch piece {
            case .tooLong:
                malformed += 1
            case .line(let line):
                do throws(FeedDecodingError) {
                    handle(try FeedRecord.decode(line: line))
                } catch {
                    if case .unknownKind = error { return }
                    malformed += 1
                }
            }
        }
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
