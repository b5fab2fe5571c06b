import Dispatch
import EventBus
import Foundation
import TestSupport
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An observer whose class names its handler in call records.
final class CallRecorder: Sendable {
    let heard = Journal<Int>()
}

/// A subscriber of a protocol its events conform to.
/// A protocol that ``Tick`` conforms to, for a subscription to it.
protocol CallNumbered: Event { var value: Int { get } }
extension Tick: CallNumbered {}

@Suite("Handler calls, reported while a trace is written")
struct HandlerCallTests {
    @Test("each call of a handler in the publish is reported with its event, observer, thread and time")
    func inlineCallsAreReported() throws {
        let bus = EventBus()
        let calls = Journal<HandlerCallRecord>()
        let deliveries = Journal<DeliveryRecord>()
        let watch = bus.observeDeliveries { deliveries.append($0) }
        let recorder = CallRecorder()
        bus.subscribe(observer: recorder) { (tick: Tick) in
            recorder.heard.append(tick.value)
            usleep(2_000)
        }
        let token = bus.subscribe(to: Tick.self) { _ in }
        let observation = bus.observeHandlerCalls { calls.append($0) }
        let before = Self.nanosecondsSince1970()
        bus.publish(Tick(value: 1))
        let after = Self.nanosecondsSince1970()

        #expect(calls.count == 2, "two typed handlers; the wildcard monitor is left out")
        let delivery = try #require(deliveries.entries.first)
        let observed = try #require(calls.entries.first { $0.observerTypeName == "CallRecorder" })
        #expect(observed.eventID == delivery.eventID && observed.eventID != 0)
        #expect(observed.eventTypeName == "Tick")
        #expect(observed.observerID != nil)
        #expect(observed.waitedNanoseconds == nil, "called inside the publish")
        #expect(observed.durationNanoseconds >= 2_000_000)
        #expect(observed.startNanoseconds >= before && observed.startNanoseconds <= after)
        #expect(calls.entries.contains { $0.observerTypeName == nil }, "the token's closure")
        // The publish notes its thread and time, the same thread as its inline calls.
        let thread = try #require(delivery.thread)
        #expect(thread == observed.thread)
        let published = try #require(delivery.publishedAtNanoseconds)
        #expect(published >= before && published <= observed.startNanoseconds)
        _ = (watch, token, observation)
    }

    @Test("a queued delivery's call says how long it waited, and runs on the queue's thread")
    func queuedCallsCarryTheirWait() throws {
        let bus = EventBus()
        let calls = Journal<HandlerCallRecord>()
        let watch = bus.observeDeliveries { _ in }
        let observation = bus.observeHandlerCalls { calls.append($0) }
        let queue = DispatchQueue(label: "slow")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let token = bus.subscribe(to: Tick.self, on: queue) { _ in }
        bus.publish(Tick(value: 1))
        usleep(20_000)
        gate.signal()
        #expect(eventually { calls.count == 1 })
        let call = try #require(calls.entries.first)
        let waited = try #require(call.waitedNanoseconds)
        #expect(waited >= 15_000_000, "it waited behind the busy queue: \(waited) ns")
        #expect(call.thread.id != TraceThreadProbe.current().id, "the queue's thread, not the publisher's")
        _ = (watch, observation, token)
    }

    @Test("calls of a protocol's subscribers are reported under the protocol's name")
    func protocolSubscribersAreReported() {
        let bus = EventBus()
        let calls = Journal<HandlerCallRecord>()
        let observation = bus.observeHandlerCalls { calls.append($0) }
        let token = bus.subscribe(conformingTo: (any CallNumbered).self) { _ in }
        bus.publish(Tick(value: 3))
        #expect(calls.entries.map(\.eventTypeName) == ["any CallNumbered"])
        _ = (observation, token)
    }

    @Test("nothing is reported, and publishes note no thread, before observing or once cancelled")
    func onlyWhileObserved() {
        let bus = EventBus()
        let calls = Journal<HandlerCallRecord>()
        let deliveries = Journal<DeliveryRecord>()
        let watch = bus.observeDeliveries { deliveries.append($0) }
        let token = bus.subscribe(to: Tick.self) { _ in }
        bus.publish(Tick(value: 1))
        let observation = bus.observeHandlerCalls { calls.append($0) }
        bus.publish(Tick(value: 2))
        observation.cancel()
        bus.publish(Tick(value: 3))
        #expect(calls.count == 1)
        #expect(deliveries.entries.map { $0.thread != nil } == [false, true, false])
        #expect(deliveries.entries.map { $0.publishedAtNanoseconds != nil } == [false, true, false])
        // Timing goes on as before for the snapshot: three calls counted.
        #expect(bus.snapshot().handlers.first { $0.eventTypeName == "Tick" }?.calls == 3)
        _ = (watch, token)
    }

    @Test("without any wildcard observer, events are numbered while calls are observed")
    func callsAloneNumberEvents() {
        let bus = EventBus()
        let calls = Journal<HandlerCallRecord>()
        let token = bus.subscribe(to: Tick.self) { _ in }
        let observation = bus.observeHandlerCalls { calls.append($0) }
        bus.publish(Tick(value: 1))
        bus.publish(Tick(value: 2))
        let numbers = calls.entries.map(\.eventID)
        #expect(numbers.count == 2 && numbers[0] != 0 && numbers[1] > numbers[0])
        _ = (observation, token)
    }

    @Test("the main thread is named as such")
    func mainThreadIsKnown() async throws {
        let bus = EventBus()
        let calls = Journal<HandlerCallRecord>()
        let observation = bus.observeHandlerCalls { calls.append($0) }
        let token = bus.subscribe(to: Tick.self) { _ in }
        await MainActor.run { bus.publish(Tick(value: 1)) }
        DispatchQueue.global().sync { bus.publish(Tick(value: 2)) }
        let threads = calls.entries.map(\.thread)
        #expect(threads.count == 2)
        // On Darwin the main actor runs on the main thread; on Linux its jobs may run elsewhere,
        // but a global queue's thread is never the main one.
        #expect(threads.last?.isMain == false)
        #if canImport(Darwin)
            #expect(threads.first?.isMain == true)
        #endif
        #expect(threads.allSatisfy { $0.id != 0 })
        _ = (observation, token)
    }

    /// The real-time clock, as the bus reads it.
    private static func nanosecondsSince1970() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec)
    }
}

/// The calling thread's identity as a call record would give it, through the public API.
enum TraceThreadProbe {
    static func current() -> TraceThread {
        let bus = EventBus()
        let calls = Journal<HandlerCallRecord>()
        let observation = bus.observeHandlerCalls { calls.append($0) }
        let token = bus.subscribe(to: Tick.self) { _ in }
        bus.publish(Tick(value: 0))
        _ = (observation, token)
        return calls.entries[0].thread
    }
}
