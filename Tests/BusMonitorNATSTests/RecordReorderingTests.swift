import BusWire
import EventBus
import Testing

@testable import BusMonitorNATS

/// A bridge sends an app's lifecycle changes a tenth of a second at a time, apart from its
/// events: the fleet source puts each app's records back in the order of their times.
@Suite struct RecordReorderingTests {
    private let alpha = FeedOrigin(app: "alpha", host: "web-1", pid: 11)
    private let beta = FeedOrigin(app: "beta", host: "web-2", pid: 22)

    private func event(_ number: Int, at time: Double, from origin: FeedOrigin) -> FeedRecord {
        .event(
            FeedEvent(
                sequence: number, time: time, typeName: "Tick", payload: .description("\(number)"),
                receivers: 1,
                origin: origin))
    }

    private func reclaimed(at time: Double, from origin: FeedOrigin) -> FeedRecord {
        .lifecycle(
            FeedLifecycle(
                time: time, change: SubscriberLifecycleEvent(kind: .reclaimed, eventTypeName: "Tick"),
                origin: origin))
    }

    @Test func aLateLifecycleChangeTakesItsPlaceAmongTheEvents() {
        var reordering = RecordReordering()
        #expect(
            reordering.pass([event(1, at: 10.00, from: alpha), event(2, at: 10.05, from: alpha)], now: 0)
                .isEmpty)
        // Sent with the bridge's next round, after an event published later.
        #expect(reordering.pass([reclaimed(at: 10.02, from: alpha)], now: 0.1).isEmpty)
        let passed = reordering.pass([event(3, at: 10.40, from: alpha)], now: 0.4)
        #expect(passed.map(\.time) == [10.00, 10.02, 10.05])
        #expect(reordering.flush().map(\.time) == [10.40])
    }

    @Test func aQuietAppsRecordsWaitNoLongerThanASecond() {
        var reordering = RecordReordering()
        #expect(reordering.pass([event(1, at: 10, from: alpha)], now: 0).isEmpty)
        #expect(reordering.pass([], now: 0.9).isEmpty)
        #expect(reordering.pass([], now: 1.0).map(\.time) == [10])
    }

    @Test func appsWithNothingMoreToComeLeaveAtOnceAndTheOthersWait() {
        var reordering = RecordReordering()
        // alpha heard from history long ago, beta live now, a third app that just left.
        let gamma = FeedOrigin(app: "gamma", host: "web-3", pid: 33)
        _ = reordering.pass(
            [
                event(1, at: 100, from: alpha), event(1, at: 5_000, from: beta),
                event(1, at: 5_000, from: gamma),
            ], now: 0)
        let left = reordering.flush(appsQuietSince: 5_000 - RecordReordering.holdBack, gone: [gamma])
        #expect(Set(left.compactMap(\.origin)) == [alpha, gamma])
        #expect(reordering.flush().compactMap(\.origin) == [beta])
    }

    @Test func anAppWhoseClockRunsAheadHoldsUpNoOther() {
        var reordering = RecordReordering()
        _ = reordering.pass([event(1, at: 5_000, from: beta), event(1, at: 10, from: alpha)], now: 0)
        // alpha's own newer records let its older one go; beta's far-ahead clock plays no part.
        let passed = reordering.pass([event(2, at: 10.5, from: alpha)], now: 0.05)
        #expect(passed.map(\.origin) == [alpha])
        #expect(passed.map(\.time) == [10])
    }
}
