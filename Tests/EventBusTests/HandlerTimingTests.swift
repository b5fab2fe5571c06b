import Dispatch
import EventBus
import Foundation
import Synchronization
import TestSupport
import Testing

final class SlowScreen: Sendable {}

@Suite("Handler timing")
struct HandlerTimingTests {
    @Test("while watched, handler calls are counted per observer class and type; slow ones reported")
    func slowCallsAreReported() {
        let bus = EventBus(slowHandlerThreshold: .milliseconds(12))
        let slow = Journal<SubscriberLifecycleEvent>()
        let watch = bus.observeLifecycle { if $0.kind == .slowHandler { slow.append($0) } }
        let screen = SlowScreen()
        bus.subscribe(observer: screen) { (tick: Tick) in
            if tick.value == 3 { usleep(40_000) }
        }
        let quick = bus.subscribe(to: Tick.self) { _ in }
        for value in 1...5 { bus.publish(Tick(value: value)) }

        // A timed call is never measured shorter than it took (HandlerClock's laps). A quick call
        // that lost its core for a while could be slow too, so the reports are searched.
        let report = slow.entries.first { $0.observerTypeName == "SlowScreen" }
        #expect(report?.eventTypeName == "Tick")
        #expect((report?.duration ?? .zero) >= .milliseconds(40))
        #expect(report?.description.hasPrefix("slow handler: SlowScreen #") == true)

        let rows = bus.snapshot().handlers
        let screenRow = rows.first { $0.observerTypeName == "SlowScreen" && $0.eventTypeName == "Tick" }
        #expect(screenRow?.calls == 5)
        #expect((screenRow?.slowCalls ?? 0) >= 1)
        #expect((screenRow?.maximum ?? .zero) >= .milliseconds(40))
        #expect((screenRow?.total ?? .zero) >= .milliseconds(40))
        #expect(screenRow?.average == (screenRow.map { $0.total / 5 }))
        let tokenRow = rows.first { $0.observerTypeName == nil && $0.eventTypeName == "Tick" }
        #expect(tokenRow?.calls == 5)
        // Worst first.
        #expect(rows == rows.sorted { $0.isWorse(than: $1) })
        _ = (watch, quick, screen)
    }

    @Test("with nothing watching, nothing is timed")
    func unwatchedIsNotTimed() {
        let bus = EventBus()
        let token = bus.subscribe(to: Tick.self) { _ in }
        for value in 1...5 { bus.publish(Tick(value: value)) }
        #expect(bus.snapshot().handlers.isEmpty)
        _ = token
    }

    @Test("queued handlers are timed where they run")
    func queuedHandlersAreTimed() {
        let bus = EventBus()
        let watch = bus.observeDeliveries { _ in }
        let queue = DispatchQueue(label: "timed")
        let token = bus.subscribe(to: Tick.self, on: queue) { _ in }
        for value in 1...4 { bus.publish(Tick(value: value)) }
        queue.sync {}
        let row = bus.snapshot().handlers.first { $0.eventTypeName == "Tick" }
        #expect(row?.calls == 4)
        _ = (watch, token)
    }

    @Test("a storm of slow calls is reported a few times a second, and counted whole")
    func slowReportsArePaced() {
        let bus = EventBus(slowHandlerThreshold: .zero)
        let slow = Journal<SubscriberLifecycleEvent>()
        let watch = bus.observeLifecycle { if $0.kind == .slowHandler { slow.append($0) } }
        let token = bus.subscribe(to: Tick.self) { _ in usleep(5_000) }
        let clock = ContinuousClock()
        let start = clock.now
        for value in 1...20 { bus.publish(Tick(value: value)) }
        let elapsed = clock.now - start
        let row = bus.snapshot().handlers.first { $0.eventTypeName == "Tick" }
        #expect(row?.calls == 20)
        #expect(row?.slowCalls ?? 0 > 0)
        // Ten reports in any one second at most (more only if the calls took over a second).
        #expect(slow.count == 10 || (slow.count > 10 && elapsed > .seconds(1)))
        _ = (watch, token)
    }

    @Test("two threads publishing one type count every call of its handlers")
    func callsAreExactAcrossThreads() {
        let bus = EventBus()
        let watch = bus.observeDeliveries { _ in }
        let handled = Atomic<Int>(0)
        let token = bus.subscribe(to: Tick.self) { _ in handled.wrappingAdd(1, ordering: .relaxed) }
        let perThread = 200_000
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for value in 0..<perThread { bus.publish(Tick(value: value)) }
        }
        let row = bus.snapshot().handlers.first { $0.observerTypeName == nil && $0.eventTypeName == "Tick" }
        #expect(handled.load(ordering: .relaxed) == 2 * perThread)
        #expect(row?.calls == 2 * perThread)
        _ = (watch, token)
    }

    @Test("counts of a subscription that ended stay in the snapshot")
    func endedSubscriptionsKeepTheirCounts() {
        let bus = EventBus()
        let watch = bus.observeDeliveries { _ in }
        let token = bus.subscribe(to: Tick.self) { _ in }
        for value in 1...3 { bus.publish(Tick(value: value)) }
        token.cancel()
        let row = bus.snapshot().handlers.first { $0.eventTypeName == "Tick" }
        #expect(row?.calls == 3)
        _ = watch
    }
}
