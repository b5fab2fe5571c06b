import BusMonitor
import BusWire
import EventBus
import Testing

@testable import Dashboard

/// The counters of a fleet: each app's snapshot, summed over the apps that are not gone.
@Suite("Fleet counters")
struct FleetCountersTests {
    static func snapshot(of origin: EventOrigin, published: Int, at time: Double) -> FeedRecord {
        .snapshot(
            FeedSnapshot(
                time: time,
                snapshot: BusSnapshot(
                    busName: origin.app,
                    eventTypes: [
                        EventTypeStatistics(typeName: "Tick", liveSubscribers: 1, published: published)
                    ],
                    wildcardObservers: 0),
                origin: origin))
    }

    static func member(_ origin: EventOrigin, _ presence: FleetMember.Presence) -> FleetMember {
        FleetMember(origin: origin, presence: presence, lastSeen: 0)
    }

    @Test("an app that goes leaves the sum, and counts again when it is back")
    func goneAppsLeaveTheSum() {
        var state = DashboardState()
        state.apply(
            SourceBatch(
                records: [
                    Self.snapshot(of: checkout, published: 3, at: 1),
                    Self.snapshot(of: inventory, published: 4, at: 1),
                ],
                fleet: [Self.member(checkout, .active), Self.member(inventory, .active)]), at: 1)
        #expect(state.busName == "fleet (2 apps)")
        #expect(state.rows.first { $0.name == "Tick" }?.published == 7)
        #expect(state.rows.first { $0.name == "Tick" }?.subscribers.counts.live == 2)

        state.apply(
            SourceBatch(fleet: [Self.member(checkout, .gone), Self.member(inventory, .active)]), at: 2)
        #expect(state.busName == "inventory", "one app's snapshot, as it is")
        #expect(state.rows.first { $0.name == "Tick" }?.published == 4)

        state.apply(
            SourceBatch(fleet: [Self.member(checkout, .active), Self.member(inventory, .active)]), at: 3)
        #expect(state.rows.first { $0.name == "Tick" }?.published == 7)
    }

    @Test("a presence change of an app that sent no snapshot leaves the counters alone")
    func appsWithoutSnapshotsDoNotTouchTheCounters() {
        var state = DashboardState()
        state.apply(
            SourceBatch(
                records: [Self.snapshot(of: checkout, published: 3, at: 1)],
                fleet: [Self.member(checkout, .active), Self.member(inventory, .active)]), at: 1)
        state.apply(
            SourceBatch(fleet: [Self.member(checkout, .active), Self.member(inventory, .gone)]), at: 2)
        #expect(state.busName == "checkout")
        #expect(state.rows.first { $0.name == "Tick" }?.published == 3)
    }
}
