import BusMonitor
import BusWire
import EventBus
import Foundation
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

/// The Observers pane, the header's leak suspects, a class's objects, and lifecycle lines per
/// object, read off the in-memory grid.
@Suite("Observers pane")
struct ObserversPaneTests {
    static let login = ["UserLoggedInEvent", "DataLoadedEvent", "SessionExpiredEvent"]

    /// A snapshot of an app with five observer classes, two leak suspects (ProfileScreen #7, the
    /// longest overdue, and SettingsScreen #12), and LoginScreen at `loginLive` objects, #41
    /// among them while `with41`.
    static func snapshot(loginLive: Int = 2, with41: Bool = true, inboxDead30: Bool = true) -> BusSnapshot {
        var instances = [
            ObserverInstance(
                observerID: 7, className: "ProfileScreen", age: .seconds(14), subscriptions: login.dropLast(),
                state: .live, leakReason: "screen closed", overdue: .seconds(5)),
            ObserverInstance(
                observerID: 12, className: "SettingsScreen", age: .seconds(9),
                subscriptions: ["UserLoggedOutEvent"], state: .live, leakReason: "",
                overdue: .milliseconds(2_300)),
            ObserverInstance(
                observerID: 20, className: "ProfileScreen", age: .seconds(3),
                subscriptions: ["UserLoggedInEvent"],
                state: .live),
            ObserverInstance(
                observerID: 1, className: "AppServices", age: .seconds(75), subscriptions: ["*"], state: .live
            ),
            ObserverInstance(
                observerID: 44, className: "LoginScreen", age: .milliseconds(800), subscriptions: login,
                state: .live),
        ]
        if with41 {
            instances.append(
                ObserverInstance(
                    observerID: 41, className: "LoginScreen", age: .seconds(4), subscriptions: login,
                    state: .live))
        }
        if inboxDead30 {
            instances.append(
                ObserverInstance(
                    observerID: 30, className: "InboxViewController", age: .seconds(6),
                    subscriptions: ["DataLoadedEvent"], state: .dead))
        }
        return BusSnapshot(
            busName: "app", eventTypes: [statistics("UserLoggedInEvent", live: 9, published: 40)],
            wildcardObservers: 1,
            observers: [
                ObserverStatistics(className: "AppServices", liveInstances: 1, liveSubscriptions: 1),
                ObserverStatistics(
                    className: "InboxViewController", liveInstances: 0, deadInstances: inboxDead30 ? 1 : 0,
                    deadSubscriptions: inboxDead30 ? 1 : 0, reclaimedInstances: inboxDead30 ? 12 : 13),
                ObserverStatistics(
                    className: "LoginScreen", liveInstances: loginLive, liveSubscriptions: 3 * loginLive,
                    reclaimedInstances: 40),
                ObserverStatistics(
                    className: "ProfileScreen", liveInstances: 2, liveSubscriptions: 3, reclaimedInstances: 9,
                    leakSuspects: 1),
                ObserverStatistics(
                    className: "SettingsScreen", liveInstances: 1, liveSubscriptions: 1, leakSuspects: 1),
            ],
            leakSuspects: [
                LeakSuspect(
                    observerID: 7, className: "ProfileScreen", reason: "screen closed", overdue: .seconds(5),
                    subscriptions: Array(login.dropLast())),
                LeakSuspect(
                    observerID: 12, className: "SettingsScreen", reason: "", overdue: .milliseconds(2_300),
                    subscriptions: ["UserLoggedOutEvent"]),
            ],
            instances: instances)
    }

    /// A dashboard that has seen six seconds of snapshots, LoginScreen's live objects going
    /// 1, 2, 3, 3, 2, 2, and the leak report of ProfileScreen #7.
    static func dashboard() -> (SourceDashboard, ScriptedSource, Double) {
        let source = ScriptedSource(title: "simulated app (seed 7)")
        let dashboard = SourceDashboard(source: source)
        var now = startTime
        for live in [1, 2, 3, 3, 2, 2] {
            now += 1
            source.enqueue(SourceBatch(snapshot: snapshot(loginLive: live), status: "live"))
            dashboard.update(now: now)
        }
        source.enqueue(
            SourceBatch(
                lifecycle: [
                    FeedLifecycle(
                        time: now + 0.1,
                        change: SubscriberLifecycleEvent(
                            kind: .leakSuspected, eventTypeName: "", observerTypeName: "ProfileScreen",
                            observerID: 7, reason: "screen closed", expectedWithin: .seconds(5),
                            overdue: .zero,
                            subscriptions: Array(login.dropLast())))
                ], snapshot: snapshot()))
        now += 0.2
        dashboard.update(now: now)
        return (dashboard, source, now)
    }

