import BusMonitor
import BusMonitorNATS
import BusWire
import EventBus
import EventBusNATS
import TestSupport
import Testing

/// The fleet's state machine fed synthetic messages and times: presence, merging, notices,
/// buffers. No server, no thread: these run in plain `swift test` too.
@Suite struct FleetStateTests {
    private let alpha = FeedOrigin(app: "alpha", host: "web-1", pid: 11)
    private let beta = FeedOrigin(app: "beta", host: "web-2", pid: 22)

    private func event(_ type: String, from origin: FeedOrigin, at time: Double = 100) -> FleetMessage {
        .event(
            FeedEvent(
                sequence: 1, time: time, typeName: type, payload: .fields(json: "{}"), receivers: 1,
                origin: origin),
            origin: origin)
    }

    private func snapshot(
        from origin: FeedOrigin, published: [String: Int], screens: Int = 0, at time: Double = 100
    ) -> FleetMessage {
        let types = published.sorted { $0.key < $1.key }.map {
            EventTypeStatistics(
                typeName: $0.key, liveSubscribers: 1, published: $0.value, delivered: $0.value)
        }
        let observers = [ObserverStatistics(className: "Screen", liveInstances: screens)]
        let bus = BusSnapshot(
            busName: origin.app, eventTypes: types, wildcardObservers: 1, observers: observers)
        return .snapshot(FeedSnapshot(time: time, snapshot: bus, origin: origin), origin: origin)
    }

    private func bridge(
        _ origin: FeedOrigin, state: String, dropped: Int = 0, reconnects: Int = 0
    ) -> FleetMessage {
        .link(
            FleetLinkReport(
                NATSBridgeReport(
                    time: 100, app: origin.app, host: origin.host, pid: origin.pid, state: state,
                    statistics: NATSBridgeStatistics(dropped: dropped, reconnects: reconnects))))
    }

    private func texts(_ batch: SourceBatch) -> [String] { batch.notices.map(\.text) }

    @Test func lostLifecycleChangesAddUpOverAppsAndTheBuffer() {
        var state = FleetState(capacity: 1)
        func link(_ origin: FeedOrigin, lost: Int) -> FleetMessage {
            var report = FleetLinkReport(
                time: 100, origin: origin, kind: "connection", state: "connected", dropped: 0)
            report.droppedLifecycle = lost
            return .link(report)
        }
        func change(from origin: FeedOrigin) -> FleetMessage {
            .lifecycle(
                FeedLifecycle(
                    time: 100, change: SubscriberLifecycleEvent(kind: .subscribed, eventTypeName: "Tick")),
                origin: origin)
        }
        // Given two apps whose taps lost 2 and 3 changes, and a buffer with room for one
        state.receive(link(alpha, lost: 2), now: 1000)
        state.receive(link(beta, lost: 3), now: 1000)
        state.receive(change(from: alpha), now: 1000)
        state.receive(change(from: alpha), now: 1000)
        #expect(state.takeBatch(now: 1000).droppedLifecycle == 6)
        // A running total from a tap adds only what is new
        state.receive(link(alpha, lost: 4), now: 1001)
        #expect(state.takeBatch(now: 1001).droppedLifecycle == 8)
        // A smaller total, from another link of the same app, is not counted again
        state.receive(link(alpha, lost: 1), now: 1002)
        #expect(state.takeBatch(now: 1002).droppedLifecycle == 8)
    }

