import Dispatch
import EventBus
import Foundation
import TestSupport
import Testing

@Suite("Handler clock")
struct HandlerClockTests {
    @Test("sparse readings come from the system clock and never start the timer")
    func sparseReadingsDoNotStartTheTimer() {
        let clock = HandlerClock(readingsToStart: 100, startWindowNanoseconds: 10_000_000)
        var previous = clock.now()
        // 300 readings at least 0.2 ms apart: under 100 within 10 ms.
        for _ in 0..<300 {
            usleep(200)
            let reading = clock.now()
            #expect(reading > previous)
            previous = reading
        }
        #expect(!clock.isTicking)
    }

    @Test("busy reading starts the timer, which stops once the readings thin out")
    func theTimerStartsAndStops() {
        let clock = HandlerClock(
            ticksPerVerdict: 10, readingsToStart: 100, startWindowNanoseconds: 10_000_000)
        #expect(!clock.isTicking)
        for _ in 0..<1_000 { _ = clock.now() }
        #expect(clock.isTicking)
        // Unread for ten ticks, it stops; the wait is generous for a loaded machine.
        #expect(eventually { !clock.isTicking })
        // Stopped, a reading is the system clock's again, and sparse ones leave it stopped.
        let first = clock.now()
        usleep(2_000)
        #expect(clock.now() - first >= 2_000_000)
        #expect(!clock.isTicking)
    }

    @Test("readings follow the time, while the timer starts and while it runs")
    func readingsFollowTheTime() {
        let clock = HandlerClock()
        let start = clock.now()
        let wall = ContinuousClock.now
        var latest = start
        // Kept read, so that it keeps ticking, until 30 ms have passed on another clock. (The
        // readings taken while the timer starts come from the system clock, and the timer's
        // first may be a little older than the last of them, so they are not compared one by
        // one: Laps never measures a negative time.)
        while ContinuousClock.now - wall < .milliseconds(30) {
            latest = max(latest, clock.now())
        }
        #expect(latest - start >= 20_000_000)
    }

    @Test("a slow call is never measured shorter than it took")
    func slowCallsAreNotUnderestimated() {
        let bus = EventBus(slowHandlerThreshold: .milliseconds(15))
        let watch = bus.observeDeliveries { _ in }
        let token = bus.subscribe(to: Tick.self) { tick in
            if tick.value.isMultiple(of: 2) { usleep(20_000) }
        }
        for value in 1...6 { bus.publish(Tick(value: value)) }
        let row = bus.snapshot().handlers.first { $0.eventTypeName == "Tick" }
        #expect(row?.calls == 6)
        #expect(row?.slowCalls == 3)
        // Three sleeps of 20 ms: each lap ends on the system clock, so none comes out short.
        #expect((row?.total ?? .zero) >= .milliseconds(60))
        #expect((row?.maximum ?? .zero) >= .milliseconds(20))
        _ = (watch, token)
    }

    @Test("many short calls add up to the time they took, read on the system clock or on the timer")
    func shortCallsAddUp() {
        let bus = EventBus()
        let watch = bus.observeDeliveries { _ in }
        let spin = Duration.microseconds(5)
        let tokens = (0..<100).map { _ in
            bus.subscribe(to: Tick.self) { _ in
                let start = ContinuousClock.now
                while ContinuousClock.now - start < spin {}
            }
        }
        let start = ContinuousClock.now
        // 4,000 calls of 5 us: the first readings of the system clock come fast enough to start
        // the shared clock's timer (unless another test started it already), and the rest are
        // timed on it.
        for value in 1...40 { bus.publish(Tick(value: value)) }
        let elapsed = ContinuousClock.now - start
        let total = bus.snapshot().handlers.first { $0.eventTypeName == "Tick" }?.total ?? .zero
        // The total misses at most the lap still open when the publishes ended, and may count
        // the lag of a first reading; the bounds leave room for a timer held up by a loaded
        // machine.
        #expect(total >= elapsed / 2)
        #expect(total <= elapsed + .milliseconds(20))
        _ = (watch, tokens)
    }
}
