import BusMonitor
import BusWire
import EventBus
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

/// The counters of a fleet: each app's snapshot summed, a gone app's totals and not what it had live.
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

    @Test("a fleet's lifecycle lines name their app, and two apps' objects of one number are two reclaims")
    func changesNameTheirApp() throws {
        func change(
            _ kind: SubscriberLifecycleEvent.Kind, _ type: String, observer: UInt64, from origin: EventOrigin
        ) -> FeedRecord {
            .lifecycle(
                FeedLifecycle(
                    time: 2,
                    change: SubscriberLifecycleEvent(
                        kind: kind, eventTypeName: type, observerTypeName: "Screen", observerID: observer),
                    origin: origin))
        }
        // Given two apps, each of which reclaims its own Screen #4, and one that subscribes
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        source.enqueue(
            SourceBatch(
                records: [
                    change(.reclaimed, "Tick", observer: 4, from: checkout),
                    change(.reclaimed, "Tick", observer: 4, from: inventory),
                    change(.reclaimed, "Tock", observer: 4, from: checkout),
                    change(.subscribed, "Tock", observer: 5, from: inventory),
                ],
                fleet: [Self.member(checkout, .active), Self.member(inventory, .active)]))
        dashboard.update(now: 2)
        // Then each line names its app, and each app's object is a line of its own
        let lines = rendered(dashboard, width: 150, height: 45, now: 2).text.split(separator: "\n")
        let reclaims = lines.filter { $0.contains("Screen #4 deallocated") }
        #expect(reclaims.count == 2, "\(reclaims)")
        #expect(reclaims.contains { $0.contains("checkout") && $0.contains("2 subscriptions reclaimed") })
        #expect(reclaims.contains { $0.contains("inventory") && $0.contains("1 subscription reclaimed") })
        #expect(lines.contains { $0.contains("inventory") && $0.contains("subscribed to Tock by Screen #5") })
    }

    @Test("an app that goes keeps its totals in the sum and takes what it had live, until it is back")
    func goneAppsKeepTheirTotals() {
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
        // What it published stays counted; its subscriber went with it.
        #expect(state.rows.first { $0.name == "Tick" }?.published == 7)
        #expect(state.rows.first { $0.name == "Tick" }?.subscribers.counts.live == 1)

        state.apply(
            SourceBatch(fleet: [Self.member(checkout, .active), Self.member(inventory, .active)]), at: 3)
        #expect(state.rows.first { $0.name == "Tick" }?.published == 7)
        #expect(state.rows.first { $0.name == "Tick" }?.subscribers.counts.live == 2)
    }

    /// A checkout app's snapshot: Tick published 9 times to 2 live CartScreens, one of them a
    /// leak suspect, 5 reclaimed, 18 handler calls (2 failed) and a sticky Tick.
    static var cartScreenSnapshot: BusSnapshot {
        BusSnapshot(
            busName: "checkout",
            eventTypes: [
                EventTypeStatistics(typeName: "Tick", liveSubscribers: 2, published: 9, delivered: 18)
            ],
            wildcardObservers: 1,
            observers: [
                ObserverStatistics(
                    className: "CartScreen", liveInstances: 2, liveSubscriptions: 2, reclaimedInstances: 5,
                    leakSuspects: 1)
            ],
            leakSuspects: [
                LeakSuspect(
                    observerID: 7, className: "CartScreen", reason: "closed", overdue: .seconds(3),
                    subscriptions: ["Tick"])
            ],
            handlers: [
                HandlerStatistics(
                    observerTypeName: "CartScreen", eventTypeName: "Tick", calls: 18, total: .milliseconds(2),
                    maximum: .milliseconds(1), failures: 2)
            ],
            stickyEvents: [
                StickyEvent(
                    typeName: "Tick", event: UserLoggedInEvent(userId: "id-ada", userName: "ada"), version: 1)
            ])
    }

    @Test(
        "one attached app that goes away keeps its totals and loses what it had live, as a fleet's gone app")
    func aDetachedAppsLiveStateGoes() throws {
        // Given an attached app's snapshot
        var state = DashboardState()
        let hello = FeedHello(pid: 7, process: "checkout", bus: "checkout", time: 1)
        state.apply(
            SourceBatch(records: [
                .hello(hello), .snapshot(FeedSnapshot(time: 1, snapshot: Self.cartScreenSnapshot)),
            ]),
            at: 1)
        #expect(state.observers.suspectCount == 1)
        // A note that another process went (a stray line) says nothing of this one
        let stray = FeedHello(pid: 999, process: "checkout", bus: "checkout", time: 1)
        state.apply(SourceBatch(records: [.detached(FeedDetached(from: stray, at: 1.5))]), at: 1.5)
        #expect(state.observers.suspectCount == 1)
        // When its connection closes (the app exited)
        state.apply(SourceBatch(records: [.detached(FeedDetached(from: hello, at: 2))]), at: 2)
        // Then what it had live goes, and its totals stay, in the panes and in a state report
        let row = try #require(state.rows.first { $0.name == "Tick" })
        #expect(row.published == 9)
        #expect(row.subscribers.counts.live == 0)
        #expect(row.sticky == nil)
        #expect(state.observers.suspectCount == 0)
        #expect(state.handlers.rows.map(\.calls) == [18])
        #expect(state.shownSnapshot?.leakSuspects.isEmpty == true)
        #expect(state.shownSnapshot?.eventTypes.first?.published == 9)
        // And a new process's hello does not bring the old one's live state back
        let restarted = FeedHello(pid: 8, process: "checkout", bus: "checkout", time: 3)
        state.apply(SourceBatch(records: [.hello(restarted)]), at: 3)
        #expect(state.observers.suspectCount == 0)
        // until a snapshot of what it has live comes
        state.apply(
            SourceBatch(records: [.snapshot(FeedSnapshot(time: 4, snapshot: Self.cartScreenSnapshot))]), at: 4
        )
        #expect(state.observers.suspectCount == 1)
        #expect(state.rows.first { $0.name == "Tick" }?.subscribers.counts.live == 2)
    }

    @Test("a gone app's handler calls and reclaims stay; its objects, suspects and sticky events go")
    func aGoneAppsHistoryStaysAndItsLiveStateGoes() throws {
        var state = DashboardState()
        let snapshot = Self.cartScreenSnapshot
        state.apply(
            SourceBatch(
                records: [.snapshot(FeedSnapshot(time: 1, snapshot: snapshot, origin: checkout))],
                fleet: [Self.member(checkout, .active)]), at: 1)
        #expect(state.observers.suspectCount == 1)
        #expect(state.rows.first { $0.name == "Tick" }?.sticky != nil)

        state.apply(SourceBatch(fleet: [Self.member(checkout, .gone)]), at: 2)
        let row = try #require(state.rows.first { $0.name == "Tick" })
        #expect(row.published == 9)
        #expect(row.subscribers.counts.live == 0)
        #expect(row.sticky == nil)
        #expect(state.observers.suspectCount == 0)
        let cart = try #require(state.observers.classes.first { $0.className == "CartScreen" })
        #expect(cart.liveInstances == 0 && cart.reclaimedInstances == 5 && cart.leakSuspects == 0)
        #expect(state.handlers.rows.map(\.calls) == [18])
        #expect(state.handlers.failures == 2)
    }

    @Test("records of several apps from a source that lists no fleet (a recording) make the fleet")
    func recordsMakeTheFleetOfASourceWithoutAList() throws {
        var state = DashboardState()
        func event(_ origin: EventOrigin, at time: Double) -> FeedRecord {
            .event(
                FeedEvent(
                    sequence: 0, time: time, typeName: "Tick", payload: .description("1"), receivers: 1,
                    origin: origin))
        }
        state.apply(
            SourceBatch(
                records: [
                    event(checkout, at: 100), event(inventory, at: 100.5),
                    Self.snapshot(of: checkout, published: 3, at: 100.6),
                    Self.snapshot(of: inventory, published: 4, at: 100.6), event(checkout, at: 101),
                ]), at: 101)
        var fleet = try #require(state.fleet)
        #expect(fleet.rows.count == 2)
        #expect(fleet.rows.first { $0.member.origin == checkout }?.member.eventsReceived == 2)
        #expect(fleet.rows.allSatisfy { $0.member.presence == .active })
        // The apps' snapshots summed, 3 and 4, and the event after them.
        #expect(state.rows.first { $0.name == "Tick" }?.published == 8)

        // Silent on the source's clock, an app turns quiet, then gone, as a live fleet's would.
        state.apply(SourceBatch(records: [event(checkout, at: 110)]), at: 110)
        fleet = try #require(state.fleet)
        #expect(fleet.rows.first { $0.member.origin == inventory }?.member.presence == .quiet)
        state.apply(SourceBatch(records: [event(checkout, at: 140)]), at: 140)
        fleet = try #require(state.fleet)
        #expect(fleet.rows.first { $0.member.origin == inventory }?.member.presence == .gone)
        #expect(fleet.rows.first { $0.member.origin == checkout }?.member.presence == .active)
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

    /// A snapshot from `origin` whose every count is `Int.max`: well formed, as an app or a
    /// stranger may send it.
    static func hugeSnapshot(of origin: EventOrigin, at time: Double) -> FeedRecord {
        let most = Int.max
        return .snapshot(
            FeedSnapshot(
                time: time,
                snapshot: BusSnapshot(
                    busName: origin.app,
                    eventTypes: ["Tick", "Tock"].map {
                        EventTypeStatistics(
                            typeName: $0, liveSubscribers: most, deadSubscribers: most,
                            reclaimedSubscribers: most,
                            unsubscribedSubscribers: most, cancelledSubscribers: most,
                            duplicateSubscriptions: most,
                            published: most, delivered: most, unheard: most, handlerFailures: most,
                            dropped: most)
                    },
                    wildcardObservers: most, deadWildcardObservers: most, reclaimedWildcardObservers: most,
                    wildcardDeliveries: most,
                    observers: [
                        ObserverStatistics(
                            className: "Screen", liveInstances: most, deadInstances: most,
                            liveSubscriptions: most,
                            deadSubscriptions: most, reclaimedInstances: most, leakSuspects: most,
                            handlerFailures: most)
                    ],
                    handlers: ["Tick", "Tock"].map {
                        HandlerStatistics(
                            observerTypeName: "Screen", eventTypeName: $0, calls: most, slowCalls: most,
                            failures: most, dropped: most,
                            waits: DeliveryWaits(
                                count: most, p50: .zero, p99: .zero, maximum: .zero, slowDeliveries: most))
                    }),
                origin: origin))
    }

    @Test("two apps whose every count is Int.max are summed as the largest count and drawn, not a crash")
    func countsTooLargeToAddUp() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        let changes = [SubscriberLifecycleEvent.Kind.handlerFailed, .slowHandler, .slowDelivery, .subscribed]
        for round in 0..<3 {
            let time = 1 + Double(round)
            source.enqueue(
                SourceBatch(
                    records: [
                        Self.hugeSnapshot(of: checkout, at: time), Self.hugeSnapshot(of: inventory, at: time),
                    ]
                        + changes.map {
                            .lifecycle(
                                FeedLifecycle(
                                    time: time,
                                    change: SubscriberLifecycleEvent(
                                        kind: $0, eventTypeName: "Tick", count: .max,
                                        observerTypeName: "Screen",
                                        observerID: .max),
                                    origin: checkout))
                        },
                    droppedEvents: .max,
                    fleet: [Self.member(checkout, .active), Self.member(inventory, .active)]))
            dashboard.update(now: time)
            // Every pane drawn, focused and opened.
            for key in [DashboardKey.tab, .enter, .escape, .tab, .enter, .escape, .tab, .enter, .escape] {
                _ = dashboard.handle(key)
                _ = rendered(dashboard, width: 150, height: 45, now: time)
            }
        }
        let state = dashboard.shown
        #expect(state.rows.first { $0.name == "Tick" }?.published == .max)
        #expect(state.totalPublished == .max)
        #expect(state.handlers.failures == .max)
        let grid = rendered(dashboard, width: 150, height: 45, now: 4)
        #expect(grid.row(0).contains("9,223,372,036,854,775,807 failed"), "\(grid.row(0))")
        let tick = grid.text.split(separator: "\n").first { $0.hasPrefix("Tick") }
        // Too wide for its column, a count is shortened with a unit, never cut to its last digits.
        #expect(tick?.contains("775807") == false, "\(tick ?? "no row")")
        #expect(tick?.contains("9.22E") == true, "\(tick ?? "no row")")
    }

    @Test("types past the table's limit are summed in one last row, and the totals still count them")
    func typesPastTheLimitAreSummed() {
        var state = DashboardState()
        let limit = DashboardState.maximumTypeRows
        // Names sorted after the listed ones would otherwise be inserted among them.
        let names = (0..<(limit + 500)).map { "Type\(String(100_000 + $0))" }
        state.apply(
            SourceBatch(
                records: [
                    .snapshot(
                        FeedSnapshot(
                            time: 1,
                            snapshot: BusSnapshot(
                                busName: "app",
                                eventTypes: names.map { statistics($0, live: 1, published: 2) },
                                wildcardObservers: 0)))
                ]), at: 1)
        // Events of further new names, a hundred thousand of them: summed, not listed.
        let events = (0..<100_000).map { index in
            FeedRecord.event(
                FeedEvent(
                    time: 2, typeName: "Made up \(index)", value: DataLoadedEvent(data: []), receivers: 0))
        }
        state.apply(SourceBatch(records: events), at: 2)

        #expect(state.rows.count == limit + 1)
        let other = state.rows.last
        #expect(other?.isOtherTypes == true && other?.name == DashboardState.otherTypesName)
        #expect(other?.published == 500 * 2 + 100_000)
        #expect(other?.unheard == 100_000)
        #expect(other?.subscribers.counts.live == 500)
        #expect(state.rows.dropLast().allSatisfy { !$0.isOtherTypes && $0.published == 2 })
        #expect(state.rows.dropLast().map(\.name) == Array(names.prefix(limit)))
        #expect(state.totalPublished == names.count * 2 + 100_000)
    }

    @Test("snapshots of more apps than a fleet lists, from a source with no fleet list, keep a fleet's worth")
    func snapshotsOfTooManyAppsAreBounded() {
        var state = DashboardState()
        let count = FleetState.maximumMembers + 5
        state.apply(
            SourceBatch(
                records: (0..<count).map { pid in
                    Self.snapshot(of: EventOrigin(app: "a", host: "h", pid: pid), published: 1, at: 1)
                }), at: 1)
        #expect(state.memberSnapshots.count == FleetState.maximumMembers)
        #expect(state.rows.first { $0.name == "Tick" }?.published == FleetState.maximumMembers)
    }

    @Test("an app the fleet no longer lists leaves the counters and frees its slot for a new one")
    func forgottenAppsLeaveTheirSlot() {
        var state = DashboardState()
        let apps = (0..<FleetState.maximumMembers).map { EventOrigin(app: "a", host: "h", pid: $0) }
        state.apply(
            SourceBatch(
                records: apps.map { Self.snapshot(of: $0, published: 1, at: 1) },
                fleet: apps.map { Self.member($0, .active) }), at: 1)
        #expect(state.rows.first { $0.name == "Tick" }?.published == apps.count)
        // The first app went and was forgotten; a new one joins in the same batch.
        let newcomer = EventOrigin(app: "new", host: "h", pid: 1)
        let listed = Array(apps.dropFirst()) + [newcomer]
        state.apply(
            SourceBatch(
                records: [Self.snapshot(of: newcomer, published: 5, at: 2)],
                fleet: listed.map { Self.member($0, .active) }), at: 2)
        #expect(state.memberSnapshots[apps[0]] == nil)
        #expect(state.memberSnapshots[newcomer] != nil)
        #expect(state.snapshotsRefused == 0)
        #expect(state.rows.first { $0.name == "Tick" }?.published == apps.count - 1 + 5)
    }

    @Test("Enter on the row of other types clears the filter, having no one type to filter by")
    func enterOnTheOtherTypesRow() {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        let events = (0...DashboardState.maximumTypeRows).map { index in
            FeedRecord.event(
                FeedEvent(
                    time: 1, typeName: "T\(10_000 + index)", value: DataLoadedEvent(data: []), receivers: 1))
        }
        source.enqueue(SourceBatch(records: events))
        dashboard.update(now: 1)
        _ = rendered(dashboard, width: 150, height: 45, now: 1)
        #expect(dashboard.shown.rows.last?.isOtherTypes == true)
        // Focus on the event types, the row above the wildcard row (the last) selected.
        while dashboard.focusTitle != "Event types" { _ = dashboard.handle(.tab) }
        _ = dashboard.handle(.end)
        _ = dashboard.handle(.up)
        _ = rendered(dashboard, width: 150, height: 45, now: 1)
        // A filter set first, by Enter on a type's row, is cleared by Enter on this one.
        _ = dashboard.handle(.up)
        _ = dashboard.handle(.enter)
        #expect(dashboard.filter != nil)
        _ = dashboard.handle(.down)
        _ = dashboard.handle(.enter)
        #expect(dashboard.filter == nil)
        let grid = rendered(dashboard, width: 150, height: 45, now: 1)
        #expect(grid.text.contains(DashboardState.otherTypesName), "\(grid.text)")
    }

    @Test("a change of a count by Int.max is shortened with a unit, and only the value takes its style")
    func hugeChangesAreShortened() throws {
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        let snapshot = { (live: Int, reclaimed: Int) in
            BusSnapshot(
                busName: "app",
                eventTypes: [
                    EventTypeStatistics(
                        typeName: "Tick", liveSubscribers: live, reclaimedSubscribers: reclaimed)
                ],
                wildcardObservers: 0)
        }
        source.enqueue(SourceBatch(snapshot: snapshot(.max, 0)))
        dashboard.update(now: 1)
        source.enqueue(SourceBatch(snapshot: snapshot(0, .max)))
        dashboard.update(now: 2)
        let grid = rendered(dashboard, width: 150, height: 45, now: 2.5)
        let y = try #require((0..<grid.height).first { grid.row($0).hasPrefix("Tick") })
        let row = grid.row(y)
        #expect(row.contains("▼9.2E"), "\(row)")
        #expect(!row.contains("775807"), "\(row)")
        // RECL, just reclaimed, is reversed: its value, not the blank column before it.
        let columns = TableColumns(width: 150)
        let reclaimedX =
            columns.subscribersX + 1 + TableColumns.wideSubscriberWidths[0]
            + TableColumns.wideSubscriberWidths[1]
        let reclaimedWidth = TableColumns.wideSubscriberWidths[2]
        #expect(grid[reclaimedX, y].style.reverse == false)
        #expect(grid[reclaimedX + reclaimedWidth - 1, y].style.reverse == true)
    }

    @Test(
        "an app that restarted behind one socket is counted as a fleet's apps are: both processes' totals, under its bus's name"
    )
    func aRestartedAppsProcessesAddUp() throws {
        func snapshot(published: Int, live: Int, at time: Double) -> FeedRecord {
            .snapshot(
                FeedSnapshot(
                    time: time,
                    snapshot: BusSnapshot(
                        busName: "checkout",
                        eventTypes: [
                            EventTypeStatistics(typeName: "Tick", liveSubscribers: live, published: published)
                        ],
                        wildcardObservers: 0)))
        }
        var state = DashboardState()
        // Given a process that published 9 Ticks and went away
        state.apply(
            SourceBatch(records: [
                .hello(FeedHello(pid: 7, process: "checkout", bus: "checkout", time: 1)),
                snapshot(published: 9, live: 2, at: 1),
                .detached(FeedDetached(time: 2, pid: 7, process: "checkout", bus: "checkout")),
            ]), at: 2)
        // When the next process behind the socket has published 4, with 1 subscriber live
        state.apply(
            SourceBatch(
                records: [
                    .hello(FeedHello(pid: 8, process: "checkout", bus: "checkout", time: 3)),
                    snapshot(published: 4, live: 1, at: 3),
                ], countersRestarted: true), at: 3)
        // Then the counts add up both, what is live is the new process's, and the bus keeps its name
        let row = try #require(state.rows.first { $0.name == "Tick" })
        #expect(row.published == 13)
        #expect(row.subscribers.counts.live == 1)
        #expect(state.busName == "checkout")
        #expect(state.shownSnapshot?.busName == "checkout")
        #expect(state.shownSnapshot?.eventTypes.first?.published == 13)
    }
}
