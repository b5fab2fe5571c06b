package import BusWire

/// Why a recording could not be replayed or written, or a trace or graph written.
///
/// Descriptions name the file and, for a bad line, its number, like a compiler:
/// `recording.jsonl:17: missing field "typeName" in an event record`.
package enum RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadable(path: String, reason: String)
    /// The file could not be created or opened for writing; `what` it was to hold, such as a
    /// trace.
    case unwritable(path: String, reason: String, what: String = "recording")
    /// A line (1-based) is not a valid record.
    case malformedLine(path: String, line: Int, error: FeedDecodingError)
    /// The replay speed is negative or not a number.
    case invalidSpeed(Double)
    /// A `hello` line (1-based) names a wire format version this reader does not read.
    case unreadableVersion(path: String, line: Int, version: Int)

    /// A one-line account of the problem.
    package var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read recording \(path): \(reason)"
        case .unwritable(let path, let reason, let what):
            return "cannot write \(what) \(path): \(reason)"
        case .malformedLine(let path, let line, let error):
            return "\(path):\(line): \(error)"
        case .invalidSpeed(let speed):
            return "replay speed must be 0 (as fast as possible) or more, not \(speed)"
        case .unreadableVersion(let path, let line, let version):
            let problem =
                FeedRecord.unreadableVersionMessage(version, speaker: "recording")
                ?? "recording speaks wire version \(version)"
            return "\(path):\(line): \(problem)"
        }
    }
}
