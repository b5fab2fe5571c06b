import BusMonitor
import EventBus
import Testing

@testable import Dashboard

private protocol AuthEvent: Sendable {}

private struct SignedIn: Event, AuthEvent {}

private struct SignedOut: Event, AuthEvent {}

/// A protocol's row, `any AuthEvent`, which nothing publishes.
@Suite("A protocol's row")
struct ProtocolRowTests {
    @Test("counts what its handlers received, and the total counts each event once")
    func countsDeliveries() {
        let bus = EventBus(name: "protocols")
        let received = LockedValue(0)
        let subscription = bus.subscribe(conformingTo: (any AuthEvent).self) { _ in
            received.withLock { $0 += 1 }
        }
        let source = LocalBusSource(bus: bus, snapshotInterval: 0)
        for _ in 0..<3 { bus.publish(SignedIn()) }
        bus.publish(SignedOut())
        var state = DashboardState()
        state.apply(source.drain(), at: 1_700_000_000)
        let row = state.rows.first { $0.name == "any AuthEvent" }
        #expect(row?.isProtocol == true)
        #expect(row?.published == 4)
        #expect(received.current == 4)
        #expect(state.totalPublished == 4)
        subscription.cancel()
    }
}
