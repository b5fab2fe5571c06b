internal import Dispatch
internal import EventBus
internal import Foundation

extension SimulatedApp {
    /// The background thread's controls.
    final class Runner: Sendable {
        let stopRequested = LockedValue(false)
        let finished = DispatchSemaphore(value: 0)
    }

    /// Time between the background thread's ticks: each tick publishes what came due since
    /// the previous one, so high rates go out in batches and low ones as credit builds up.
    static let tickInterval = 0.01
    /// Behind by more than this, the background thread drops the backlog instead of bursting.
    static let maximumLag = 0.25

    /// Whether the app is running on its background thread.
    package var isRunning: Bool { runner.current != nil }

    /// Runs the app on a background thread at the configured rate and churn until ``stop()``.
    ///
    /// The thread wakes every 10 ms and publishes the events that came due, so a rate of
    /// 100,000 events per second goes out as batches of about 1,000, and a rate of 1 per second
    /// as one event every hundredth tick. When publishing cannot keep up, the backlog is
    /// dropped rather than published in a burst. The thread keeps the app alive until
    /// ``stop()``. Calling this while running does nothing.
    package func start() {
        let runner = Runner()
        let started = self.runner.withLock { current -> Bool in
            guard current == nil else { return false }
            current = runner
            return true
        }
        guard started else { return }
        let thread = Thread { [self] in
            run(until: runner)
            runner.finished.signal()
        }
        thread.name = "SimulatedApp"
        thread.start()
    }

    /// Stops the background thread and waits for it, at most a batch of actions away.
    ///
    /// Does nothing when the app is not running. Do not call it from a handler on the app's
    /// bus: the tick that called the handler could not finish.
    package func stop() {
        guard
            let runner = runner.withLock({ current -> Runner? in
                defer { current = nil }
                return current
            })
        else { return }
        runner.stopRequested.withLock { $0 = true }
        runner.finished.wait()
    }

    private func run(until runner: Runner) {
        var last = Self.monotonicSeconds()
        while !runner.stopRequested.current {
            let now = Self.monotonicSeconds()
            let elapsed = now - last
            last = now
            if elapsed > 0 {
                // A tick publishes for at most ``maximumLag`` and stops as soon as it is asked
                // to. A tick that took all that came due at a rate the thread cannot reach ran
                // for seconds (0.25 s of 10,000,000 events a second took 3.7 s), deaf to stop()
                // while the main thread, no longer serving main-actor deliveries, let them pile
                // up by 200 MB a second.
                let deadline = now + Self.maximumLag
                let cutShort = advance(by: min(elapsed, Self.maximumLag)) {
                    runner.stopRequested.current || Self.monotonicSeconds() >= deadline
                }
                if elapsed > Self.maximumLag || cutShort { forgiveBacklog(keeping: Self.tickInterval) }
            }
            let busy = Self.monotonicSeconds() - now
            if busy < Self.tickInterval {
                Thread.sleep(forTimeInterval: Self.tickInterval - busy)
            }
        }
    }

    private static func monotonicSeconds() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}
