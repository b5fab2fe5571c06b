internal import Dispatch
internal import EventBus
internal import Foundation

/// Runs busmon's own loop on a thread of its own while the main thread runs the main run loop,
/// as an app's main thread does, for a session whose app lives in this process.
///
/// The simulated app's main-actor handlers wait for the main thread. When busmon's loop was
/// the main thread and ran that work between frames, or between drains, each delivery waited
/// for the next one: 20 ms on average, and half of them were reported as slow deliveries that
/// no app of its own would have. Served by the run loop, which wakes as soon as main-queue work
/// arrives, they wait only behind the app's own main-actor work, as they would in an app.
enum MainRunLoop {
    /// Signals whose handler must run on the thread that draws: curses' for SIGTSTP (Ctrl-Z)
    /// ends the screen and draws it again after `fg`, which on any other thread would race the
    /// frame being drawn. (Curses' SIGWINCH handler and busmon's for the ending signals only
    /// set a flag or write a byte, and may run anywhere.)
    static let drawingThreadSignals = [SIGTSTP]

    /// Blocks ``drawingThreadSignals`` in the main thread before the app in this process starts
    /// its threads, so that they and the threads dispatch starts are born with them blocked;
    /// ``serve(whileRunning:_:)`` unblocks them in the loop's thread alone.
    static func keepDrawingThreadSignals() {
        System.setSignals(drawingThreadSignals, blocked: true)
    }

    /// Runs `loop` on a new thread named `name` and serves the main run loop until it returns.
    ///
    /// Nothing the loop touches is touched by the main thread meanwhile: the main thread runs
    /// only what was scheduled on the main queue, which is the app's, not busmon's. So `loop`
    /// need not be `Sendable`; it moves to the new thread and its result moves back.
    static func serve<Result>(whileRunning name: String, _ loop: @escaping () -> Result) -> Result {
        // Off the main thread the main run loop returns at once, and this would spin.
        precondition(Thread.isMainThread, "MainRunLoop.serve runs on the main thread")
        let handOver = HandOver(loop)
        let thread = Thread {
            System.setSignals(drawingThreadSignals, blocked: false)
            let result = handOver.loop()
            handOver.result.withLock { $0 = result }
            DispatchQueue.main.async {}  // wakes the run loop below
        }
        thread.name = name
        // As much stack as the main thread has: the loop ran there until now.
        thread.stackSize = 8 << 20
        thread.start()
        // Each turn returns once main-queue work ran, the loop's last wake-up included, which
        // stays queued until it runs: no wake-up is lost between the look and the sleep. With
        // no time limit, for a limit costs a timer set up and torn down each turn (with one,
        // simapp spent two thirds more CPU at 200 events a second).
        while true {
            if let result = handOver.result.withLock({ $0 }) { return result }
            _ = RunLoop.main.run(mode: .default, before: .distantFuture)
        }
    }

    /// The loop on its way to its thread, and its result on the way back.
    ///
    /// Unchecked: the loop runs on one thread only, and its result is read after it is
    /// written, under a lock.
    private final class HandOver<Result>: @unchecked Sendable {
        let loop: () -> Result
        let result = LockedValue<Result?>(nil)

        init(_ loop: @escaping () -> Result) {
            self.loop = loop
        }
    }
}
