import BusWire
import EventBus
import TestSupport
import Testing

@testable import BusMonitor

@Suite("LocalBusSource")
struct LocalBusSourceTests {
    private func makeSource(
        bus: EventBus, clock: ManualClock,
        commands: @escaping @Sendable (SourceCommand) -> String? = { _ in nil }
    )
        -> LocalBusSource
    {
        LocalBusSource(
            bus: bus, title: nil, capture: BusCapture(bus: bus, capacity: 100), snapshotInterval: 0.2,
            commands: commands, clock: { clock.now })
    }

    @Test func drainsEventsWithASnapshotAtMostEveryInterval() throws {
        let bus = EventBus(name: "orders")
        let clock = ManualClock()
        let source = makeSource(bus: bus, clock: clock)
        #expect(source.title == "bus orders")

        bus.publish(Tick(value: 1))
        let first = source.drain()
        #expect(first.events.count == 1)
        let snapshot = try #require(first.snapshot)
        #expect(snapshot.busName == "orders")
        #expect(snapshot[Tick.self]?.published == 1)
        #expect(first.status == "live")

        clock.advance(by: 0.05)
        bus.publish(Tick(value: 2))
        let second = source.drain()
        #expect(second.events.count == 1)
        #expect(second.snapshot == nil)

        clock.advance(by: 0.2)
        let third = source.drain()
        #expect(third.events.isEmpty)
        #expect(third.snapshot?[Tick.self]?.published == 2)
    }

    @Test func reportsDropsAndDetaching() {
        let bus = EventBus(name: "test")
        let source = makeSource(bus: bus, clock: ManualClock())
        for value in 0..<150 { bus.publish(Tick(value: value)) }

        let batch = source.drain()
        #expect(batch.events.count == 100)
        #expect(batch.droppedEvents == 50)

        source.capture.detach()
        #expect(source.drain().status == "detached")
    }

    @Test func forwardsCommands() {
        let received = LockedValue<[SourceCommand]>([])
        let destroy = SourceCommand("destroy-screens")
        let offered = [
            SourceCommandDescription(
                keys: [.init(command: destroy, characters: ["c"])], keyText: "c", barLabel: "Destroy",
                help: "close a batch of screens at once")
        ]
        let source = LocalBusSource(bus: EventBus(), title: "demo", supportedCommands: offered) { command in
            received.withLock { $0.append(command) }
            return command == .increaseRate ? "rate 500/s" : nil
        }
        #expect(source.title == "demo")
        #expect(source.perform(.increaseRate) == "rate 500/s")
        #expect(source.perform(destroy) == nil)
        #expect(received.current == [.increaseRate, destroy])
        #expect(source.supportedCommands == offered)
        // Without a handler every command is ignored, and none is offered.
        #expect(LocalBusSource(bus: EventBus()).perform(.decreaseRate) == nil)
        #expect(LocalBusSource(bus: EventBus()).supportedCommands.isEmpty)
    }
}