    @Test(
        "an app's losses under a flood are said every few seconds, adding up to its total, not at every report"
    )
    func lossNoticesArePaced() {
        var state = FleetState()
        // Given a tap that reports 40 more lost events every 10 ms for 12 seconds
        var notices: [String] = []
        var lost = 0
        for tick in 0..<1_200 {
            lost += 40
            let now = 1000 + Double(tick) / 100
            let report = FleetLinkReport(
                time: now, origin: alpha, kind: "connection", state: "connected", dropped: lost, link: 1)
            state.receive(.link(report), now: now)
            notices += texts(state.takeBatch(now: now)).filter { $0.contains("dropped") }
        }
        // Then a notice says it at once, then one every 5 s, each with the count since the last
        #expect(
            notices == [
                "alpha@web-1:11: its connection dropped 40 events (40 so far)",
                "alpha@web-1:11: its connection dropped 20000 more events (20040 so far)",
                "alpha@web-1:11: its connection dropped 20000 more events (40040 so far)",
            ], "\(notices)")
        // while the counts stay exact
        #expect(state.takeBatch(now: 1013).droppedEvents == lost)
        // And what it lost since the last notice is said once the interval is over, though the
        // tap reports nothing more
        #expect(
            texts(state.takeBatch(now: 1015.5)) == [
                "alpha@web-1:11: its connection dropped 7960 more events (48000 so far)"
            ])
    }

    @Test("a link that closes says at once what it lost since the last notice, before the app leaves")
    func aClosingLinkSaysItsLastLosses() {
        var state = FleetState()
        func report(dropped: Int, state linkState: String = "connected", at time: Double) -> FleetMessage {
            .link(
                FleetLinkReport(
                    time: time, origin: alpha, kind: "connection", state: linkState, dropped: dropped, link: 1
                ))
        }
        state.receive(report(dropped: 10, at: 1000), now: 1000)
        state.receive(report(dropped: 50, at: 1001), now: 1001)
        state.receive(report(dropped: 50, state: FleetLinkReport.closedState, at: 1002), now: 1002)
        #expect(
            texts(state.takeBatch(now: 1002)) == [
                "alpha@web-1:11 joined",
                "alpha@web-1:11: its connection dropped 10 events (10 so far)",
                "alpha@web-1:11: its connection dropped 40 more events (50 so far)",
                "alpha@web-1:11 left (its connection closed)",
            ])
    }

    @Test("a dialler's losses count connection by connection, and its old connection closing leaves it here")
    func lossesCountByLink() {
        var state = FleetState()
        func connection(
            _ link: Int, state: String = "connected", dropped: Int, calls: Int = 0
        ) -> FleetMessage {
            var report = FleetLinkReport(
                time: 100, origin: alpha, kind: "connection", state: state, dropped: dropped, link: link)
            report.droppedCalls = calls
            return .link(report)
        }
        // Given an app whose first connection's tap lost 5 events and 2 calls
        state.receive(connection(1, dropped: 5, calls: 2), now: 1000)
        var batch = state.takeBatch(now: 1000)
        #expect(batch.droppedEvents == 5)
        #expect(batch.droppedCalls == 2)
        // When it dials in again with a fresh tap, whose counts start at 0, before the old
        // connection is seen to close
        state.receive(connection(2, dropped: 0), now: 1001)
        state.receive(connection(2, dropped: 3, calls: 1), now: 1002)
        // Then the new connection's losses count from its own start
        batch = state.takeBatch(now: 1002)
        #expect(batch.droppedEvents == 8)
        #expect(batch.droppedCalls == 3)
        // (said with the next notice of its losses, at most one every few seconds)
        #expect(!texts(batch).contains { $0.contains("dropped 3") })
        // And the old connection closing leaves the app here, on its new one
        state.receive(connection(1, state: FleetLinkReport.closedState, dropped: 5), now: 1003)
        batch = state.takeBatch(now: 1003)
        #expect(state.fleet.first { $0.origin == alpha }?.presence == .active)
        #expect(!texts(batch).contains { $0.contains("left") })
        #expect(batch.droppedEvents == 8)
        // Until the new one closes too
        state.receive(connection(2, state: FleetLinkReport.closedState, dropped: 3), now: 1004)
        batch = state.takeBatch(now: 1004)
        #expect(state.fleet.first { $0.origin == alpha }?.presence == .gone)
        #expect(texts(batch).contains { $0.contains("left (its connection closed)") })
    }

    @Test func eventsCarryTheirOriginAndMembersJoinOnce() {
        var state = FleetState()
        state.receive(event("Tick", from: alpha), now: 1000)
        state.receive(event("Tick", from: alpha), now: 1000.1)
        state.receive(event("Tock", from: beta), now: 1000.2)
        let batch = state.takeBatch(now: 1000.3)
        #expect(batch.events.map(\.origin) == [alpha, alpha, beta])
        #expect(texts(batch) == ["alpha@web-1:11 joined", "beta@web-2:22 joined"])
        #expect(batch.fleet?.map(\.eventsReceived) == [2, 1])
        #expect(batch.fleet?.map(\.presence) == [.active, .active])
        // Nothing new: no fleet, no snapshot.
        let quiet = state.takeBatch(now: 1000.4)
        #expect(quiet.fleet == nil && quiet.snapshot == nil && quiet.events.isEmpty)
    }

    @Test func silentAppsTurnQuietThenGoneAndComeBack() {
        var state = FleetState(times: FleetPresenceTimes(quietAfter: 5, goneAfter: 30))
        state.receive(snapshot(from: alpha, published: ["Tick": 3]), now: 1000)
        state.receive(snapshot(from: beta, published: ["Tick": 4]), now: 1000)
        _ = state.takeBatch(now: 1000)

        // Given beta keeps talking and alpha falls silent,
        state.receive(event("Tick", from: beta), now: 1004)
        #expect(state.takeBatch(now: 1004.9).notices.isEmpty)
        state.receive(event("Tick", from: beta), now: 1005.5)
        // then alpha is quiet after 5 s,
        let quiet = state.takeBatch(now: 1005.5)
        #expect(texts(quiet) == ["alpha@web-1:11 is quiet: nothing from it for 5 s"])
        #expect(quiet.fleet?.map(\.presence) == [.quiet, .active])
        // and gone after 30 s (a dashboard then leaves its snapshot out of the counters).
        state.receive(event("Tick", from: beta), now: 1030)
        let gone = state.takeBatch(now: 1030)
        #expect(texts(gone) == ["alpha@web-1:11 is gone: nothing from it for 30 s"])
        #expect(gone.notices.first?.isWarning == true)
        #expect(gone.fleet?.map(\.presence) == [.gone, .active])
        #expect(gone.fleet?.first?.snapshot?["Tick"]?.published == 3, "its last counters are kept")
        // When it speaks again it is back.
        state.receive(event("Tick", from: alpha), now: 1031)
        let back = state.takeBatch(now: 1031)
        #expect(texts(back) == ["alpha@web-1:11 is back"])
        #expect(back.fleet?.map(\.presence) == [.active, .active])
    }

    @Test("events missing from a bridge's numbering are counted as dropped and told, once")
    func gapsInABridgesNumberingAreLostEvents() {
        var state = FleetState()
        state.countsNumberingGaps = true
        func numbered(_ number: Int, from origin: FeedOrigin) -> FleetMessage {
            .event(
                FeedEvent(
                    sequence: number, time: 100, typeName: "Tick", payload: .fields(json: "{}"), receivers: 1),
                origin: origin)
        }
        // Given a bridge heard from number 7 on (what came before busmon started is no loss),
        for number in [7, 8, 9] { state.receive(numbered(number, from: alpha), now: 1000) }
        state.receive(numbered(1, from: beta), now: 1000)
        #expect(state.takeBatch(now: 1000).droppedEvents == 0)
        // when the server hands over 14 next, after a restart that lost 10 to 13,
        state.receive(numbered(14, from: alpha), now: 1001)
        state.receive(numbered(2, from: beta), now: 1001)
        let gap = state.takeBatch(now: 1001)
        // then four events are counted dropped, and the log says whose and which,
        #expect(gap.droppedEvents == 4)
        #expect(texts(gap) == ["alpha@web-1:11: 4 events lost on the way (numbers 10 to 13)"])
        #expect(gap.notices.first?.isWarning == true)
        state.receive(numbered(15, from: alpha), now: 1002)
        state.receive(numbered(17, from: alpha), now: 1002)
        let later = state.takeBatch(now: 1002)
        #expect(later.droppedEvents == 5)
        // (counted at once, said with the next notice of its gaps, at most one every few seconds)
        #expect(texts(later).isEmpty)
        // A bridge made again in the same process numbers from 1: the old numbering's gaps are
        // said, and counting goes on from there.
        for number in [1, 2, 4] { state.receive(numbered(number, from: alpha), now: 1003) }
        let again = state.takeBatch(now: 1003)
        #expect(again.droppedEvents == 6)
        #expect(texts(again) == ["alpha@web-1:11: 1 event lost on the way (number 16)"])
        state.receive(numbered(6, from: alpha), now: 1004)
        #expect(texts(state.takeBatch(now: 1004)).isEmpty)
        #expect(
            texts(state.takeBatch(now: 1008.5)).filter { $0.contains("lost") } == [
                "alpha@web-1:11: 2 events lost on the way in 2 gaps (numbers 3 to 5)"
            ])
        // A number made up far ahead (anyone can publish on the subject) is not counted, and
        // the numbering goes on as the bridge's.
        state.receive(numbered(Int.max, from: beta), now: 1004)
        state.receive(numbered(3, from: beta), now: 1004)
        state.receive(numbered(1 << 40, from: beta), now: 1004)
        state.receive(numbered(4, from: beta), now: 1004)
        let madeUp = state.takeBatch(now: 1009)
        #expect(madeUp.droppedEvents == 7)
        #expect(texts(madeUp).filter { $0.contains("lost") }.isEmpty)
    }

    @Test("a closed bridge's last report counts the events it sent after the last one heard")
    func aClosedBridgesLastEventsNeverHeardAreLost() {
        var state = FleetState()
        state.countsNumberingGaps = true
        func numbered(_ number: Int) -> FleetMessage {
            .event(
                FeedEvent(
                    sequence: number, time: 100, typeName: "Tick", payload: .fields(json: "{}"), receivers: 1),
                origin: alpha)
        }
        func report(_ state: String, forwarded: Int) -> FleetMessage {
            .link(
                FleetLinkReport(
                    NATSBridgeReport(
                        time: 100, app: alpha.app, host: alpha.host, pid: alpha.pid, state: state,
                        statistics: NATSBridgeStatistics(forwarded: forwarded))))
        }
        // Given a bridge heard up to number 5, whose reports on their own connection run ahead
        // of its events,
        for number in 1...5 { state.receive(numbered(number), now: 1000) }
        state.receive(report("connected", forwarded: 9), now: 1000)
        #expect(state.takeBatch(now: 1000).droppedEvents == 0, "events 6 to 9 may still come")
        state.receive(numbered(6), now: 1001)
        // when it closes having sent 9 (its last report comes after all its events),
        state.receive(report("closed", forwarded: 9), now: 1001)
        let closed = state.takeBatch(now: 1001)
        // then 7 to 9 are lost, and said at once: nothing more comes from it.
        #expect(closed.droppedEvents == 3)
        #expect(texts(closed).contains("alpha@web-1:11: 3 events lost on the way (numbers 7 to 9)"))
        // A bridge made again numbers from 1, heard in full: nothing more is lost.
        for number in 1...3 { state.receive(numbered(number), now: 1002) }
        state.receive(report("closed", forwarded: 3), now: 1002)
        #expect(state.takeBatch(now: 1002).droppedEvents == 3)
    }

    @Test("numbering is not checked for apps that dialled in: their taps report their own drops")
    func numberingGapsAreNotCheckedUnlessAsked() {
        var state = FleetState()
        for number in [1, 5, 9] {
            state.receive(
                .event(
                    FeedEvent(
                        sequence: number, time: 100, typeName: "Tick", payload: .fields(json: "{}"),
                        receivers: 1),
                    origin: alpha),
                now: 1000)
        }
        #expect(state.takeBatch(now: 1000).droppedEvents == 0)
    }

    @Test(
        "while busmon's own link is away, apps keep their presence, and each has its full time once it is back"
    )
    func aMonitorsOwnOutageIsNoAppsSilence() {
        var state = FleetState(times: FleetPresenceTimes(quietAfter: 5, goneAfter: 30))
        state.receive(event("Tick", from: alpha), now: 1000)
        state.receive(event("Tick", from: beta), now: 1000)
        _ = state.takeBatch(now: 1000)
        // Given busmon lost its server at 1001 for 40 s,
        state.holdsPresence = true
        #expect(state.takeBatch(now: 1040).fleet == nil, "nobody turns quiet or gone meanwhile")
        // when it is back, the apps are not gone for what busmon did not hear,
        state.holdsPresence = false
        state.restartSilences(at: 1041)
        let back = state.takeBatch(now: 1041)
        #expect(back.notices.isEmpty)
        #expect(state.fleet.map(\.presence) == [.active, .active])
        #expect(state.fleet.map(\.lastSeen) == [1000, 1000], "when each was heard stays")
        // and one that does not speak again turns quiet 5 s later, gone 30 s later, while
        // the other speaks.
        state.receive(event("Tick", from: beta), now: 1046)
        #expect(texts(state.takeBatch(now: 1046)) == ["alpha@web-1:11 is quiet: nothing from it for 5 s"])
        state.receive(event("Tick", from: beta), now: 1071)
        #expect(texts(state.takeBatch(now: 1071)) == ["alpha@web-1:11 is gone: nothing from it for 30 s"])
    }

    @Test("an app that went silent and then closes its link leaves; it does not come back first")
    func aClosingLinkIsNoSignOfLife() {
        var state = FleetState(times: FleetPresenceTimes(quietAfter: 5, goneAfter: 30))
        let connection = { (state: String) -> FleetMessage in
            .link(
                FleetLinkReport(time: 100, origin: self.alpha, kind: "connection", state: state, dropped: 0))
        }
        state.receive(connection("connected"), now: 1000)
        state.receive(event("Tick", from: alpha), now: 1000)
        _ = state.takeBatch(now: 1000)
        #expect(texts(state.takeBatch(now: 1034)).last == "alpha@web-1:11 is gone: nothing from it for 30 s")
        state.receive(connection("closed"), now: 1035)
        #expect(texts(state.takeBatch(now: 1035)) == [])
        #expect(state.fleet.first?.presence == .gone)
    }

    @Test func aClosedBridgeIsGoneAtOnceAndLateMessagesDoNotBringItBack() {
        var state = FleetState()
        state.receive(snapshot(from: alpha, published: ["Tick": 3]), now: 1000)
        state.receive(bridge(alpha, state: "connected"), now: 1000)
        state.receive(bridge(alpha, state: "closed"), now: 1001)
        state.receive(event("Tick", from: alpha), now: 1001.1)
        let batch = state.takeBatch(now: 1001.2)
        #expect(texts(batch) == ["alpha@web-1:11 joined", "alpha@web-1:11 left (its bridge closed)"])
        #expect(batch.fleet?.first?.presence == .gone)
        #expect(batch.fleet?.first?.bridgeState == "closed")
        // Its records still go on, whole and in order, with its origin.
        #expect(batch.records.map(\.kind) == ["snapshot", "event"])
        #expect(batch.newestSnapshot?.origin == alpha)
    }

    @Test func bridgeReportsBecomeStateDropsAndNotices() {
        var state = FleetState()
        state.receive(bridge(alpha, state: "connected"), now: 1000)
        state.receive(bridge(alpha, state: "connected", dropped: 12, reconnects: 1), now: 1001)
        let batch = state.takeBatch(now: 1001)
        #expect(batch.fleet?.first?.bridgeDropped == 12)
        #expect(batch.droppedEvents == 12, "lost on the way, counted with the monitor's losses")
        state.receive(bridge(alpha, state: "connected", dropped: 15, reconnects: 1), now: 1002)
        #expect(state.takeBatch(now: 1002).droppedEvents == 15, "a running total, each loss once")
        // A bridge first heard with losses behind it lost them before this run: shown per app,
        // not as this run's.
        var later = FleetState()
        later.receive(bridge(alpha, state: "connected", dropped: 1_000), now: 1000)
        #expect(later.takeBatch(now: 1000).droppedEvents == 0)
        later.receive(bridge(alpha, state: "connected", dropped: 1_005), now: 1001)
        let after = later.takeBatch(now: 1001)
        #expect(after.droppedEvents == 5 && after.fleet?.first?.bridgeDropped == 1_005)
        #expect(
            texts(batch) == [
                "alpha@web-1:11 joined", "alpha@web-1:11: its bridge dropped 12 events (12 so far)",
                "alpha@web-1:11: its bridge reconnected to the server",
            ])
    }

    @Test func theMergedSnapshotSumsTypesAndClassesOverTheApps() {
        var state = FleetState()
        state.receive(snapshot(from: alpha, published: ["Tick": 3, "Login": 1], screens: 2), now: 1000)
        state.receive(snapshot(from: beta, published: ["Tick": 4, "Logout": 5], screens: 1), now: 1000)
        let batch = state.takeBatch(now: 1000)
        // Each app's snapshot goes on with its origin; summing them is the reader's.
        let snapshots = batch.records.snapshots
        #expect(snapshots.map(\.origin) == [alpha, beta])
        let merged = BusSnapshot.merged(snapshots.map(\.snapshot))
        #expect(merged.busName == "fleet (2 apps)")
        #expect(merged["Tick"]?.published == 7)
        #expect(merged["Tick"]?.liveSubscribers == 2)
        #expect(merged["Login"]?.published == 1)
        #expect(merged["Logout"]?.published == 5)
        #expect(merged.totalPublished == 13)
        #expect(merged.wildcardObservers == 2)
        #expect(merged.observers.map(\.className) == ["Screen"])
        #expect(merged.observers.first?.liveInstances == 3)
        #expect(batch.fleet?.map { $0.snapshot?.totalPublished } == [4, 9])
        // One app's snapshot is given as it is.
        #expect(BusSnapshot.merged([snapshots[0].snapshot]) == snapshots[0].snapshot)
    }

    @Test func replayedMessagesCountAsHeardWhenTheySayAndPresenceWaitsForTheReplay() {
        var state = FleetState(times: FleetPresenceTimes(quietAfter: 5, goneAfter: 30))
        state.holdsPresence = true
        state.receive(event("Tick", from: alpha, at: 400), now: 1000, replayed: true)
        let replaying = state.takeBatch(now: 1000)
        #expect(texts(replaying) == ["alpha@web-1:11 joined (from history)"])
        #expect(replaying.fleet?.first?.presence == .active)
        #expect(replaying.fleet?.first?.lastSeen == 400)
        state.holdsPresence = false
        let live = state.takeBatch(now: 1000)
        #expect(texts(live) == ["alpha@web-1:11 is gone: nothing from it for 30 s"])
    }

    @Test func theEventBufferIsBoundedAndCountsWhatItDrops() {
        var state = FleetState(capacity: 3)
        for index in 0..<5 { state.receive(event("Tick", from: alpha), now: 1000 + Double(index)) }
        let batch = state.takeBatch(now: 1005)
        #expect(batch.events.count == 3)
        #expect(batch.droppedEvents == 2)
        #expect(batch.fleet?.first?.eventsReceived == 5, "the member counts every event")
        state.receive(event("Tick", from: alpha), now: 1006)
        #expect(state.takeBatch(now: 1006).events.count == 1)
    }

    @Test func presenceTimesComeFromTheEnvironment() {
        let times = FleetPresenceTimes.fromEnvironment([
            "BUSMON_FLEET_QUIET_AFTER": "0.5", "BUSMON_FLEET_GONE_AFTER": "2",
        ])
        #expect(times == FleetPresenceTimes(quietAfter: 0.5, goneAfter: 2))
        #expect(FleetPresenceTimes.fromEnvironment(["BUSMON_FLEET_GONE_AFTER": "x"]) == FleetPresenceTimes())
        #expect(FleetPresenceTimes(quietAfter: 10, goneAfter: 1).goneAfter == 10)
    }
}

