import Dispatch
import Synchronization

/// The clock that times handler calls while something watches a bus: a reading that a timer
/// refreshes every millisecond, so that timing a call costs one load instead of a clock call.
///
/// A clock call was the price of timing: 23-34 ns on a virtual x86_64 machine (the kernel's
/// coarse clock no cheaper than the precise one there), more than a handler call itself, for
/// every call of every handler while busmon watched. A load of a word that one thread writes a
/// thousand times a second costs about a nanosecond.
///
/// ## Precision
/// Calls are timed in laps (``Laps``): a call during which the reading did not move measures 0;
/// the call that sees it move reads the system clock once and measures everything since the
/// previous lap. A handler's total over many calls comes out right (a call sees a tick with
/// the odds of its share of the time), and no call measures shorter than it took, so a slow
/// call is reported whenever the timer ticked during it: always, unless every core was busy
/// and the timer could not run for the whole call. A short call that sees a tick measures up
/// to about a tick (a millisecond) more than it took, which the slow-handler threshold
/// (16 ms by default) is far above. The system clock is read at most once a tick per
/// publishing thread.
///
/// ## Cost when nothing is timed
/// The timer starts at the first reading and stops after a second in which nothing read the
/// clock, so an app that nobody watches, or that publishes nothing, is not woken. Until the
/// timer has ticked again, readings come from the system clock.
package final class HandlerClock: @unchecked Sendable {
    /// The one clock every bus of the process times handlers with.
    package static let shared = HandlerClock()

    /// Nanoseconds between two refreshes of the reading.
    package let tickNanoseconds: Int
    /// Ticks in a row without a reading after which the timer stops.
    package let idleTicksBeforeStopping: Int

    /// The newest reading, in nanoseconds of the system's monotonic clock; 0 while the timer is
    /// stopped.
    private let reading = Atomic<Int>(0)
    /// Whether anything read the clock since the last tick. Read first and written only when
    /// false, so that a busy publisher writes it once a tick, not once a call.
    private let wasRead = Atomic<Bool>(false)
    /// Whether the timer is stopped, and a reading must start it again.
    private let isStopped = Atomic<Bool>(true)
    private let timer: any DispatchSourceTimer
    /// Ticks in a row that found the clock unread; touched by the timer's handler only.
    private let idleTicks = Atomic<Int>(0)

    /// A clock whose timer has not started yet; ``shared`` ticks every millisecond and stops
    /// after a second unread.
    package init(tickNanoseconds: Int = 1_000_000, idleTicksBeforeStopping: Int = 1_000) {
        self.tickNanoseconds = tickNanoseconds
        self.idleTicksBeforeStopping = idleTicksBeforeStopping
        timer = DispatchSource.makeTimerSource(
            flags: .strict, queue: DispatchQueue(label: "EventBus.HandlerClock", qos: .userInitiated))
        timer.schedule(deadline: .now(), repeating: .nanoseconds(tickNanoseconds), leeway: .nanoseconds(0))
        timer.setEventHandler { [weak self] in self?.tick() }
        // Created suspended; the first reading resumes it.
    }

    deinit {
        // Dispatch refuses to release a suspended source.
        if isStopped.load(ordering: .acquiring) { timer.resume() }
        timer.cancel()
    }

    /// Whether the timer runs now, refreshing the reading.
    package var isTicking: Bool { !isStopped.load(ordering: .acquiring) }

    /// Nanoseconds on a monotonic clock, for the difference between two readings; the first of
    /// a series, which keeps the timer running.
    ///
    /// While the timer restarts, readings come from the system clock, and the timer's first may
    /// be a little older than the last of them (it read the clock before they did): readings
    /// may step back by less than a tick then. ``Laps`` never measures a negative time.
    @inline(__always)
    package func now() -> Int {
        let value = reading.load(ordering: .relaxed)
        if value == 0 { return readStopped() }
        if !wasRead.load(ordering: .relaxed) { wasRead.store(true, ordering: .relaxed) }
        return value
    }

    /// A reading that follows ``now()`` closely (the end of a call whose start it timed): one
    /// load, the timer kept running by that first reading. While the timer is stopped, the
    /// system clock's.
    @inline(__always)
    func nowAgain() -> Int {
        let value = reading.load(ordering: .relaxed)
        return value != 0 ? value : readStopped()
    }

    /// A reading while the timer is stopped: the system clock's, and the timer started again.
    @inline(never)
    private func readStopped() -> Int {
        let value = System.monotonicNanoseconds()
        wasRead.store(true, ordering: .relaxed)
        // Only the reading that finds it stopped starts it: a dispatch source resumed more
        // often than it was suspended is a fatal error.
        if reading.load(ordering: .acquiring) == 0,
            isStopped.compareExchange(expected: true, desired: false, ordering: .acquiringAndReleasing)
                .exchanged
        {
            timer.resume()
        }
        return value
    }

    /// Times calls made one after another, each call's end the next one's start.
    struct Laps {
        /// The reading when the last lap ended.
        private var lastReading: Int
        /// When the last lap ended: a reading, or the system clock's time.
        private var lapEnd: Int

        /// Starts timing now.
        @inline(__always)
        init(_ clock: HandlerClock) {
            lastReading = clock.now()
            lapEnd = lastReading
        }

        /// Nanoseconds since the previous lap ended, or 0 if the reading did not move since.
        @inline(__always)
        mutating func lap(_ clock: HandlerClock) -> Int {
            let reading = clock.nowAgain()
            guard reading != lastReading else { return 0 }
            return endLap(at: reading)
        }

        /// Ends a lap during which the reading moved, at the system clock's time: the reading
        /// may lag it, and the lap must not seem shorter than it was.
        @inline(never)
        private mutating func endLap(at reading: Int) -> Int {
            lastReading = reading
            let end = max(lapEnd, System.monotonicNanoseconds())
            defer { lapEnd = end }
            return end - lapEnd
        }
    }

    /// Refreshes the reading; stops the timer after a second in which nothing read it.
    private func tick() {
        reading.store(System.monotonicNanoseconds(), ordering: .relaxed)
        if wasRead.exchange(false, ordering: .relaxed) {
            idleTicks.store(0, ordering: .relaxed)
            return
        }
        let idle = idleTicks.wrappingAdd(1, ordering: .relaxed).newValue
        guard idle >= idleTicksBeforeStopping else { return }
        idleTicks.store(0, ordering: .relaxed)
        // Suspended before it says so, so that a reading's resume always follows this suspend.
        timer.suspend()
        isStopped.store(true, ordering: .releasing)
        // Last: a reading that sees 0 sees the timer stopped.
        reading.store(0, ordering: .releasing)
    }
}
