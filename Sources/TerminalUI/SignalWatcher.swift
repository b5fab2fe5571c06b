import Dispatch
import Synchronization

#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// The write end of the signal pipe, read by the signal handler.
///
/// A C signal handler cannot capture context, so it reaches the pipe through a global. It is set
/// before any handler is installed and reset only after they are removed, and the handler only
/// reads it, so no two threads ever write it concurrently.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// The write end of the last resort's pipe (see ``SignalWatcher``), written with the other.
nonisolated(unsafe) private var lastResortPipeWriteEnd: Int32 = -1

/// Set by the handler after it wrote to the pipe, so that the loop reads the pipe only when a
/// signal came, not with a system call every time it wakes. A lock-free atomic store is
/// async-signal-safe; the global is touched before any handler is installed, so the handler
/// never runs its lazy initialization.
private let signalArrived = Atomic<Bool>(false)

/// Writes the signal's number into the pipe. `write` is async-signal-safe; nothing else is done
/// here, because the terminal must be restored on the UI thread, not inside a handler.
private let forwardSignalToPipe: @convention(c) (Int32) -> Void = { signal in
    let savedErrno = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(signalPipeWriteEnd, &byte, 1)
    _ = write(lastResortPipeWriteEnd, &byte, 1)
    signalArrived.store(true, ordering: .releasing)
    errno = savedErrno
}

/// Catches termination signals and lets the UI loop see them, so it can restore the terminal
/// and exit on its own thread (the self-pipe pattern).
///
/// Create it before curses starts: curses installs its own SIGINT/SIGTERM handlers only where
/// the handler is still the default, so this one keeps control. SIGWINCH is deliberately left to
/// curses, which turns it into `KEY_RESIZE`.
///
/// ```swift
/// let signals = try SignalWatcher(signals: [SIGINT, SIGTERM])
/// while running {
///     if let signal = signals.pendingSignal() { /* restore the terminal, exit 128 + signal */ }
/// }
/// ```
///
/// The loop's way out writes to the terminal, and a terminal that stopped taking output (an
/// emulator that froze, an ssh link that stalled) holds that write for as long as it likes. So
/// ``lastResortSeconds`` after the first signal, if the watcher was not restored meanwhile, the
/// process ends with 128 + the signal from a dispatch queue, leaving the terminal as it is.
package final class SignalWatcher {
    /// Seconds after the first signal at which the process ends, if the loop has not.
    package static let lastResortSeconds = 10.0

    private let readEnd: Int32
    private let writeEnd: Int32
    private let lastResortReadEnd: Int32
    private let lastResortWriteEnd: Int32
    private let lastResort: any DispatchSourceRead
    /// Set by ``restore()``: the last resort, if already on its way, does nothing.
    private let restored = RestoredFlag()

    /// Whether the watcher was restored, for the last resort's dispatch blocks.
    private final class RestoredFlag: Sendable {
        let isSet = Atomic<Bool>(false)
    }
    private var previousActions: [(signal: Int32, action: sigaction)] = []
    private var firstSignal: Int32?

    /// Installs handlers for `signals`. Only one watcher may be active at a time.
    ///
    /// - Parameter signals: Signal numbers, such as `SIGINT` and `SIGTERM`.
    /// - Throws: ``TerminalError/signalSetupFailed(errno:)`` when the pipe cannot be made.
    package init(signals: [Int32]) throws(TerminalError) {
        precondition(signalPipeWriteEnd == -1, "only one SignalWatcher may be active at a time")
        var ends: [Int32] = [-1, -1, -1, -1]
        guard pipe(&ends) == 0 else { throw .signalSetupFailed(errno: errno) }
        guard ends.withUnsafeMutableBufferPointer({ pipe($0.baseAddress! + 2) }) == 0 else {
            let code = errno
            close(ends[0])
            close(ends[1])
            throw .signalSetupFailed(errno: code)
        }
        for end in ends {
            // Non-blocking, so neither the handler nor the loop can ever hang on the pipe.
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
        lastResortReadEnd = ends[2]
        lastResortWriteEnd = ends[3]
        lastResort = DispatchSource.makeReadSource(fileDescriptor: ends[2], queue: .global())
        lastResort.setEventHandler { [lastResortReadEnd = ends[2], restored] in
            var byte: UInt8 = 0
            guard read(lastResortReadEnd, &byte, 1) == 1 else { return }
            let status = 128 + Int32(byte)
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.lastResortSeconds) {
                if !restored.isSet.load(ordering: .acquiring) { _exit(status) }
            }
        }
        lastResort.resume()
        signalArrived.store(false, ordering: .relaxed)
        signalPipeWriteEnd = writeEnd
        lastResortPipeWriteEnd = lastResortWriteEnd
        for signal in signals {
            // Restart interrupted writes to the terminal; the loop polls the pipe every frame.
            var action = System.signalAction(handler: forwardSignalToPipe, flags: SA_RESTART)
            var previous = sigaction()
            if sigaction(signal, &action, &previous) == 0 {
                previousActions.append((signal, previous))
            }
        }
        // A parent may have started us with these signals blocked, and a blocked signal would
        // never reach the handler: Ctrl-C would do nothing. Unblock them on this thread, which
        // threads started later inherit.
        var watched = sigset_t()
        sigemptyset(&watched)
        for signal in signals { sigaddset(&watched, signal) }
        pthread_sigmask(SIG_UNBLOCK, &watched, nil)
    }

    deinit {
        restore()
    }

    /// The first signal that arrived so far, or `nil`. Never blocks.
    package func pendingSignal() -> Int32? {
        guard signalArrived.exchange(false, ordering: .acquiring) else { return firstSignal }
        var byte: UInt8 = 0
        while read(readEnd, &byte, 1) > 0 {
            if firstSignal == nil { firstSignal = Int32(byte) }
        }
        return firstSignal
    }

    /// Puts back the handlers that were installed before and closes the pipe. Safe to call twice.
    package func restore() {
        guard signalPipeWriteEnd == writeEnd else { return }
        restored.isSet.store(true, ordering: .releasing)
        for (signal, action) in previousActions.reversed() {
            var previous = action
            sigaction(signal, &previous, nil)
        }
        previousActions.removeAll()
        signalPipeWriteEnd = -1
        lastResortPipeWriteEnd = -1
        close(readEnd)
        close(writeEnd)
        // Its descriptor is closed once the source is cancelled, not before: the source may
        // be reading it.
        lastResort.setCancelHandler { [lastResortReadEnd] in close(lastResortReadEnd) }
        lastResort.cancel()
        close(lastResortWriteEnd)
    }
}
