import Dispatch
import EventBus
import Foundation
import TestSupport
import Testing

@Suite("Handler clock")
struct HandlerClockTests {
    @Test("a reading starts the timer, which moves the reading on and stops once nothing reads it")
    func theTimerStartsAndStops() {
        let clock = HandlerClock(tickNanoseconds: 1_000_000, idleTicksBeforeStopping: 20)
        #expect(!clock.isTicking)
        let first = clock.now()
        #expect(clock.isTicking)
        // Unread for 20 ticks, it stops; the wait is generous for a loaded machine.
        #expect(eventually { !clock.isTicking })

        // Stopped, a reading is the system clock's, and starts the timer again.
        let afterStopping = clock.now()
        #expect(afterStopping > first)
        #expect(clock.isTicking)
        #expect(eventually { clock.now() > afterStopping })
    }

    @Test("readings follow the time")
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

    @Test("many short calls add up to the time they took")
    func shortCallsAddUp() {
        let bus = EventBus()
        let watch = bus.observeDeliveries { _ in }
        let spin = Duration.microseconds(200)
        let tokens = (0..<100).map { _ in
            bus.subscribe(to: Tick.self) { _ in
                let start = ContinuousClock.now
                while ContinuousClock.now - start < spin {}
            }
        }
        let start = ContinuousClock.now
        bus.publish(Tick(value: 1))
        let elapsed = ContinuousClock.now - start
        let total = bus.snapshot().handlers.first { $0.eventTypeName == "Tick" }?.total ?? .zero
        // 20 ms of calls against a 1 ms tick: the total misses at most the lap still open when
        // the publish ended, and may count the lag of its first reading; the bounds leave room
        // for a timer held up by a loaded machine.
        #expect(total >= elapsed / 2)
        #expect(total <= elapsed + .milliseconds(20))
        _ = (watch, tokens)
    }
}