    /// The row of `grid` starting with `prefix`.
    private func row(_ grid: CellGrid, startingWith prefix: String) throws -> (String, Int) {
        let y = try #require((0..<grid.height).first { grid.row($0).hasPrefix(prefix) }, "\(grid.text)")
        return (grid.row(y), y)
    }

    @Test func thePaneShowsOneRowPerClassWithSuspectsInBoldRed() throws {
        let (dashboard, _, now) = Self.dashboard()
        let grid = rendered(dashboard, width: 100, height: 30, now: now)
        #expect(grid.text.contains("Observers"))
        let (header, _) = try row(grid, startingWith: "CLASS")
        #expect(header.contains("LIVE  DEAD RECLAIMED  SUBS LEAKS LIVE, LAST"))

        let (login, _) = try row(grid, startingWith: "LoginScreen ")
        #expect(login.split(separator: " ").prefix(6) == ["LoginScreen", "2", "0", "40", "6", "0"])
        // The sparkline follows the live objects: 1, 2, 3, 3, 2, then this second.
        #expect(login.hasSuffix("▃▆██▆"), "\(login)")

        let (profile, profileY) = try row(grid, startingWith: "ProfileScreen ")
        #expect(profile.split(separator: " ").prefix(6) == ["ProfileScreen", "2", "0", "9", "3", "1"])
        let profileStyle = grid[0, profileY].style
        #expect(profileStyle.bold && profileStyle.color == .red)
        let (_, loginY) = try row(grid, startingWith: "LoginScreen ")
        #expect(grid[0, loginY].style.color != .red)
        // A dead object's count stands out.
        let (inbox, inboxY) = try row(grid, startingWith: "InboxViewController ")
        #expect(inbox.split(separator: " ")[2] == "1")
        #expect(grid[ObserverColumns(width: 100).name + 11, inboxY].style.color == .yellow)
    }

    @Test func theHeaderCountsSuspectsAndOJumpsToThem() throws {
        let (dashboard, _, now) = Self.dashboard()
        var grid = rendered(dashboard, width: 100, height: 30, now: now)
        let header = grid.row(0)
        let start = try #require(header.range(of: "2 leak suspects"), "\(header)").lowerBound
        let style = grid[header.distance(from: header.startIndex, to: start), 0].style
        #expect(style.bold && style.color == .red)
        #expect(grid.row(29).contains("o Suspects"))

        // o focuses the pane with the longest-overdue suspect's class selected, again the next.
        #expect(dashboard.focusTitle == "Log")
        _ = dashboard.handle(.character("o"))
        #expect(dashboard.focusTitle == "Observers")
        grid = rendered(dashboard, width: 100, height: 30, now: now)
        let (_, profileY) = try row(grid, startingWith: "ProfileScreen ")
        #expect(grid[3, profileY].style.reverse)
        _ = dashboard.handle(.character("o"))
        grid = rendered(dashboard, width: 100, height: 30, now: now)
        let (_, settingsY) = try row(grid, startingWith: "SettingsScreen ")
        #expect(grid[3, settingsY].style.reverse)
        #expect(!grid[3, profileY].style.reverse)
        _ = dashboard.handle(.character("o"))
        #expect(dashboard.selectedClass == "ProfileScreen")
    }

