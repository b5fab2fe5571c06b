import BusMonitor
import BusWire
import Testing

/// A fleet's apps are named by their messages: the apps it keeps are bounded.
@Suite("Fleet limits")
struct FleetLimitTests {
    private static func event(from origin: FeedOrigin) -> FleetMessage {
        .event(
            FeedEvent(
                sequence: 1, time: 1, typeName: "Tick", payload: .description("t"), receivers: 1,
                origin: origin),
            origin: origin)
    }

    @Test("past the limit, with none gone, a new app's records are dropped, counted and told once")
    func appsPastTheLimitAreDropped() {
        var fleet = FleetState()
        for pid in 0..<FleetState.maximumMembers {
            fleet.receive(Self.event(from: FeedOrigin(app: "a", host: "h", pid: pid)), now: 1)
        }
        _ = fleet.takeBatch(now: 1)
        for pid in 0..<3 {
            fleet.receive(Self.event(from: FeedOrigin(app: "stranger", host: "h", pid: pid)), now: 2)
        }
        let batch = fleet.takeBatch(now: 2)
        #expect(fleet.fleet.count == FleetState.maximumMembers)
        #expect(!fleet.fleet.contains { $0.origin.app == "stranger" })
        #expect(batch.events.isEmpty)
        #expect(fleet.droppedEvents == 3)
        #expect(batch.notices.filter { $0.text.contains("more than 1000 apps at once") }.count == 1)
        // An app already listed is still heard.
        fleet.receive(Self.event(from: FeedOrigin(app: "a", host: "h", pid: 7)), now: 3)
        #expect(fleet.takeBatch(now: 3).events.count == 1)
    }
}
