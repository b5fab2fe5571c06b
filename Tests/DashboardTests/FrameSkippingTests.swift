import BusMonitor
import BusWire
import EventBus
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

/// A frame is drawn only when it would differ from the last: a quiet source costs next to nothing.
@Suite("Frames drawn only on change")
struct FrameSkippingTests {
    private func drawn(_ dashboard: SourceDashboard, at now: Double) {
        var grid = CellGrid(width: 100, height: 30)
        dashboard.render(into: &grid, now: now)
    }

    /// Hands `batch` to the dashboard, expects it to call for a frame, and draws one.
    private func expectFrame(
        for batch: SourceBatch, from source: ScriptedSource, on dashboard: SourceDashboard, at now: Double
    ) {
        source.enqueue(batch)
        dashboard.update(now: now)
        #expect(dashboard.needsFrame(at: now))
        drawn(dashboard, at: now)
    }

    @Test("a quiet source needs one frame a second, for the clock")
    func aQuietSourceNeedsAFrameASecond() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        dashboard.update(now: startTime)
        #expect(dashboard.needsFrame(at: startTime))
        drawn(dashboard, at: startTime)

        // Nothing comes in: no frame until the clock enters the next second.
        for tick in 1..<25 {
            let now = startTime + Double(tick) * 0.04
            dashboard.update(now: now)
            #expect(!dashboard.needsFrame(at: now), "tick \(tick)")
        }
        dashboard.update(now: startTime + 1.0)
        #expect(dashboard.needsFrame(at: startTime + 1.0))
    }

    @Test("records, a new status, drops, notices and keys each call for a frame")
    func changesCallForAFrame() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        var now = startTime
        func settle() {
            dashboard.update(now: now)
            drawn(dashboard, at: now)
            #expect(!dashboard.needsFrame(at: now))
        }
        settle()

        let batches = [
            SourceBatch(events: [login("ann", at: now)]),
            SourceBatch(records: [], status: "detached"),
            SourceBatch(records: [], droppedEvents: 3, status: "detached"),
            SourceBatch(
                records: [], droppedEvents: 3, status: "detached",
                notices: [SourceNotice(time: now, text: "attached again")]),
        ]
        for batch in batches {
            now += 0.04
            source.enqueue(batch)
            dashboard.update(now: now)
            #expect(dashboard.needsFrame(at: now))
            drawn(dashboard, at: now)
            // The same status and drops again change nothing.
            now += 0.04
            source.enqueue(SourceBatch(records: [], droppedEvents: batch.droppedEvents, status: batch.status))
            dashboard.update(now: now)
            #expect(!dashboard.needsFrame(at: now))
        }

        // A key may change anything: the next frame is drawn.
        _ = dashboard.handle(.character("?"))
        #expect(dashboard.needsFrame(at: now))
    }

    /// A snapshot of an app whose one object is `age` old and whose suspect is `overdue`.
    private func snapshot(
        at time: Double, age: Double, published: Int = 40, state: ObserverState = .live
    )
        -> FeedSnapshot
    {
        let bus = BusSnapshot(
            busName: "app",
            eventTypes: [
                EventTypeStatistics(typeName: "UserLoggedInEvent", liveSubscribers: 1, published: published)
            ],
            wildcardObservers: 0, observers: [],
            leakSuspects: [
                LeakSuspect(
                    observerID: 7, className: "ProfileScreen", reason: "screen closed",
                    overdue: .seconds(age), subscriptions: ["UserLoggedInEvent"])
            ],
            instances: [
                ObserverInstance(
                    observerID: 7, className: "ProfileScreen", age: .seconds(age),
                    subscriptions: ["UserLoggedInEvent"], state: state, leakReason: "screen closed",
                    overdue: .seconds(age))
            ])
        return FeedSnapshot(time: time, snapshot: bus)
    }

    @Test("a fleet's batch without its members (none changed) calls for no frame")
    func anUnchangedFleetIsNoNews() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        var now = startTime
        let members = threeAppFleet(lastSeen: now)
        expectFrame(for: SourceBatch(fleet: members), from: source, on: dashboard, at: now)
        // A listener or a NATS source sends the members only when one changed.
        for _ in 0..<3 {
            now += 0.04
            source.enqueue(SourceBatch())
            dashboard.update(now: now)
            #expect(!dashboard.needsFrame(at: now))
        }
        now += 0.04
        source.enqueue(SourceBatch(fleet: members))
        dashboard.update(now: now)
        #expect(!dashboard.needsFrame(at: now), "the same members again")
        now += 0.04
        expectFrame(
            for: SourceBatch(fleet: threeAppFleet(lastSeen: now, checkoutEvents: 5)), from: source,
            on: dashboard, at: now)
    }

    @Test("a snapshot that repeats the last but for the time and ages calls for no frame")
    func aRepeatedSnapshotCallsForNoFrame() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        var now = startTime
        expectFrame(
            for: SourceBatch(records: [.snapshot(snapshot(at: now, age: 3))]), from: source, on: dashboard,
            at: now)

        // Half a second later an idle app's tap sends the same counters, its objects older.
        now += 0.5
        source.enqueue(SourceBatch(records: [.snapshot(snapshot(at: now, age: 3.5))]))
        dashboard.update(now: now)
        #expect(!dashboard.hasChangesToShow)
        #expect(!dashboard.needsFrame(at: now))

        // A count that moved, or an object that died, is news.
        for changed in [
            snapshot(at: now + 0.1, age: 3.6, published: 41),
            snapshot(at: now + 0.2, age: 3.7, published: 41, state: .dead),
        ] {
            now += 0.1
            expectFrame(for: SourceBatch(records: [.snapshot(changed)]), from: source, on: dashboard, at: now)
        }
    }

    @Test("a snapshot after an event in the same batch is kept, so the next is compared with it")
    func aSnapshotBehindAnEventIsKept() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        var now = startTime
        for batch in [
            SourceBatch(records: [.snapshot(snapshot(at: now, age: 1))]),
            SourceBatch(records: [
                .event(login("ann", at: now + 0.1)),
                .snapshot(snapshot(at: now + 0.1, age: 1, published: 41)),
            ]),
        ] {
            expectFrame(for: batch, from: source, on: dashboard, at: now)
            now += 0.2
        }
        // Back to the first counts: news against the snapshot shown last.
        source.enqueue(SourceBatch(records: [.snapshot(snapshot(at: now, age: 1.2))]))
        dashboard.update(now: now)
        #expect(dashboard.hasChangesToShow)
    }
}
