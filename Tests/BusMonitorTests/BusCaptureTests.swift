import BusWire
import Dispatch
import EventBus
import Foundation
import TestSupport
import Testing

@testable import BusMonitor

@Suite("BusCapture")
struct BusCaptureTests {
    @Test func capturesDeliveriesAndLifecycleChanges() throws {
        let bus = EventBus(name: "test")
        let capture = BusCapture(bus: bus)
        let screen = Screen()
        bus.subscribe(observer: screen) { (_: UserLoggedInEvent) in }

        bus.publish(UserLoggedInEvent(userId: "1", userName: "ada"))
        bus.publish(DataLoadedEvent(data: ["inbox"]))
        bus.unsubscribe(observer: screen)

        let drained = capture.drain()
        #expect(drained.events.map(\.typeName) == ["UserLoggedInEvent", "DataLoadedEvent"])
        #expect(drained.events.map(\.receivers) == [1, 0])
        let first = try #require(drained.events.first)
        guard case .value(let event) = first.payload else {
            Issue.record("an in-process capture keeps the event, not text")
            return
        }
        #expect(event as? UserLoggedInEvent == UserLoggedInEvent(userId: "1", userName: "ada"))
        #expect(first.payload.text == #"{"userId":"1","userName":"ada"}"#)
        #expect(drained.lifecycle.map(\.change.kind) == [.subscribed, .unsubscribed])
        #expect(drained.droppedEvents == 0)

        // A drain empties the buffers.
        let again = capture.drain()
        #expect(again.events.isEmpty && again.lifecycle.isEmpty)
    }

    @Test func keepsWhatFitsBetweenDrainsAndCountsDrops() throws {
        let bus = EventBus(name: "test")
        let capture = BusCapture(bus: bus, capacity: 100)

        for value in 0..<250 { bus.publish(Tick(value: value)) }

        let drained = capture.drain()
        #expect(drained.events.count == 100)
        let values = drained.events.compactMap { event -> Int? in
            guard case .value(let tick as Tick) = event.payload else { return nil }
            return tick.value
        }
        // The first 100, in order; the rest found the buffer full.
        #expect(values == Array(0..<100))
        #expect(drained.droppedEvents == 150)
        #expect(capture.droppedEvents == 150)
        // The exact total comes from the bus, which delivered nothing to the full buffer.
        #expect(bus.snapshot()[Tick.self]?.published == 250)
        #expect(bus.snapshot().wildcardDeliveries == 100)

        // Drops are a running total; after a drain the buffer has room again, and numbers
        // go on past the events turned away.
        for value in 0..<30 { bus.publish(Tick(value: value)) }
        let next = capture.drain()
        #expect(next.events.count == 30)
        #expect(next.events.first?.sequence == 251)
        #expect(next.droppedEvents == 150)
        #expect(bus.snapshot().wildcardDeliveries == 130)
    }

    @Test func boundsLifecycleChangesToo() {
        let bus = EventBus(name: "test")
        let capture = BusCapture(bus: bus, capacity: 10)
        var tokens: [Subscription] = []
        for _ in 0..<25 { tokens.append(bus.subscribe(to: Tick.self) { _ in }) }

        let drained = capture.drain()
        #expect(drained.lifecycle.count == 10)
        #expect(drained.droppedLifecycle == 15)
        withExtendedLifetime(tokens) {}
    }

    @Test func accountsForEveryEventFromConcurrentPublishers() async {
        let bus = EventBus(name: "test")
        let capture = BusCapture(bus: bus, capacity: 1_000)
        let publishers = 4
        let perPublisher = 5_000

        // Given publishers on several threads and a monitor draining meanwhile
        let drainedCount = LockedValue(0)
        await withTaskGroup(of: Void.self) { group in
            for publisher in 0..<publishers {
                group.addTask {
                    for value in 0..<perPublisher {
                        bus.publish(Tick(value: publisher * perPublisher + value))
                    }
                }
            }
            group.addTask {
                for _ in 0..<200 {
                    let count = capture.drain().events.count
                    drainedCount.withLock { $0 += count }
                    await Task.yield()
                }
            }
        }
        // Then every event was either handed over or counted as dropped
        let last = capture.drain()
        let handedOver = drainedCount.current + last.events.count
        #expect(handedOver + last.droppedEvents == publishers * perPublisher)
        #expect(bus.snapshot().totalPublished == publishers * perPublisher)
        // And the numbers count every event, dropped ones included, turned away or not.
        #expect(last.eventsAppended == publishers * perPublisher)
    }

