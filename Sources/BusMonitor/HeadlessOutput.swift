internal import BusWire
internal import Dispatch
internal import EventBus
internal import Foundation

/// Writes a headless run's lines on a queue of its own, so that a reader that stops reading
/// cannot hold the run past its end.
///
/// A write to a pipe into a paused program, or to a terminal stopped with Ctrl-S, blocks for
/// as long as the reader likes. Made on the run's own thread, such a write held the run there:
/// a SIGTERM or the end of `--duration` was noted and never acted on, and busmon ran on until
/// the reader went away, then exited 0. Now the run waits for each write only while nothing
/// asks it to end; when something does and the write is still blocked a second later, the run
/// leaves it behind, counts what it gave up, and writes nothing more.
///
/// Written with `write(2)` (``System/writeAll(_:_:)``) rather than `FileHandle`, whose errors
/// are Foundation error dumps and which cannot tell a closed pipe from any other failure.
/// SIGPIPE must be ignored (busmon does), so that a closed pipe shows up as `EPIPE`.
final class HeadlessOutput: Sendable {
    /// What became of one ``write(_:givingUpWhen:)``.
    enum Result: Equatable {
        /// Every byte was written.
        case written
        /// The descriptor refused it, with this `errno` (0 when it took nothing without saying
        /// why), as ``System/writeAll(_:_:)`` reports it.
        case failed(Int32)
        /// Left blocked, or not tried since an earlier write was: these bytes may not have
        /// reached the reader.
        case abandoned
    }

    /// How long a write may stay blocked once the run has been asked to end.
    static let grace = 1.0

    /// Held, so that its descriptor stays open for the run.
    private let handle: FileHandle
    private let queue = DispatchQueue(label: "busmon headless output")
    /// Whether a write was left blocked; later writes are not tried, and count as given up.
    private let isStalled = LockedValue(false)
    /// Output given up on: lines and bytes.
    private let givenUp = LockedValue((lines: 0, bytes: 0))

    /// Writes to `handle`'s descriptor.
    init(_ handle: FileHandle) {
        self.handle = handle
    }

    /// Lines and bytes of output given up on so far, because their reader did not take them
    /// before the run ended.
    var unwritten: (lines: Int, bytes: Int) { givenUp.current }

    /// Writes all of `bytes`, waiting while `isEnding` says no. Once it says yes, waits
    /// ``grace`` seconds more, then leaves the write blocked and gives the bytes up.
    func write(_ bytes: [UInt8], givingUpWhen isEnding: () -> Bool) -> Result {
        guard !bytes.isEmpty else { return .written }
        guard !isStalled.current else { return giveUp(bytes) }
        let done = DispatchSemaphore(value: 0)
        let code = LockedValue<Int32?>(nil)
        let descriptor = handle.fileDescriptor
        queue.async {
            let result = bytes.withUnsafeBytes { System.writeAll(descriptor, $0) }
            code.withLock { $0 = result }
            done.signal()
        }
        var endingSince: Double?
        while done.wait(timeout: .now() + 0.1) == .timedOut {
            let now = MonotonicClock.now()
            if endingSince == nil, isEnding() { endingSince = now }
            if let endingSince, now - endingSince >= Self.grace {
                isStalled.withLock { $0 = true }
                return giveUp(bytes)
            }
        }
        return code.current.map { .failed($0) } ?? .written
    }

    private func giveUp(_ bytes: [UInt8]) -> Result {
        let lines = bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        givenUp.withLock {
            $0.lines += lines
            $0.bytes += bytes.count
        }
        return .abandoned
    }
}
