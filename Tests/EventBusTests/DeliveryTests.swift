import Dispatch
import EventBus
import Foundation
import TestSupport
import Testing

@Suite("Delivery on queues and as async sequences")
struct DeliveryTests {
    @Test("a subscriber on a queue does not make the publisher wait")
    func queueDeliveryDoesNotBlock() {
        // Given a subscriber whose queue is busy.
        let bus = EventBus()
        let queue = DispatchQueue(label: "busy subscriber")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let values = Journal<Int>()
        let token = bus.subscribe(to: Tick.self, on: queue) { values.append($0.value) }

        // When events are published, publish returns at once.
        for value in 1...3 { bus.publish(Tick(value: value)) }
        #expect(values.count == 0)

        // Then the subscriber gets them in order once its queue is free.
        gate.signal()
        #expect(eventually { values.count == 3 })
        #expect(values.entries == [1, 2, 3])
        #expect(bus.snapshot()[Tick.self]?.delivered == 3)
        token.cancel()
    }

    @Test("a queued delivery is skipped once the subscription is cancelled")
    func cancelledBeforeQueueRuns() {
        let bus = EventBus()
        let queue = DispatchQueue(label: "late subscriber")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let values = Journal<Int>()
        let token = bus.subscribe(to: Tick.self, on: queue) { values.append($0.value) }
        bus.publish(Tick(value: 1))
        token.cancel()
        gate.signal()
        queue.sync {}
        #expect(values.entries.isEmpty)
    }

    @Test("a handler on a queue may cancel its own subscription")
    func queuedHandlerCancelsItself() {
        let bus = EventBus()
        let queue = DispatchQueue(label: "self-cancelling")
        let holder = LockedValue<Subscription?>(nil)
        let values = Journal<Int>()
        let token = bus.subscribe(to: Tick.self, on: queue) { event in
            values.append(event.value)
            holder.current?.cancel()
        }
        holder.withLock { $0 = token }
        bus.publish(Tick(value: 1))
        queue.sync {}
        bus.publish(Tick(value: 2))
        queue.sync {}
        #expect(values.entries == [1])
        holder.withLock { $0 = nil }  // the handler holds its own token: break the cycle
    }

    @Test("events(of:) yields events to a for-await loop")
    func asyncSequence() async {
        let bus = EventBus()
        let stream = bus.events(of: Tick.self)
        for value in 1...3 { bus.publish(Tick(value: value)) }
        var received: [Int] = []
        for await event in stream {
            received.append(event.value)
            if received.count == 3 { break }
        }
        #expect(received == [1, 2, 3])
    }

    @Test("events(of:) keeps only the newest events when the consumer is slow")
    func asyncSequenceIsBounded() async {
        let bus = EventBus()
        let stream = bus.events(of: Tick.self, bufferingNewest: 2)
        for value in 1...10 { bus.publish(Tick(value: value)) }
        var received: [Int] = []
        for await event in stream {
            received.append(event.value)
            if received.count == 2 { break }
        }
        #expect(received == [9, 10])
    }

    @Test("a stream counts what it dropped, for its consumer and in the snapshot, per subscription")
    func droppedEventsAreCounted() async {
        let bus = EventBus()
        let roomy = bus.events(of: Tick.self)
        do {
            let slow = bus.events(of: Tick.self, bufferingNewest: 3)
            #expect(slow.droppedCount == 0)
            for value in 1...10 { bus.publish(Tick(value: value)) }
            #expect(slow.droppedCount == 7, "ten published, three kept")
            #expect(roomy.droppedCount == 0)
            let snapshot = bus.snapshot()
            #expect(snapshot[Tick.self]?.dropped == 7)
            let rows = snapshot.handlers.filter { $0.eventTypeName == "Tick" }
            #expect(rows.map(\.dropped) == [7], "token subscriptions of a type share a row")
            #expect(
                rows.first?.isWorse(than: HandlerStatistics(observerTypeName: nil, eventTypeName: "Other"))
                    == true)
            var received: [Int] = []
            for await event in slow {
                received.append(event.value)
                if received.count == 3 { break }
            }
            #expect(received == [8, 9, 10])
        }
        // The counts outlive the stream, as every handler's do.
        #expect(eventually { bus.subscriberCount(for: Tick.self) == 1 })
        #expect(bus.snapshot()[Tick.self]?.dropped == 7)
        _ = roomy
    }

    @Test("ending the loop ends the subscription")
    func asyncSequenceEndsSubscription() async {
        let bus = EventBus()
        do {
            let stream = bus.events(of: Tick.self)
            #expect(bus.subscriberCount(for: Tick.self) == 1)
            bus.publish(Tick(value: 1))
            for await _ in stream { break }
        }
        #expect(eventually { bus.subscriberCount(for: Tick.self) == 0 })
    }

    @Test("a loop that stops ends the subscription while the stream is still held, as the README's loop does")
    func aStoppedLoopEndsTheSubscriptionOfAHeldStream() async {
        let bus = EventBus()
        let logins = bus.events(of: Tick.self)
        bus.publish(Tick(value: 1))
        for await _ in logins { break }
        // The stream is still held (its dropped count is read after the loop), and the bus no
        // longer buffers events for it.
        #expect(eventually { bus.subscriberCount(for: Tick.self) == 0 })
        for value in 2...5 { bus.publish(Tick(value: value)) }
        #expect(logins.droppedCount == 0)
        #expect(bus.snapshot()[Tick.self]?.unheard == 4)
    }

    @Test("a stream released without a loop ends its subscription")
    func aStreamReleasedUnreadEndsItsSubscription() async {
        let bus = EventBus()
        do {
            let unread = bus.events(of: Tick.self)
            #expect(bus.subscriberCount(for: Tick.self) == 1)
            _ = unread
        }
        #expect(eventually { bus.subscriberCount(for: Tick.self) == 0 })
    }
}