    @Test func detachStopsCapturing() {
        let bus = EventBus(name: "test")
        let capture = BusCapture(bus: bus)
        #expect(capture.isAttached)
        #expect(bus.snapshot().wildcardObservers == 1)

        capture.detach()
        bus.publish(Tick(value: 1))

        #expect(!capture.isAttached)
        #expect(capture.drain().events.isEmpty)
        #expect(bus.snapshot().wildcardObservers == 0)
    }

    @Test func releasingTheCaptureDetachesIt() {
        let bus = EventBus(name: "test")
        var capture: BusCapture? = BusCapture(bus: bus)
        #expect(capture != nil)
        capture = nil
        #expect(bus.snapshot().wildcardObservers == 0)
    }

    @Test func stampsEventsWithTheWallClock() throws {
        let bus = EventBus(name: "test")
        let capture = BusCapture(bus: bus)

        let before = Date().timeIntervalSince1970
        for value in 0..<100 { bus.publish(Tick(value: value)) }
        let after = Date().timeIntervalSince1970

        let times = capture.drain().events.map(\.time)
        #expect(times.count == 100)
        // Within the publishing, allowing for the two clocks' rounding, and never going back.
        #expect(try #require(times.first) >= before - 0.001)
        #expect(try #require(times.last) <= after + 0.001)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func usesTheClockItIsGiven() {
        let bus = EventBus(name: "test")
        let clock = ManualClock()
        let capture = BusCapture(bus: bus, capacity: 10, clock: { clock.now })

        clock.advance(by: 5)
        bus.publish(Tick(value: 1))
        clock.advance(by: 1)
        let token = bus.subscribe(to: Tick.self) { _ in }

        let drained = capture.drain()
        #expect(drained.events.map(\.time) == [5])
        #expect(drained.lifecycle.map(\.time) == [6])
        withExtendedLifetime(token) {}
    }

    @Test func keepsEachPublishersOrderAndAccountsForDropsWhileDraining() async {
        let bus = EventBus(name: "test")
        let capture = BusCapture(bus: bus, capacity: 64)
        let publishers = 3
        let perPublisher = 20_000

        // Given publishers faster than a monitor that drains meanwhile
        let drained = LockedValue<[Tick]>([])
        await withTaskGroup(of: Void.self) { group in
            for publisher in 0..<publishers {
                group.addTask {
                    for value in 0..<perPublisher {
                        bus.publish(Tick(value: publisher * perPublisher + value))
                    }
                }
            }
            group.addTask {
                for _ in 0..<300 {
                    let ticks = capture.drain().events.compactMap(\.tick)
                    drained.withLock { $0 += ticks }
                    await Task.yield()
                }
            }
        }
        let last = capture.drain()
        let all = drained.current + last.events.compactMap(\.tick)

        // Then each publisher's events arrive in the order it published them, and every event
        // was handed over or counted as dropped, never both
        for publisher in 0..<publishers {
            let values = all.map(\.value).filter { $0 / perPublisher == publisher }
            #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 })
        }
        #expect(Set(all.map(\.value)).count == all.count)
        #expect(all.count + last.droppedEvents == publishers * perPublisher)
    }

    @Test func drainsAtACadenceLoseOnlyWhatOverflowsBetweenThem() {
        let bus = EventBus(name: "test")
        let capture = BusCapture(bus: bus, capacity: 100)
        var handedOver: [Int] = []
        var published = 0

        // Frames with fewer, exactly as many and more events than the buffer holds
        for perFrame in [40, 100, 130, 10, 250, 100] {
            for _ in 0..<perFrame {
                bus.publish(Tick(value: published))
                published += 1
            }
            let frame = capture.drain()
            let values = frame.events.compactMap(\.tick).map(\.value)
            // Each frame hands over the first it could hold, in order.
            let first = published - perFrame
            #expect(values == Array(first..<(first + min(perFrame, 100))))
            handedOver += values
        }

        #expect(capture.droppedEvents == 30 + 150)
        #expect(handedOver.count + capture.droppedEvents == published)
    }
}

extension FeedEvent {
    /// The captured `Tick`, if that is what this is.
    fileprivate var tick: Tick? {
        guard case .value(let tick as Tick) = payload else { return nil }
        return tick
    }
}