/// The records a fleet carries, read the way the fleet source reads them.
@Suite struct FleetMessageTests {
    private func decode(_ text: String) -> Result<FleetMessage, FleetMessage.Problem> {
        Array(text.utf8).withUnsafeBytes { FleetMessage.decode($0) }
    }

    @Test func anEnvelopeIsAnEventWithItsOrigin() throws {
        let envelope =
            #"{"kind":"event","seq":17,"time":1712345678.503121,"typeName":"UserLoggedInEvent","receivers":2,"app":"checkout","host":"web-3","pid":4242,"origin":"9c1f0e7d2b3a4c55","payload":{"userId":"42"}}"#
        guard case .success(.event(let event, let origin)) = decode(envelope + "\n") else {
            Issue.record("not an event: \(decode(envelope))")
            return
        }
        #expect(origin == FeedOrigin(app: "checkout", host: "web-3", pid: 4242))
        #expect(event.payload.text == #"{"userId":"42"}"#)
        #expect(event.origin == EventOrigin(app: "checkout", host: "web-3", pid: 4242))
    }

    @Test func recordsWithoutAnOriginAndOtherLinesAreNotTaken() {
        #expect(
            decode(#"{"kind":"event","seq":1,"time":1,"typeName":"T","receivers":0,"payload":{}}"#)
                == .failure(.noOrigin))
        #expect(decode("not json") == .failure(.unreadable))
        #expect(
            decode(#"{"kind":"hello","version":2,"pid":1,"process":"p","bus":"b","time":1}"#)
                == .failure(.ignored))
        #expect(decode(#"{"kind":"bridge","time":1}"#) == .failure(.unreadable))
    }

