import BusMonitor
import BusWire
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

    @Test("its rate, which only snapshots move, reads steady between two of them")
    func rateBetweenSnapshots() throws {
        // Given snapshots every 0.5 s, each with 90 more deliveries to the protocol's handlers
        // (180 a second), and frames 25 times a second in between
        func snapshot(delivered: Int, at time: Double) -> FeedRecord {
            .snapshot(
                FeedSnapshot(
                    time: time,
                    snapshot: BusSnapshot(
                        busName: "app",
                        eventTypes: [
                            EventTypeStatistics(
                                typeName: "any AuthEvent", liveSubscribers: 1, delivered: delivered)
                        ],
                        wildcardObservers: 0)))
        }
        var state = DashboardState()
        let start = 1_700_000_000.0
        var rates: [Double] = []
        for frame in 0...250 {
            let time = start + Double(frame) * 0.04
            let records: [FeedRecord] =
                frame % 12 == 0 ? [snapshot(delivered: 90 * (frame / 12), at: time)] : []
            var batch = SourceBatch(records: records)
            batch.sourceClock = time
            state.apply(batch, at: time)
            let row = try #require(state.rows.first { $0.name == "any AuthEvent" })
            if frame > 100 { rates.append(row.meter.rate(at: state.sourceTime(at: time))) }
        }
        // Then the rate reads 187.5 (90 per 0.48 s) at every frame, whatever its phase
        #expect(
            rates.allSatisfy { abs($0 - 187.5) < 187.5 * 0.02 }, "\(rates.min() ?? 0)...\(rates.max() ?? 0)")
        // And once snapshots stop coming (the app went away), it falls to nothing
        let end = start + 250 * 0.04 + 5
        var batch = SourceBatch()
        batch.sourceClock = end
        state.apply(batch, at: end)
        let row = try #require(state.rows.first { $0.name == "any AuthEvent" })
        #expect(row.meter.rate(at: state.sourceTime(at: end)) == 0)
    }
}
