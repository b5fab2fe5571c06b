import BusMonitor
import BusWire
import EventBus
import Foundation
import ScreenGrid
import TestSupport
import Testing

@testable import Dashboard

let checkout = EventOrigin(app: "checkout", host: "web-1", pid: 4242)
let inventory = EventOrigin(app: "inventory", host: "web-2", pid: 5151)
let search = EventOrigin(app: "search", host: "web-1", pid: 6161)

/// A snapshot of an app's bus with `live` subscriptions of one type, a wildcard observer, and
/// `suspects` leak suspects.
func memberSnapshot(live: Int, suspects: Int = 0) -> BusSnapshot {
    BusSnapshot(
        busName: "app", eventTypes: [statistics("UserLoggedInEvent", live: live, published: 10)],
        wildcardObservers: 1,
        leakSuspects: (0..<suspects).map {
            LeakSuspect(
                observerID: UInt64($0), className: "CartScreen", reason: "closed", overdue: .seconds(2),
                subscriptions: ["UserLoggedInEvent"])
        })
}

/// Three processes, listed out of order: checkout (active, 6 subscriptions, bridge connected),
/// inventory (quiet, a leak suspect, its bridge reconnecting with 12 events dropped) and search
/// (gone, no snapshots, no bridge state).
func threeAppFleet(lastSeen: Double, checkoutEvents: Int = 0, inventoryEvents: Int = 0) -> [FleetMember] {
    [
        FleetMember(
            origin: search, presence: .gone, lastSeen: lastSeen - 30, eventsReceived: 7),
        FleetMember(
            origin: inventory, presence: .quiet, lastSeen: lastSeen - 4, eventsReceived: inventoryEvents,
            snapshot: memberSnapshot(live: 2, suspects: 1), bridgeState: "reconnecting", bridgeDropped: 12),
        FleetMember(
            origin: checkout, presence: .active, lastSeen: lastSeen, eventsReceived: checkoutEvents,
            snapshot: memberSnapshot(live: 5), bridgeState: "connected"),
    ]
}