    @Test func enterListsAClassesObjectsWithASuspectsReasonAndEscGoesBack() throws {
        let (dashboard, _, now) = Self.dashboard()
        _ = dashboard.handle(.character("o"))
        _ = dashboard.handle(.enter)
        var grid = rendered(dashboard, width: 100, height: 30, now: now)
        #expect(grid.text.contains("Observers › ProfileScreen"))
        #expect(grid.text.contains("1 leak suspect, 2 live; Enter/Esc back"))
        let (suspect, suspectY) = try row(grid, startingWith: "#7 ")
        #expect(suspect.contains("14.0 s"))
        #expect(suspect.contains("leak suspect"))
        #expect(suspect.contains(#"overdue 5.0 s after "screen closed"; UserLoggedInEvent, DataL"#))
        #expect(grid[0, suspectY].style.color == .red)
        // Suspects first, then the others newest first.
        let (live, liveY) = try row(grid, startingWith: "#20 ")
        #expect(liveY == suspectY + 1)
        #expect(live.contains("live"))
        #expect(live.hasSuffix("UserLoggedInEvent"))

        // Esc goes back to the classes, the class still selected; Enter twice too.
        _ = dashboard.handle(.escape)
        grid = rendered(dashboard, width: 100, height: 30, now: now)
        #expect(!grid.text.contains("Observers › "))
        #expect(dashboard.selectedClass == "ProfileScreen")
        _ = dashboard.handle(.enter)
        #expect(dashboard.openClass == "ProfileScreen")
        _ = dashboard.handle(.enter)
        #expect(dashboard.openClass == nil)

        // A suspect with no reason given, at the smallest size.
        _ = dashboard.handle(.character("o"))
        _ = dashboard.handle(.enter)
        grid = rendered(dashboard, width: 60, height: 16, now: now)
        let (other, _) = try row(grid, startingWith: "#12 ")
        #expect(other.contains("leak suspect  overdue 2.3 s; UserLo"), "\(grid.text)")
    }

    @Test func aReclaimedObjectStaysGreyedForAMomentThenGoes() throws {
        let (dashboard, source, start) = Self.dashboard()
        // LoginScreen is the third class.
        _ = dashboard.handle(.character("o"))
        dashboard.moveClassSelection(to: 2)
        _ = dashboard.handle(.enter)
        #expect(dashboard.openClass == "LoginScreen")

        // #41 is reclaimed, reported once per event type; InboxViewController #30, dead, leaves
        // the listing without a report.
        source.enqueue(
            SourceBatch(
                lifecycle: Self.login.map { type in
                    FeedLifecycle(
                        time: start + 0.1,
                        change: SubscriberLifecycleEvent(
                            kind: .reclaimed, eventTypeName: type, observerTypeName: "LoginScreen",
                            observerID: 41,
                            deadFor: .milliseconds(12),
                            reclaimedBy: .publish(eventTypeName: "UserLoggedInEvent")))
                }, snapshot: Self.snapshot(loginLive: 1, with41: false, inboxDead30: false)))
        dashboard.update(now: start + 0.2)

        var grid = rendered(dashboard, width: 100, height: 30, now: start + 1)
        let (gone, goneY) = try row(grid, startingWith: "#41 ")
        #expect(gone.contains("reclaimed"))
        #expect(grid[0, goneY].style.dim)
        let (live, liveY) = try row(grid, startingWith: "#44 ")
        #expect(live.contains("live"))
        #expect(!grid[0, liveY].style.dim)
        #expect(liveY < goneY)
        #expect(grid.text.contains("1 live, 1 gone"))
        // The log says it once, for the object.
        #expect(grid.text.contains("• LoginScreen #41 deallocated; 3 subscriptions reclaimed 12 ms later by"))
        let newest = try #require(dashboard.shown.log[dashboard.shown.log.nextSequence - 1])
        #expect(
            newest.detailText
                == ("LoginScreen #41 deallocated; 3 subscriptions reclaimed 12 ms later by a publish of UserLoggedInEvent")
        )
        #expect(dashboard.shown.log.count == 2)

        _ = dashboard.handle(.escape)
        dashboard.moveClassSelection(to: 1)
        _ = dashboard.handle(.enter)
        grid = rendered(dashboard, width: 100, height: 30, now: start + 1)
        let (inbox, inboxY) = try row(grid, startingWith: "#30 ")
        #expect(inbox.contains("reclaimed"))
        #expect(grid[0, inboxY].style.dim)

