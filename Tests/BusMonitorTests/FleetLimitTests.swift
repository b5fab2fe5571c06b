import BusWire
import EventBus
import Testing

@testable import BusMonitor

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
        // Counted apart from the drops of a monitor that read too slowly: nobody was too slow.
        #expect(fleet.droppedFromAppsPastTheLimit == 3 && batch.droppedFromAppsPastTheLimit == 3)
        #expect(fleet.droppedEvents == 0 && batch.droppedEvents == 0)
        #expect(batch.notices.filter { $0.text.contains("more than 1000 apps at once") }.count == 1)
        // An app already listed is still heard.
        fleet.receive(Self.event(from: FeedOrigin(app: "a", host: "h", pid: 7)), now: 3)
        #expect(fleet.takeBatch(now: 3).events.count == 1)
        // And a recording keeps the count in its `dropped` line, which a replay reads back
        var lines = RecordLines()
        var writer = JSONLineWriter()
        _ = lines.write(batch, into: &writer)
        let written = String(decoding: writer.bytes, as: UTF8.self)
        let drops = written.split(separator: "\n").compactMap { line -> FeedDrops? in
            guard case .dropped(let drops)? = try? FeedRecord.decode(line: String(line)) else { return nil }
            return drops
        }
        #expect(drops.map(\.fromAppsPastTheLimit) == [3] && drops.map(\.events) == [0], "\(written)")
    }
    @Test("an app's snapshots between two drains are one: the newest, after what came before it")
    func snapshotsBetweenDrainsAreTheNewest() {
        var fleet = FleetState()
        let shop = FeedOrigin(app: "shop", host: "h", pid: 1)
        let cart = FeedOrigin(app: "cart", host: "h", pid: 2)
        func snapshot(_ time: Double, of origin: FeedOrigin) -> FleetMessage {
            .snapshot(
                FeedSnapshot(
                    time: time,
                    snapshot: BusSnapshot(busName: origin.app, eventTypes: [], wildcardObservers: 0)),
                origin: origin)
        }
        for second in 1...1_000 {
            fleet.receive(snapshot(Double(second), of: shop), now: Double(second))
            fleet.receive(snapshot(Double(second), of: cart), now: Double(second))
            if second == 500 { fleet.receive(Self.event(from: shop), now: 500) }
        }
        let records = fleet.takeBatch(now: 1_000).records
        let kept: [(String, Double)] = records.compactMap {
            guard case .snapshot(let snapshot) = $0 else { return nil }
            return (snapshot.origin?.app ?? "", snapshot.time)
        }
        #expect(kept.map(\.0) == ["shop", "cart"] && kept.map(\.1) == [1_000, 1_000])
        #expect(records.count == 3, "the event stays, before the snapshots that came after it")
        guard case .event = records.first else {
            Issue.record("the event is not first: \(records)")
            return
        }
        fleet.receive(snapshot(1_001, of: shop), now: 1_001)
        #expect(fleet.takeBatch(now: 1_001).records.count == 1, "a drain starts afresh")
    }
    @Test("notices between two drains are bounded, and what was left out is said")
    func noticesAreBounded() {
        var fleet = FleetState()
        for index in 0..<(BoundedNotices.maximum + 500) { fleet.note("notice \(index)", now: 1) }
        let notices = fleet.takeBatch(now: 1).notices
        #expect(notices.count == BoundedNotices.maximum + 1)
        #expect(notices.last?.text == "500 more notices left out: too many between two frames")
        fleet.note("after", now: 2)
        #expect(fleet.takeBatch(now: 2).notices.map(\.text) == ["after"])
    }
}