/// An event published by `origin`, its payload as a tap sends it.
func event(from origin: EventOrigin, _ name: String, at time: Double) -> FeedEvent {
    FeedEvent(
        sequence: 0, time: time, typeName: "UserLoggedInEvent",
        payload: .fields(json: #"{"userName":"\#(name)"}"#), receivers: 1,
        origin: origin)
}

/// The Fleet pane, the log's app column, filtering by app and the header's fleet size, read off
/// the in-memory grid.
@Suite("Fleet pane")
struct FleetPaneTests {
    /// A fleet watched for three seconds: checkout publishes 20 events a second throughout;
    /// inventory 10 in the first second, then falls quiet; search is gone.
    static func dashboard(observerData: Bool = false) -> (SourceDashboard, ScriptedSource, Double) {
        let source = ScriptedSource(title: "nats://127.0.0.1:4222", supportedCommands: [])
        let dashboard = SourceDashboard(source: source)
        source.enqueue(SourceBatch(status: "live", fleet: threeAppFleet(lastSeen: startTime)))
        dashboard.update(now: startTime)
        var checkoutEvents = 0
        var inventoryEvents = 0
        for second in 1...3 {
            let now = startTime + Double(second)
            var events: [FeedEvent] = []
            for index in 0..<20 {
                events.append(
                    event(from: checkout, "c\(checkoutEvents + index)", at: now - 1 + Double(index) / 20))
            }
            checkoutEvents += 20
            if second == 1 {
                for index in 0..<10 {
                    events.append(
                        event(from: inventory, "i\(index)", at: now - 1 + Double(index) / 10 + 0.01))
                }
                inventoryEvents = 10
            }
            events.sort { $0.time < $1.time }
            source.enqueue(
                SourceBatch(
                    events: events,
                    snapshot: observerData && second == 3 ? ObserversPaneTests.snapshot() : nil,
                    fleet: threeAppFleet(
                        lastSeen: now, checkoutEvents: checkoutEvents, inventoryEvents: inventoryEvents)))
            dashboard.update(now: now)
        }
        return (dashboard, source, startTime + 3)
    }

    /// The screen's row that starts with `prefix`.
    private func row(_ prefix: String, in grid: CellGrid) throws -> (text: String, y: Int) {
        let y = try #require((0..<grid.height).first { grid.row($0).hasPrefix(prefix) }, "\(grid.text)")
        return (grid.row(y), y)
    }

    /// The style of the first cell of `text` in row `y`.
    private func style(of text: String, in grid: CellGrid, row y: Int) throws -> CellStyle {
        let row = grid.row(y)
        let start = try #require(row.firstRange(of: text), "\(text) in \(row)").lowerBound
        return grid[row.distance(from: row.startIndex, to: start), y].style
    }

    @Test func thePaneListsEveryProcessSortedWithItsStateRateAndBridge() throws {
        // Given a fleet of three, one quiet and one gone
        let (dashboard, _, now) = Self.dashboard()
        let grid = rendered(dashboard, width: 100, height: 30, now: now)

        // Then the Fleet pane lists them by app, each with its numbers
        let titles = try row("APP", in: grid)
        #expect(
            titles.text.split(separator: " ")
                == ["APP", "HOST", "PID", "STATE", "EV/S", "EVENTS", "SUBS", "LEAKS", "BRIDGE"])
        let checkoutRow = try row("checkout", in: grid)
        let inventoryRow = try row("inventory", in: grid)
        let searchRow = try row("search", in: grid)
        #expect(
            checkoutRow.y == titles.y + 1 && inventoryRow.y == titles.y + 2 && searchRow.y == titles.y + 3)
        // 20 events a second, read from the growth of eventsReceived; 5 live + 1 wildcard.
        #expect(
            checkoutRow.text.split(separator: " ")
                == ["checkout", "web-1", "4242", "active", "20", "60", "6", "0", "connected"])
        // Quiet for two seconds: its rate has fallen to zero.
        #expect(
            inventoryRow.text.split(separator: " ", maxSplits: 8)
                == ["inventory", "web-2", "5151", "quiet", "0.0", "10", "3", "1", "reconnecting, dropped 12"])
        #expect(
            searchRow.text.split(separator: " ") == [
                "search", "web-1", "6161", "gone", "0.0", "7", "-", "-", "-",
            ])

        // Quiet in yellow, gone greyed from end to end, a bridge that is not connected in red,
        // with its drops, and a leak suspect in red
        #expect(try style(of: "quiet", in: grid, row: inventoryRow.y).color == .yellow)
        for text in ["search", "gone", "7"] {
            #expect(try style(of: text, in: grid, row: searchRow.y).dim)
        }
        let reconnecting = try style(of: "reconnecting", in: grid, row: inventoryRow.y)
        #expect(reconnecting.color == .red && reconnecting.bold)
        #expect(try style(of: "dropped 12", in: grid, row: inventoryRow.y).color == .red)
        #expect(try style(of: "connected", in: grid, row: checkoutRow.y).color == .green)
        // The pane's title rule and the header give the fleet's size
        #expect(grid.text.contains("Fleet ─ 3 apps, 1 quiet, 1 gone"))
        #expect(grid.row(0).contains("3 apps, 1 quiet, 1 gone"), "\(grid.row(0))")
        #expect(try style(of: "3 apps", in: grid, row: 0).color == .yellow)
    }

    @Test("a fleet all in one state says so, not \"1 app, 1 gone\", which reads as two apps")
    func aFleetAllGoneOrQuiet() throws {
        func header(_ members: [FleetMember]) -> String {
            let source = ScriptedSource(title: "listening", supportedCommands: [])
            let dashboard = SourceDashboard(source: source)
            source.enqueue(SourceBatch(status: "live", fleet: members))
            dashboard.update(now: startTime)
            return rendered(dashboard, width: 120, height: 30, now: startTime).row(0)
        }
        let gone = FleetMember(origin: search, presence: .gone, lastSeen: startTime - 30, eventsReceived: 7)
        let quiet = FleetMember(
            origin: inventory, presence: .quiet, lastSeen: startTime - 6, eventsReceived: 3)
        #expect(header([gone]).contains("1 app, gone"), "\(header([gone]))")
        #expect(header([quiet]).contains("1 app, quiet"))
        let alsoGone = FleetMember(
            origin: checkout, presence: .gone, lastSeen: startTime - 31, eventsReceived: 1)
        #expect(header([gone, alsoGone]).contains("2 apps, all gone"))
        #expect(header([gone, quiet]).contains("2 apps, 1 quiet, 1 gone"))
    }

    @Test func aGoneAppsRowKeepsNoLiveSubscriptionsOrLeaks() throws {
        let source = ScriptedSource(title: "listening", supportedCommands: [])
        let dashboard = SourceDashboard(source: source)
        var member = FleetMember(
            origin: checkout, presence: .active, lastSeen: startTime, eventsReceived: 9,
            snapshot: memberSnapshot(live: 5, suspects: 2), bridgeState: "connected")
        source.enqueue(SourceBatch(status: "live", fleet: [member]))
        dashboard.update(now: startTime)
        let live = try row("checkout", in: rendered(dashboard, width: 120, height: 30, now: startTime)).text
        #expect(live.contains(" 6     2 connected"), "\(live)")
        // Gone, as the Observers pane and the header count it: what it had live went with it.
        member.presence = .gone
        member.bridgeState = "closed"
        source.enqueue(SourceBatch(status: "live", fleet: [member]))
        dashboard.update(now: startTime + 1)
        let gone = try row("checkout", in: rendered(dashboard, width: 120, height: 30, now: startTime + 1))
            .text
        #expect(gone.contains(" 0     0 closed"), "\(gone)")
        #expect(gone.contains(" 9 "), "its events stay: \(gone)")
    }

    @Test func aGoneAppWhoseBridgeNeverSaidItClosedShowsItsLastStateAsPast() throws {
        // Given an app killed with its bridge connected: gone by silence
        let source = ScriptedSource(title: "nats://127.0.0.1:4222", supportedCommands: [])
        let dashboard = SourceDashboard(source: source)
        let member = FleetMember(
            origin: checkout, presence: .gone, lastSeen: startTime - 30, eventsReceived: 9,
            snapshot: memberSnapshot(live: 5), bridgeState: "connected")
        source.enqueue(SourceBatch(status: "live", fleet: [member]))
        dashboard.update(now: startTime)
        let grid = rendered(dashboard, width: 120, height: 30, now: startTime)
        // Then its bridge is not shown as connected now
        let gone = try row("checkout", in: grid)
        #expect(gone.text.hasSuffix("was connected"), "\(gone.text)")
        #expect(try style(of: "was connected", in: grid, row: gone.y).dim)
    }

    @Test func aSingleAppShowsNoFleetPaneAndNoAppColumn() throws {
        // Given a source that watches one app
        let dashboard = dashboardWithHundredLogLines()
        let grid = rendered(dashboard, width: 100, height: 30, now: startTime)

        // Then there is no Fleet pane: the tables start under the header, as before
        #expect(!grid.text.contains("Fleet"))
        #expect(!grid.row(0).contains("apps"))
        let layout = try #require(dashboard.layout)
        #expect(layout.panes[DashboardController.fleetPane].height == 0)
        #expect(layout.panes[DashboardController.tablePane].y == 1)
        #expect(layout.logAppWidth == 0)
        // and the log's type column is where it was, right after the time
        let line = try row(TextFormat.clock(startTime), in: grid).text
        #expect(
            line.dropFirst(13).hasPrefix("DataLoadedEvent")
                || line.dropFirst(13).hasPrefix("UserLoggedInEvent"),
            "\(line)")
        // and Tab never stops on it
        var titles: Set<String> = []
        for _ in 0..<10 {
            _ = dashboard.handle(.tab)
            titles.insert(dashboard.focusTitle)
        }
        #expect(titles == ["Event types", "Subscribers", "Observers", "Log"])
        _ = dashboard.handle(.character("?"))
        let help = rendered(dashboard, width: 120, height: 40, now: startTime).text
        #expect(!help.contains("fleet"))
        #expect(!help.contains("BRIDGE"))
    }

    @Test func theLogNamesEachEventsAppAndTheFilterMatchesIt() throws {
        // Given the fleet's log
        let (dashboard, _, now) = Self.dashboard()
        let grid = rendered(dashboard, width: 100, height: 30, now: now)

        // Then each event line has its app between the time and the type
        let newest = try #require((0..<grid.height).map(grid.row).last { $0.contains("UserLoggedInEvent") })
        #expect(newest.split(separator: " ").prefix(3).dropFirst() == ["checkout", "UserLoggedInEvent"])
        #expect(try #require(dashboard.layout).logAppWidth == 10)

        // When filtering by text that only an app's name holds
        for character in "/inventory" { _ = dashboard.handle(.character(character)) }
        _ = dashboard.handle(.enter)
        let filtered = rendered(dashboard, width: 100, height: 30, now: now)

        // Then the log keeps that app's lines, and no other
        let lines = (0..<filtered.height).map(filtered.row).filter { $0.contains(#"{"userName""#) }
        #expect(lines.count == 10)
        #expect(lines.allSatisfy { $0.contains(" inventory ") })
        #expect(filtered.text.contains("10 of 70 match"))

        // And the details of a line give its full origin
        _ = dashboard.handle(.escape)
        _ = dashboard.handle(.enter)
        let details = rendered(dashboard, width: 100, height: 30, now: now).text
        #expect(details.contains("origin    app checkout, host web-1, pid 4242"), "\(details)")
    }

    @Test func enterOnAnAppFiltersTheLogToItAndEscClearsIt() throws {
        // Given the Fleet pane focused, inventory selected
        let (dashboard, _, now) = Self.dashboard()
        _ = rendered(dashboard, width: 100, height: 30, now: now)
        while dashboard.focusTitle != "Fleet" { _ = dashboard.handle(.tab) }
        _ = dashboard.handle(.down)
        var grid = rendered(dashboard, width: 100, height: 30, now: now)
        let selected = try row("inventory", in: grid)
        #expect(grid[0, selected.y].style.reverse)

        // When Enter is pressed
        _ = dashboard.handle(.enter)
        grid = rendered(dashboard, width: 100, height: 30, now: now)

        // Then the log shows that app's events only, and the header says how it is filtered
        #expect(dashboard.filter?.expression == "app:inventory")
        #expect(grid.row(0).contains("filter: app:inventory"))
        #expect(dashboard.visibleLines().count == 10)
        // When Esc is pressed, the filter goes
        _ = dashboard.handle(.escape)
        #expect(dashboard.filter == nil)
        #expect(dashboard.visibleLines().count == 70)
    }

    @Test func membersOfOneAppAreToldApartByHostAndPid() throws {
        // Given two processes of checkout
        let other = EventOrigin(app: "checkout", host: "web-2", pid: 77)
        let source = ScriptedSource(title: "nats://127.0.0.1:4222", supportedCommands: [])
        let dashboard = SourceDashboard(source: source)
        source.enqueue(
            SourceBatch(
                events: [
                    event(from: checkout, "a", at: startTime), event(from: other, "b", at: startTime + 0.5),
                ],
                fleet: [
                    FleetMember(origin: other, lastSeen: startTime, eventsReceived: 1),
                    FleetMember(origin: checkout, lastSeen: startTime, eventsReceived: 1),
                ]))
        dashboard.update(now: startTime + 1)
        var grid = rendered(dashboard, width: 100, height: 30, now: startTime + 1)

        // Then the log names each in full
        #expect(grid.text.contains("checkout@web-1:4242 UserLoggedInEvent"), "\(grid.text)")
        #expect(grid.text.contains("checkout@web-2:77   UserLoggedInEvent"))
        #expect(try #require(dashboard.layout).logAppWidth == 20)
        // and Enter on the second (sorted by host) keeps that process's lines only
        while dashboard.focusTitle != "Fleet" { _ = dashboard.handle(.tab) }
        _ = dashboard.handle(.down)
        _ = dashboard.handle(.enter)
        #expect(dashboard.filter?.expression == "app:checkout@web-2:77")
        #expect(dashboard.visibleLines().count == 1)
        // while typing the app's name keeps both
        _ = dashboard.handle(.escape)
        for character in "/app:checkout" { _ = dashboard.handle(.character(character)) }
        _ = dashboard.handle(.enter)
        #expect(dashboard.visibleLines().count == 2)
        // A narrow screen has no HOST or PID column, so the pane adds the pid to the name
        grid = rendered(dashboard, width: 60, height: 16, now: startTime + 1)
        #expect(grid.text.contains("check…:4242"), "\(grid.text)")
        #expect(grid.text.contains("checkout:77"))
    }

    @Test func anAppFilterMatchesWholeNames() throws {
        let filter = try #require(LogFilter.app("web"))
        let webshop = EventOrigin(app: "webshop", host: "h", pid: 1)
        let web = EventOrigin(app: "Web", host: "h", pid: 2)
        #expect(filter.isAppFilter)
        #expect(!filter.shows(typeName: "web", origin: webshop, detail: { "web" }))
        #expect(filter.shows(typeName: "T", origin: web, detail: { "" }))
        #expect(!filter.shows(typeName: "web", detail: { "web" }))
        let hidden = try #require(LogFilter("!app:web"))
        #expect(!hidden.shows(typeName: "T", origin: web, detail: { "" }))
        #expect(hidden.shows(typeName: "T", origin: webshop, detail: { "" }))
        #expect(LogFilter("app:") == nil)
    }

    @Test func aNewMembersFirstEventsShowInItsRate() {
        // Given a fleet of one, then a second process that arrives with 10 events
        let source = ScriptedSource(supportedCommands: [])
        let dashboard = SourceDashboard(source: source)
        source.enqueue(
            SourceBatch(fleet: [FleetMember(origin: checkout, lastSeen: startTime, eventsReceived: 500)]))
        dashboard.update(now: startTime)
        source.enqueue(
            SourceBatch(
                events: [event(from: search, "s", at: startTime + 1)],
                fleet: [
                    FleetMember(origin: checkout, lastSeen: startTime, eventsReceived: 500),
                    FleetMember(origin: search, lastSeen: startTime + 1, eventsReceived: 10),
                ]))
        dashboard.update(now: startTime + 1)
        let rows = dashboard.shown.fleet?.rows ?? []
        let now = dashboard.shown.sourceTime(at: startTime + 1)

        // Then the newcomer's 10 events are a rate, and what the first had before is not
        #expect(rows.map(\.member.origin) == [checkout, search])
        #expect(rows[1].meter.rate(at: now) == 10)
        #expect(rows[0].meter.rate(at: now) == 0)
    }

    @Test(arguments: [
        (100, 30, false), (100, 30, true), (120, 40, false), (120, 40, true), (60, 16, false), (60, 16, true),
    ])
    func theLayoutFitsEveryPaneWithoutOverlap(width: Int, height: Int, observerData: Bool) throws {
        // Given a fleet of three at a size busmon accepts, with or without observer data
        let (dashboard, _, now) = Self.dashboard(observerData: observerData)
        let grid = rendered(dashboard, width: width, height: height, now: now)
        let layout = try #require(dashboard.layout)

        // Then the panes stack under the header and above the bar, without a gap or an overlap
        var y = 1
        for rect in layout.panes {
            #expect(rect.y == y)
            y = rect.maxY
        }
        #expect(y == layout.bar.y)
        // and each has room to be used: a row of apps at least, the tables' two rows, the log's lines
        let fleet = layout.panes[DashboardController.fleetPane]
        #expect(fleet.height >= 3)
        #expect(layout.contentRows[DashboardController.tablePane] >= 2)
        #expect(layout.contentRows[DashboardController.observersPane] >= (observerData ? 2 : 0))
        #expect(layout.contentRows[DashboardController.logPane] >= 2)
        // At 100x30 and larger all three apps are listed and the log keeps most of its rows
        if height >= 30 {
            #expect(layout.contentRows[DashboardController.fleetPane] == 3)
            #expect(layout.contentRows[DashboardController.logPane] >= 7)
        }
        // The screen shows it: the Fleet title on its rule, the log's title, the key bar
        #expect(grid.row(fleet.y).contains("Fleet"))
        #expect(grid.row(layout.panes[DashboardController.logPane].y).contains("Log"))
        #expect(grid.row(height - 1).hasPrefix("q Quit"))
        #expect(grid.row(fleet.y + 2).hasPrefix("checkout"))
    }
}