    @Test func originsSurviveTheWireOnEveryRecordKind() throws {
        let origin = FeedOrigin(app: "a b", host: "h", pid: 7)
        let records: [FeedRecord] = [
            .event(
                FeedEvent(
                    sequence: 1, time: 2, typeName: "T", payload: .fields(json: "{}"), receivers: 0,
                    origin: origin)),
            .lifecycle(
                FeedLifecycle(
                    time: 3,
                    change: SubscriberLifecycleEvent(kind: .subscribed, eventTypeName: "T", count: 1),
                    origin: origin)),
            .snapshot(
                FeedSnapshot(
                    time: 4, snapshot: BusSnapshot(busName: "b", eventTypes: [], wildcardObservers: 0),
                    origin: origin)),
        ]
        for record in records {
            let line = record.encodeLine()
            #expect(line.contains(#""app":"a b","host":"h","pid":7"#), "\(line)")
            #expect(try FeedRecord.decode(line: line) == record)
        }
        // Without an origin, nothing is written and nothing is read.
        let plain = FeedRecord.event(
            FeedEvent(sequence: 1, time: 2, typeName: "T", payload: .fields(json: "{}"), receivers: 0))
        #expect(!plain.encodeLine().contains("\"app\""))
        #expect(try FeedRecord.decode(line: plain.encodeLine()) == plain)
    }

    @Test func aBridgeReportRoundTrips() {
        let report = NATSBridgeReport(
            time: 1712345678.5, app: "checkout", host: "web-3", pid: 4242, state: "reconnecting",
            statistics: NATSBridgeStatistics(forwarded: 1200, received: 3, dropped: 9, reconnects: 1),
            lifecycleDropped: 2)
        let line = report.encodeLine()
        #expect(line.last == UInt8(ascii: "\n"))
        guard case .success(.link(let decoded)) = line.withUnsafeBytes({ FleetMessage.decode($0) }) else {
            Issue.record("not a bridge record: \(String(decoding: line, as: UTF8.self))")
            return
        }
        #expect(decoded == FleetLinkReport(report))
        #expect(decoded.droppedLifecycle == 2)
    }
}
