import Dispatch
import Synchronization

/// The clock that times handler calls while something watches a bus: the system clock while
/// calls are few, and a reading that a timer refreshes every millisecond while they are many, so
/// that timing a call costs one load instead of a clock call.
///
/// A clock call was the price of timing: 23-34 ns on a virtual x86_64 machine (the kernel's
/// coarse clock no cheaper than the precise one there), more than a handler call itself, for
/// every call of every handler while busmon watched. A load of a word that one thread writes a
/// thousand times a second costs about a nanosecond. The timer's thousand wake-ups a second
/// cost about what 100,000 clock calls do, so it runs only above that many readings a second:
/// it starts once the system clock has been read 1,000 times within 10 ms, and stops when fewer
/// than half the ticks of a tenth of a second found the clock read. An app that publishes a few
/// hundred events a second, or nothing, is never woken by it.
///
/// ## Precision
/// While the timer is stopped, every reading is the system clock's. While it runs, calls are
/// timed in laps (``Laps``): a call during which the reading did not move measures 0; the call
/// that sees it move reads the system clock once and measures everything since the previous
/// lap. A handler's total over many calls comes out right (a call sees a tick with the odds of
/// its share of the time), and no call measures shorter than it took, so a slow call is reported
/// whenever the timer ticked during it: always, unless every core was busy and the timer could
/// not run for the whole call. A short call that sees a tick measures up to about a tick (a
/// millisecond) more than it took, which the slow-handler threshold (16 ms by default) is far
/// above. The system clock is then read at most once a tick per publishing thread.
@usableFromInline
package final class HandlerClock: @unchecked Sendable {
    /// The one clock every bus of the process times handlers with.
    @usableFromInline
    package static let shared = HandlerClock()

    /// Nanoseconds between two refreshes of the reading.
    package let tickNanoseconds: Int
    /// Ticks over which the timer judges whether it still pays for itself.
    package let ticksPerVerdict: Int
    /// Readings of the system clock within ``startWindowNanoseconds`` that start the timer.
    package let readingsToStart: Int
    /// See ``readingsToStart``.
    package let startWindowNanoseconds: Int

    /// The newest reading, in nanoseconds of the system's monotonic clock, its lowest bit clear
    /// (a reading of the system clock has it set); 0 while the timer is stopped.
    @usableFromInline let reading = Atomic<Int>(0)
    /// Whether anything read the clock since the last tick. Read first and written only when
    /// false, so that a busy publisher writes it once a tick, not once a call.
    @usableFromInline let wasRead = Atomic<Bool>(false)
    /// Whether the timer is stopped, and readings come from the system clock.
    private let isStopped = Atomic<Bool>(true)
    private let timer: any DispatchSourceTimer
    /// Ticks so far in the current verdict, and those of them that found the clock read; touched
    /// by the timer's handler only.
    private let ticks = Atomic<Int>(0)
    private let ticksRead = Atomic<Int>(0)
    /// Readings of the system clock counted towards starting the timer, and when the count
    /// began. Loaded and stored, not incremented: a count that two threads race on comes out a
    /// little low, which only starts the timer a little later.
    private let systemReadings = Atomic<Int>(0)
    private let systemReadingsSince = Atomic<Int>(0)

    /// A clock whose timer has not started.
    ///
    /// ``shared`` ticks every millisecond once the system clock has been read a thousand times
    /// within 10 ms (100,000 readings a second, where the timer's thousand wake-ups a second
    /// cost less than the readings it saves), and stops when fewer than half the ticks of a
    /// tenth of a second found the clock read.
    package init(
        tickNanoseconds: Int = 1_000_000, ticksPerVerdict: Int = 100, readingsToStart: Int = 1_000,
        startWindowNanoseconds: Int = 10_000_000
    ) {
        self.tickNanoseconds = tickNanoseconds
        self.ticksPerVerdict = max(2, ticksPerVerdict)
        self.readingsToStart = max(1, readingsToStart)
        self.startWindowNanoseconds = startWindowNanoseconds
        timer = DispatchSource.makeTimerSource(
            flags: .strict, queue: DispatchQueue(label: "EventBus.HandlerClock", qos: .userInitiated))
        timer.schedule(deadline: .now(), repeating: .nanoseconds(tickNanoseconds), leeway: .nanoseconds(0))
        timer.setEventHandler { [weak self] in self?.tick() }
        // Created suspended; busy reading resumes it.
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
    /// While the timer starts, readings come from the system clock, and the timer's first may
    /// be a little older than the last of them (it read the clock before they did): readings
    /// may step back by less than a tick then. ``Laps`` never measures a negative time.
    @inlinable @inline(__always)
    package func now() -> Int {
        let value = reading.load(ordering: .relaxed)
        if value == 0 { return readSystemClock() }
        if !wasRead.load(ordering: .relaxed) { wasRead.store(true, ordering: .relaxed) }
        return value
    }

    /// ``shared``'s ``now()``, for code in other modules: reading `shared` there retains and
    /// releases it around the call, and the clock has a side table (its timer holds it weakly),
    /// where a retain and a release cost more than the reading.
    @inlinable @inline(__always)
    package static func sharedNow() -> Int {
        Unmanaged.passUnretained(shared)._withUnsafeGuaranteedRef { $0.now() }
    }

    /// A reading that follows ``now()`` closely (the end of a call whose start it timed): one
    /// load while the timer runs, the first reading keeping it running.
    @inline(__always)
    func nowAgain() -> Int {
        let value = reading.load(ordering: .relaxed)
        return value != 0 ? value : readSystemClock()
    }

    /// Whether `value` came from the system clock rather than the timer.
    @inline(__always)
    static func isSystemReading(_ value: Int) -> Bool { value & 1 != 0 }

    /// A reading while the timer is stopped: the system clock's, its lowest bit set. Counts it,
    /// and starts the timer once readings come fast enough for it to pay.
    @usableFromInline @inline(never)
    func readSystemClock() -> Int {
        let value = System.monotonicNanoseconds() | 1
        let count = systemReadings.load(ordering: .relaxed) &+ 1
        guard count >= readingsToStart else {
            systemReadings.store(count, ordering: .relaxed)
            return value
        }
        systemReadings.store(0, ordering: .relaxed)
        let since = systemReadingsSince.load(ordering: .relaxed)
        systemReadingsSince.store(value, ordering: .relaxed)
        guard value - since < startWindowNanoseconds else { return value }
        // Only the reading that finds it stopped starts it: a dispatch source resumed more
        // often than it was suspended is a fatal error.
        if isStopped.compareExchange(expected: true, desired: false, ordering: .acquiringAndReleasing)
            .exchanged
        {
            ticks.store(0, ordering: .relaxed)
            ticksRead.store(0, ordering: .relaxed)
            wasRead.store(true, ordering: .relaxed)
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
            let now = HandlerClock.isSystemReading(reading) ? reading : System.monotonicNanoseconds()
            let end = max(lapEnd, now)
            defer { lapEnd = end }
            return end - lapEnd
        }
    }

    /// Refreshes the reading; stops the timer when fewer than half the ticks of a verdict
    /// found the clock read, and readings are too sparse for the timer to pay.
    private func tick() {
        reading.store(System.monotonicNanoseconds() & ~1, ordering: .relaxed)
        if wasRead.exchange(false, ordering: .relaxed) {
            ticksRead.store(ticksRead.load(ordering: .relaxed) + 1, ordering: .relaxed)
        }
        let count = ticks.load(ordering: .relaxed) + 1
        guard count >= ticksPerVerdict else {
            ticks.store(count, ordering: .relaxed)
            return
        }
        let read = ticksRead.load(ordering: .relaxed)
        ticks.store(0, ordering: .relaxed)
        ticksRead.store(0, ordering: .relaxed)
        guard read * 2 < count else { return }
        // Suspended before it says so, so that a reading's resume always follows this suspend.
        timer.suspend()
        systemReadings.store(0, ordering: .relaxed)
        isStopped.store(true, ordering: .releasing)
        // Last: a reading that sees 0 reads the system clock from now on.
        reading.store(0, ordering: .releasing)
    }
}
