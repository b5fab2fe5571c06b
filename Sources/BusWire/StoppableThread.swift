import Dispatch
import EventBus
import Foundation

/// A background thread that runs one loop until asked to stop, with the pipe that wakes it
/// from `poll` when it is: what the tap, the attach source and the listen source each run.
///
/// Stopping is safe from any thread and from several at once: the first caller wakes the loop,
/// and every caller waits until it has ended. The pipe is closed when the value goes away,
/// which is after the thread has ended, since the thread's body holds its owner.
package final class StoppableThread: Sendable {
    /// The wake pipe's read end, to poll beside the loop's own descriptors; -1 when no pipe
    /// could be made (the process ran out of descriptors), which `poll` ignores.
    package let wakeDescriptor: Int32
    private let wakeWriteDescriptor: Int32
    private let stopRequested = LockedValue(false)
    private let stopped = DispatchSemaphore(value: 0)

    /// Makes the pipe; the thread starts with ``start(name:_:)``.
    package init() {
        let pipe = System.makeWakePipe()
        wakeDescriptor = pipe?.read ?? -1
        wakeWriteDescriptor = pipe?.write ?? -1
    }

    deinit {
        if wakeDescriptor >= 0 {
            System.closeDescriptor(wakeDescriptor)
            System.closeDescriptor(wakeWriteDescriptor)
        }
    }

    /// Whether ``stop()`` can wake the loop from a `poll` without a timeout.
    package var canWake: Bool { wakeDescriptor >= 0 }

    /// Whether the loop has been asked to stop.
    package var isStopRequested: Bool { stopRequested.current }

    /// Starts the thread, which runs `body` once; `body` returns when ``isStopRequested``.
    package func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            body()
            stopped.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Asks the loop to stop, wakes it, and waits until it has ended.
    package func stop() {
        let first = stopRequested.withLock { requested in
            defer { requested = true }
            return !requested
        }
        if first, wakeDescriptor >= 0 { System.signalWakePipe(wakeWriteDescriptor) }
        // Every caller waits for the thread to end, and passes the signal on to the next.
        stopped.wait()
        stopped.signal()
    }

    /// Sleeps up to `seconds` on the thread, waking early when asked to stop.
    package func sleep(seconds: Double) {
        guard !isStopRequested else { return }
        guard canWake else {
            // No pipe (the process ran out of descriptors): sleep plainly rather than spin.
            usleep(useconds_t(seconds * 1_000_000))
            return
        }
        System.waitForInput(on: wakeDescriptor, seconds: seconds)
    }

    /// Empties the wake pipe after `poll` reported it readable.
    package func clearWakeups() {
        if wakeDescriptor >= 0 { System.drainWakePipe(wakeDescriptor) }
    }
}