        // Three seconds later both are gone.
        grid = rendered(dashboard, width: 100, height: 30, now: start + 3.3)
        #expect(!grid.text.contains("\n#30 "))
        #expect(grid.text.contains("no objects of this class are alive"))
        _ = dashboard.handle(.escape)
        dashboard.moveClassSelection(to: 2)
        _ = dashboard.handle(.enter)
        grid = rendered(dashboard, width: 100, height: 30, now: start + 3.3)
        #expect(!grid.text.contains("\n#41 "))
        #expect(grid.text.contains("\n#44 "))
    }

    /// ChatScreen with suspects #3 (6 s overdue) and #5 (4 s), `later` seconds on, unless
    /// `without3`, and live objects #10 to #40.
    private static func chatSnapshot(without3: Bool = false, later: Double = 0) -> BusSnapshot {
        let suspects = [(3, 6.0), (5, 4.0)].filter { !without3 || $0.0 != 3 }.map { id, overdue in
            LeakSuspect(
                observerID: UInt64(id), className: "ChatScreen", reason: "screen closed",
                overdue: .milliseconds(Int((overdue + later) * 1000)), subscriptions: ["DataLoadedEvent"])
        }
        let live = (10...40).map {
            ObserverInstance(
                observerID: UInt64($0), className: "ChatScreen", age: .seconds(50 - $0),
                subscriptions: ["DataLoadedEvent"], state: .live)
        }
        let listedSuspects = suspects.map {
            ObserverInstance(
                observerID: $0.observerID, className: "ChatScreen", age: .seconds(60),
                subscriptions: ["DataLoadedEvent"], state: .live, leakReason: $0.reason, overdue: $0.overdue)
        }
        return BusSnapshot(
            busName: "app", eventTypes: [], wildcardObservers: 0,
            observers: [
                ObserverStatistics(
                    className: "ChatScreen", liveInstances: live.count + suspects.count,
                    liveSubscriptions: live.count + suspects.count, leakSuspects: suspects.count)
            ],
            leakSuspects: suspects, instances: listedSuspects + live)
    }

    @Test("a suspect reclaimed while its class is open keeps its place, and the view stays at the top")
    func aReclaimedSuspectKeepsItsPlace() throws {
        // Given a class's objects opened on its longest-overdue suspect, many live objects below
        let source = ScriptedSource(title: "app")
        let dashboard = SourceDashboard(source: source)
        var now = startTime
        source.enqueue(SourceBatch(snapshot: Self.chatSnapshot(), status: "live"))
        dashboard.update(now: now)
        _ = dashboard.handle(.character("o"))
        _ = dashboard.handle(.enter)
        var grid = rendered(dashboard, width: 100, height: 30, now: now)
        let (first, firstY) = try row(grid, startingWith: "#3 ")
        #expect(first.contains("leak suspect"))

        // When the app lets it go (as an app fixing a leak, or capping its leaks, does)
        now += 0.5
        source.enqueue(
            SourceBatch(
                lifecycle: [
                    FeedLifecycle(
                        time: now,
                        change: SubscriberLifecycleEvent(
                            kind: .reclaimed, eventTypeName: "DataLoadedEvent",
                            observerTypeName: "ChatScreen",
                            observerID: 3, deadFor: .milliseconds(5),
                            reclaimedBy: .publish(eventTypeName: "DataLoadedEvent")))
                ], snapshot: Self.chatSnapshot(without3: true)))
        dashboard.update(now: now)
        grid = rendered(dashboard, width: 100, height: 30, now: now)

        // Then it turns "reclaimed" where it stood, the other suspect still next, and the view
        // does not follow it to where its serial would put it among the live objects.
        let (gone, goneY) = try row(grid, startingWith: "#3 ")
        #expect(goneY == firstY, "\(grid.text)")
        #expect(gone.contains("reclaimed"))
        let (suspect, suspectY) = try row(grid, startingWith: "#5 ")
        #expect(suspectY == firstY + 1)
        #expect(suspect.contains("leak suspect"))

        // Nor when the other suspect has been overdue longer than it was when it went.
        now += 2.3
        source.enqueue(SourceBatch(snapshot: Self.chatSnapshot(without3: true, later: 2.8)))
        dashboard.update(now: now)
        grid = rendered(dashboard, width: 100, height: 30, now: now)
        #expect(try row(grid, startingWith: "#3 ").1 == firstY, "\(grid.text)")
        #expect(try row(grid, startingWith: "#5 ").1 == firstY + 1, "\(grid.text)")

        // And once it has gone from the list, the suspect after it takes its place, selected.
        grid = rendered(dashboard, width: 100, height: 30, now: now + ObserverTracker.goneDuration + 0.1)
        let (_, nextY) = try row(grid, startingWith: "#5 ")
        #expect(nextY == firstY, "\(grid.text)")
        #expect(grid[0, nextY].style.reverse)
    }

    @Test func anObjectPushedOutOfAFullListingIsNotCalledReclaimed() {
        // Given a class with more live objects than the listing holds
        var tracker = ObserverTracker()
        func snapshot(_ ids: ClosedRange<UInt64>) -> BusSnapshot {
            BusSnapshot(
                busName: "app", eventTypes: [], wildcardObservers: 0,
                observers: [ObserverStatistics(className: "Row", liveInstances: 60, liveSubscriptions: 60)],
                instances: ids.map {
                    ObserverInstance(
                        observerID: $0, className: "Row", age: .seconds(1), subscriptions: ["A"], state: .live
                    )
                })
        }
        tracker.take(snapshot(1...50), at: startTime, readingTime: startTime)
        // When newer ones push the oldest out
        tracker.take(snapshot(11...60), at: startTime + 1, readingTime: startTime + 1)
        // Then they are not shown as gone
        let rows = tracker.instances(of: "Row", at: startTime + 1)
        #expect(rows.count == 50)
        #expect(rows.allSatisfy { !$0.isGone })
    }

    @Test func leakLinesAreRedAndClearedLinesGreen() throws {
        let (dashboard, source, now) = Self.dashboard()
        source.enqueue(
            SourceBatch(lifecycle: [
                FeedLifecycle(
                    time: now + 0.5,
                    change: SubscriberLifecycleEvent(
                        kind: .leakCleared, eventTypeName: "", observerTypeName: "ProfileScreen",
                        observerID: 7))
            ]))
        dashboard.update(now: now + 1)
        let lines = dashboard.shown.log.sequences.compactMap { dashboard.shown.log[$0]?.detailText }
        #expect(
            lines.contains(
                #"leak suspected: ProfileScreen #7 still alive 5.0 s after "screen closed", subscribed to UserLoggedInEvent, DataLoadedEvent"#
            ))
        let grid = rendered(dashboard, width: 120, height: 40, now: now + 1)
        let suspectedY = try #require(
            (0..<grid.height).first {
                grid.row($0).contains(
                    #"leak suspected: ProfileScreen #7 still alive 5.0 s after "screen closed""#)
            }, "\(grid.text)")
        let clearedY = try #require(
            (0..<grid.height).first { grid.row($0).contains("leak cleared: ProfileScreen #7 deallocated") })
        let suspected = grid[20, suspectedY].style
        #expect(suspected.bold && suspected.color == .red)
        #expect(grid[20, clearedY].style.color == .green)
    }

    @Test(arguments: [(100, 30), (120, 40), (60, 16)])
    func everyPaneHasItsOwnRowsAtEverySize(width: Int, height: Int) throws {
        let (dashboard, _, now) = Self.dashboard()
        let grid = rendered(dashboard, width: width, height: height, now: now)
        let layout = try #require(dashboard.layout)
        // Stacked under the header, one after the other, above the bar, none empty but the
        // Fleet pane, which a single app does not show.
        var y = layout.header.maxY
        for (index, rect) in layout.panes.enumerated() {
            #expect(rect.y == y)
            let isShown = DashboardController.panes[index].isShown(in: dashboard.shown)
            #expect(isShown ? rect.height >= 2 : rect.height == 0)
            #expect(rect.width == width)
            y = rect.maxY
        }
        #expect(y == layout.bar.y)
        #expect(layout.bar.maxY == height)
        // Each pane shows lines: the tables their types, the Observers pane classes, the log lines.
        #expect(layout.contentRows[DashboardController.tablePane] >= 2)
        #expect(layout.contentRows[DashboardController.observersPane] >= 2)
        #expect(layout.contentRows[DashboardController.logPane] >= 3)
        for title in ["Event types", "Subscribers", "Observers", "Log"] {
            #expect(grid.text.contains(" \(title) "), "\(title) at \(width)x\(height)")
        }
        #expect(grid.row(layout.panes[DashboardController.observersPane].y + 1).hasPrefix("CLASS"))
        #expect(grid.row(0).contains("2 leak suspects"))
        #expect((0..<height).allSatisfy { grid.row($0).count <= width })
        if width >= 100 {
            // Every class in view at the usual sizes.
            for name in ["AppServices", "InboxViewController", "LoginScreen", "ProfileScreen"] {
                #expect(grid.text.contains(name + " "), "\(name) at \(width)x\(height)")
            }
        }
        if ProcessInfo.processInfo.environment["BUSMON_PRINT_GRID"] != nil {
            _ = dashboard.handle(.character("o"))
            print(rendered(dashboard, width: width, height: height, now: now).text)
            _ = dashboard.handle(.enter)
            print(rendered(dashboard, width: width, height: height, now: now).text)
        }
    }

    @Test func aSourceWithoutSnapshotsSaysItHasNoObserverData() throws {
        // Given a source that sends lifecycle changes only, one of them a leak report
        let source = ScriptedSource(supportedCommands: [])
        let dashboard = SourceDashboard(source: source)
        source.enqueue(
            SourceBatch(lifecycle: [
                FeedLifecycle(
                    time: startTime,
                    change: SubscriberLifecycleEvent(
                        kind: .subscribed, eventTypeName: "UserLoggedInEvent",
                        observerTypeName: "ProfileScreen",
                        observerID: 7)),
                FeedLifecycle(
                    time: startTime + 6,
                    change: SubscriberLifecycleEvent(
                        kind: .leakSuspected, eventTypeName: "", observerTypeName: "ProfileScreen",
                        observerID: 7,
                        reason: "screen closed", expectedWithin: .seconds(5), overdue: .seconds(1))),
            ]))
        dashboard.update(now: startTime + 6)
        // Then the pane says so, the header still counts the suspect, and its keys do no harm
        var grid = rendered(dashboard, width: 100, height: 30, now: startTime + 6)
        #expect(grid.text.contains("no observer data: no snapshot has come from this source"))
        #expect(grid.row(0).contains("1 leak suspect"))
        _ = dashboard.handle(.character("o"))
        #expect(dashboard.focusTitle == "Observers")
        for key in [DashboardKey.enter, .down, .up, .character("G"), .character("g"), .escape] {
            _ = dashboard.handle(key)
        }
        #expect(dashboard.openClass == nil)
        grid = rendered(dashboard, width: 60, height: 16, now: startTime + 6)
        #expect(grid.text.contains("no observer data"))

        // When it is cleared, the count goes.
        source.enqueue(
            SourceBatch(lifecycle: [
                FeedLifecycle(
                    time: startTime + 7,
                    change: SubscriberLifecycleEvent(
                        kind: .leakCleared, eventTypeName: "", observerTypeName: "ProfileScreen",
                        observerID: 7))
            ]))
        dashboard.update(now: startTime + 7)
        grid = rendered(dashboard, width: 100, height: 30, now: startTime + 7)
        #expect(!grid.row(0).contains("leak suspect"))
    }

    @Test func aLaterReclaimOfTheSameObjectSaysMore() {
        var state = DashboardState()
        func reclaim(
            _ type: String, by cause: SubscriberLifecycleEvent.ReclaimCause, at time: Double
        ) -> SourceBatch {
            SourceBatch(lifecycle: [
                FeedLifecycle(
                    time: time,
                    change: SubscriberLifecycleEvent(
                        kind: .reclaimed, eventTypeName: type, observerTypeName: "InboxViewController",
                        observerID: 5, reclaimedBy: cause))
            ])
        }
        state.apply(
            reclaim("DataLoadedEvent", by: .publish(eventTypeName: "DataLoadedEvent"), at: startTime),
            at: startTime)
        state.apply(reclaim("UserLoggedInEvent", by: .sweep, at: startTime + 0.3), at: startTime + 0.3)
        let lines = state.log.sequences.compactMap { state.log[$0]?.detailText }
        #expect(
            lines == [
                "InboxViewController #5 deallocated; 1 subscription reclaimed by a publish of DataLoadedEvent",
                "InboxViewController #5: 1 more subscription reclaimed by the sweep",
            ])
    }

    @Test func theLiveSparklineCarriesTheLevelBetweenReadings() {
        var history = GaugeHistory()
        history.record(2, at: 100.2)
        history.record(5, at: 100.7)
        history.record(3, at: 103.5)
        // Seconds 99 to 104: nothing yet, the peak of 100, 5 carried, then 3 carried on.
        #expect(history.history(seconds: 6, at: 105.1) == [0, 5, 5, 5, 3, 3])
    }

    @Test("leak reports past the limit are counted, not kept, and their classes listed once each")
    func reportedSuspectsAreBounded() {
        var tracker = ObserverTracker()
        let count = ObserverTracker.maximumReportedSuspects + 7
        for id in 0..<count {
            tracker.apply(
                SubscriberLifecycleEvent(
                    kind: .leakSuspected, eventTypeName: "", observerTypeName: "Screen\(id % 3)",
                    observerID: UInt64(id)),
                at: 1)
        }
        #expect(tracker.suspectCount == count)
        #expect(tracker.suspectClasses.sorted() == ["Screen0", "Screen1", "Screen2"])
        tracker.apply(
            SubscriberLifecycleEvent(
                kind: .leakCleared, eventTypeName: "", observerTypeName: "Screen0", observerID: 0),
            at: 2)
        #expect(tracker.suspectCount == count - 1)
    }
}
