internal import BusMonitor
internal import BusWire
internal import EventBus

/// One process of a fleet as the Fleet pane shows it.
struct FleetRow {
    var member: FleetMember
    /// Events received from it per second, from its `eventsReceived` readings.
    var meter: RateMeter

    /// Live subscriptions of its bus (wildcard observers included), when it sends snapshots.
    var liveSubscriptions: Int? { counted?.totalLiveSubscribers }
    /// Its bus's leak suspects, when it sends snapshots.
    var leakSuspects: Int? { counted?.leakSuspects.count }
    /// Its newest snapshot as the other panes count it: a gone app keeps its totals, not what
    /// it had live, so its row says 0 where the Observers pane no longer counts it.
    private var counted: BusSnapshot? {
        member.presence == .gone ? member.snapshot?.retired : member.snapshot
    }
    /// Whether its bridge reports anything other than being connected.
    var bridgeIsDown: Bool { member.bridgeState.map { $0 != "connected" } ?? false }
}

/// What the dashboard knows of the processes of a fleet, for a source that watches several:
/// the members as the source last sent them, sorted by app, host and pid, with a rate meter
/// each.
///
/// A source sends the whole list only when it changed, so the meters read the newest list every
/// batch: an app that falls silent shows its rate falling to zero.
struct FleetTracker {
    /// The members, sorted by app, then host, then pid.
    private(set) var rows: [FleetRow] = []
    /// App names that more than one member has: the log names those members in full.
    private(set) var sharedAppNames: Set<String> = []

    /// Members that are quiet.
    var quietCount: Int { rows.filter { $0.member.presence == .quiet }.count }
    /// Members that are gone.
    var goneCount: Int { rows.filter { $0.member.presence == .gone }.count }

    /// Takes the source's newest list; a member first seen after the dashboard's first batch
    /// counts from zero at `previousReading`, so its first events show in its rate, while the
    /// members of the first list count from what they had.
    mutating func take(_ members: [FleetMember], previousReading: Double?) {
        var meters: [EventOrigin: RateMeter] = [:]
        for row in rows { meters[row.member.origin] = row.meter }
        rows = members.sorted(by: Self.order).map { member in
            let meter =
                meters[member.origin] ?? previousReading.map { RateMeter(startingAt: 0, time: $0) }
                ?? RateMeter()
            return FleetRow(member: member, meter: meter)
        }
        var seen: Set<String> = []
        var shared: Set<String> = []
        for row in rows where !seen.insert(row.member.origin.app).inserted {
            shared.insert(row.member.origin.app)
        }
        sharedAppNames = shared
    }

    /// Reads every member's event count into its meter at `time`, on the source's clock.
    mutating func record(at time: Double) {
        for index in rows.indices {
            rows[index].meter.record(total: rows[index].member.eventsReceived, at: time)
        }
    }

    /// How the log and a filter name `origin`: the app name, or `app@host:pid` when another
    /// member has the same app name.
    func label(for origin: EventOrigin) -> String {
        sharedAppNames.contains(origin.app) ? origin.description : origin.app
    }

    /// The row of `origin`, if it is a member.
    func index(of origin: EventOrigin) -> Int? {
        rows.firstIndex { $0.member.origin == origin }
    }

    private static func order(_ a: FleetMember, _ b: FleetMember) -> Bool {
        (a.origin.app, a.origin.host, a.origin.pid) < (b.origin.app, b.origin.host, b.origin.pid)
    }
}
