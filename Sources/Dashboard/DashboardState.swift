internal import BusMonitor
internal import BusWire
internal import EventBus

/// Subscription counts of one event type (or of the wildcard observers).
struct SubscriberCounts: Equatable {
    var live = 0
    var dead = 0
    var reclaimed = 0
    var unsubscribed = 0
    var cancelled = 0
    var duplicates = 0

    /// Follows a lifecycle change, for sources that send no snapshots. Deaths are seen only
    /// when the bus reclaims them, so `dead` stays 0 here.
    mutating func apply(_ change: SubscriberLifecycleEvent) {
        switch change.kind {
        case .subscribed:
            live.clampedAdd(change.count)
        case .duplicateSubscription:
            live.clampedAdd(change.count)
            duplicates.clampedAdd(change.count)
        case .unsubscribed:
            live = max(0, live - change.count)
            unsubscribed.clampedAdd(change.count)
        case .cancelled:
            live = max(0, live - change.count)
            cancelled.clampedAdd(change.count)
        case .reclaimed:
            live = max(0, live - change.count)
            reclaimed.clampedAdd(change.count)
        case .leakSuspected, .leakCleared, .cascadeStopped, .handlerFailed, .slowHandler, .slowDelivery:
            // About an object or a delivery, not a type's subscriptions.
            break
        }
    }
}

/// A recent change of a count, highlighted for a few seconds.
struct RecentChange: Equatable {
    /// Seconds a change stays highlighted.
    static let duration = 3.0

    var delta: Int
    var time: Double

    /// Adds `delta` at `now` to `change`: same-direction changes in quick succession add up.
    static func merge(_ change: RecentChange?, delta: Int, at now: Double) -> RecentChange {
        if let change, now - change.time < duration, (change.delta > 0) == (delta > 0) {
            return RecentChange(delta: change.delta.clampedAdding(delta), time: now)
        }
        return RecentChange(delta: delta, time: now)
    }

    /// Whether the change is still highlighted at `now`.
    func isRecent(at now: Double) -> Bool {
        now - time < Self.duration && now >= time
    }
}

/// Subscriptions of one kind (one event type, or the wildcard observers) as the dashboard
/// knows them: from snapshots when the source sends them, else from lifecycle changes.
struct SubscriberTracker {
    private var derived = SubscriberCounts()
    private var fromSnapshot: SubscriberCounts?
    private var shown: SubscriberCounts?
    private(set) var liveChange: RecentChange?
    private(set) var reclaimChange: RecentChange?
    /// The last dead count above zero and when it was seen, or the subscriptions just reclaimed
    /// (they were dead until then): cleanup is often quicker than a snapshot, so a dead count
    /// stays on screen for a moment after it is gone.
    private(set) var recentDead: RecentChange?

    /// The counts to show.
    var counts: SubscriberCounts { fromSnapshot ?? derived }

    mutating func apply(_ change: SubscriberLifecycleEvent) {
        derived.apply(change)
    }

    mutating func takeSnapshot(_ counts: SubscriberCounts) {
        fromSnapshot = counts
    }

    /// Makes the counts now the ones later changes are measured from, without highlighting.
    mutating func takeAsBaseline() {
        shown = nil
    }

    /// Notes changes since the previous call, for highlighting.
    mutating func noteChanges(at now: Double) {
        let current = counts
        if current.dead > 0 { recentDead = RecentChange(delta: current.dead, time: now) }
        if let shown {
            if current.live != shown.live {
                liveChange = RecentChange.merge(liveChange, delta: current.live - shown.live, at: now)
            }
            if current.reclaimed > shown.reclaimed {
                let reclaimed = current.reclaimed - shown.reclaimed
                reclaimChange = RecentChange.merge(reclaimChange, delta: reclaimed, at: now)
                // What one step reclaimed was dead, all of it at once, a moment ago, even when no
                // snapshot caught it dead. Not the steps of the last seconds added up: those
                // were not all dead at the same time, and DEAD counts what is dead at once.
                if current.dead == 0,
                    reclaimed > (recentDead.flatMap { $0.isRecent(at: now) ? $0.delta : nil } ?? 0)
                {
                    recentDead = RecentChange(delta: reclaimed, time: now)
                }
            }
        }
        shown = current
    }
}

/// What the dashboard knows of one event type, or of every type past the table's limit.
struct TypeRow {
    let name: String
    /// Whether the row stands for every type beyond ``DashboardState/maximumTypeRows``, named
    /// ``DashboardState/otherTypesName``; it sums their counts.
    var isOtherTypes = false
    /// Events of this type the source handed over (some may have been dropped before that).
    var capturedCount = 0
    /// Captured events no typed subscriber received.
    var capturedUnheard = 0
    /// Events captured after the newest snapshot was taken.
    var countSinceSnapshot = 0
    /// Unheard events captured after the newest snapshot was taken.
    var unheardSinceSnapshot = 0
    /// The newest snapshot's statistics, when the source sends snapshots.
    var statistics: EventTypeStatistics?
    var subscribers = SubscriberTracker()
    var meter: RateMeter
    /// The type's sticky event as text, per the newest snapshot; `nil` when it has none.
    var sticky: String?

    /// Whether the row is a protocol's (`any AuthEvent`): nothing publishes a protocol, so its
    /// row counts what its subscribers received, the events of the types that conform.
    var isProtocol: Bool { name.hasPrefix("any ") }

    /// Events published: the newest snapshot's exact count plus what was captured since, so
    /// that the count moves every frame, not only when a snapshot arrives; the captured count
    /// when the source sends no snapshots. A protocol's row counts deliveries to its handlers.
    var published: Int {
        if isProtocol, let statistics { return statistics.delivered }
        return statistics.map { $0.published.clampedAdding(countSinceSnapshot) } ?? capturedCount
    }
    /// Publishes no typed subscriber received, counted the same way.
    var unheard: Int {
        statistics.map { $0.unheard.clampedAdding(unheardSinceSnapshot) } ?? capturedUnheard
    }
}

/// Everything the dashboard shows, updated from source batches.
///
/// A value type so that pausing the display is a copy: the copy is drawn while this one keeps
/// taking in batches.
struct DashboardState {
    /// Lines the log keeps.
    static let logCapacity = 5_000
    /// Event types the table lists by name. Names come from the apps watched, and a stranger
    /// can make up any number of them: types past this many are summed in one last row,
    /// ``otherTypesName``, so memory and the work of a frame stay bounded.
    static let maximumTypeRows = 1_000
    /// The name of the row that sums the types past ``maximumTypeRows``.
    static let otherTypesName = "(other types)"

    var busName: String?
    var status: String?
    /// The status in fewer words, for a header short of room.
    var briefStatus: String?
    /// What stopped on busmon's side (a recording on a full disk), as the newest batch said it.
    var problems: [SourceProblem] = []
    /// The newest warning from the source, shown in the header until a later notice says the
    /// source has moved on.
    private(set) var warning: SourceNotice?
    var droppedEvents = 0
    /// Lifecycle changes lost on the way so far (a running total).
    var droppedLifecycle = 0
    /// Records a fleet source dropped because they came from apps past the most it lists (a
    /// running total, apart from the drops above).
    var droppedFromAppsPastTheLimit = 0
    /// Handler calls lost on the way while calls were asked for (a running total).
    var droppedCalls = 0
    /// Event types, sorted by name; the row of other types, once there is one, last.
    private(set) var rows: [TypeRow] = []
    private var rowIndex: [String: Int] = [:]
    var wildcard = SubscriberTracker()
    /// Observer objects per class, leak suspects, and the objects listed.
    var observers = ObserverTracker()
    /// Handler calls, times and failures, and the stopped cascades.
    private(set) var handlers = HandlerTracker()
    /// The processes of the fleet, for a source that watches several; `nil` for one app.
    private(set) var fleet: FleetTracker?
    /// Whether any event so far said which process published it: the log then has an app column.
    private(set) var hasOrigins = false
    /// Observers the log has said were deallocated, and when: a later reclaim of the same
    /// object's other subscriptions says "more", not "deallocated" again. Bounded by
    /// ``reclaimMemory``.
    private var announcedReclaims: [ReclaimedObject: Double] = [:]
    /// Observers remembered in ``announcedReclaims`` at most.
    static let reclaimMemory = 2_000
    var totalMeter = RateMeter()
    var log = EventLog(capacity: logCapacity)
    /// When the first batch was taken, in seconds since 1970.
    private(set) var startTime: Double?
    /// Whether the source keeps a clock of its own (``SourceBatch/sourceClock``): a replay,
    /// whose header shows its cursor rather than how long busmon has run.
    private(set) var hasSourceClock = false
    /// The source's time of the previous batch (see ``sourceTime(at:)``).
    private var lastReadingTime: Double?
    /// The source's clock less the wall clock, from the newest time stamp seen.
    private var clockOffset: Double?
    /// Whether the next snapshot is a baseline: the first one, or the first after a restart.
    private var isAwaitingBaseline = true
    /// Each app's newest snapshot, by origin (`nil` for the one app of a single-app source).
    private(set) var memberSnapshots: [EventOrigin?: BusSnapshot] = [:]
    /// The newest snapshots of the processes watched before the current one behind the same
    /// socket, retired and summed: a restarted app's counts add up, as a fleet's gone apps'
    /// do and as the headless summary's, so that what busmon shows does not depend on how it is
    /// connected.
    private var earlierProcesses: BusSnapshot?
    /// The keys of ``memberSnapshots`` in the order they first came.
    private var snapshotOrder: [EventOrigin?] = []
    /// Snapshot sums taken so far (it wraps): a batch that took one moves the protocols' rows.
    private var snapshotsTaken = 0
    /// Snapshots of apps past ``FleetState/maximumMembers`` not kept, so far: the header says
    /// so, since the counters then leave those apps out.
    private(set) var snapshotsRefused = 0
    /// The apps of a fleet that are gone, whose snapshots no longer count.
    private var goneMembers: Set<EventOrigin> = []
    /// Whether the one app a source watches (an attached tap, or its recording) went away, its
    /// connection closed: then, as of a fleet's gone app, its totals stay and what it had live
    /// does not, until a snapshot of what it has live comes again.
    private var singleAppGone = false
    /// The process the newest hello named, whose detach is the one app going away.
    private var watchedPid: Int?
    /// Whether the source lists its fleet's members (``SourceBatch/fleet``); if not, and its
    /// records name apps, ``heard`` makes the list.
    private(set) var sourceListsFleet = false
    /// The apps the records named, for a source that lists no fleet, by origin: when each was
    /// last heard from on the source's clock, and its events.
    private var heard: [EventOrigin: (lastSeen: Double, events: Int)] = [:]
    /// The apps the counters shown sum, in order.
    private var countedMembers: [EventOrigin?] = []

    /// Events published, all types.
    /// (A protocol's row counts events of other rows again, so it is left out.)
    var totalPublished: Int { rows.clampedSum { $0.isProtocol ? 0 : $0.published } }
    /// Publishes no typed subscriber received, all types.
    var totalUnheard: Int { rows.clampedSum(\.unheard) }

    /// Takes in what a source gathered since the previous batch, record by record in the
    /// order the source received them.
    ///
    /// Rates and sparklines run on the source's clock (see ``sourceTime(at:)``), so a replay
    /// shows the recording's rates at any speed. Every source is a fleet: each app's newest
    /// snapshot is kept under its origin (`nil` for the one app of a source that watches one),
    /// and the counters shown are those of the apps that are not gone, summed
    /// (``BusSnapshot/merged(_:)``, which gives a single app's snapshot as it is). The first
    /// snapshot, the first after the counters restart, and the first after the set of apps
    /// counted changed, is a baseline: what the bus counted before busmon watched is not a rate.
    mutating func apply(_ batch: SourceBatch, at now: Double) {
        let isFirst = startTime == nil
        if isFirst { startTime = now }
        if batch.sourceClock != nil { hasSourceClock = true }
        if let status = batch.status {
            self.status = status
            briefStatus = batch.briefStatus
        }
        problems = batch.problems
        if let newest = batch.notices.last {
            // A warning stays in the header until a notice of a later moment comes: those of one
            // moment (a replay's warnings about its file and the attach it starts with) leave it,
            // in its batch or a later one.
            if let index = batch.notices.lastIndex(where: \.isWarning),
                batch.notices[index...].allSatisfy({ $0.time <= batch.notices[index].time })
            {
                warning = batch.notices[index]
            } else if let shown = warning, batch.notices.allSatisfy({ $0.time <= shown.time }) {
                // Notices of its moment, or older ones, which a replay's move may bring again.
            } else {
                warning = newest.isWarning ? newest : nil
            }
        }
        droppedEvents = batch.droppedEvents
        droppedLifecycle = batch.droppedLifecycle
        droppedFromAppsPastTheLimit = batch.droppedFromAppsPastTheLimit
        droppedCalls = batch.droppedCalls
        let readingTime = advanceClock(with: batch, at: now)
        if batch.countersRestarted { restartCounters() }
        let snapshotsTakenBefore = snapshotsTaken
        var snapshotsChanged = false
        if let members = batch.fleet {
            sourceListsFleet = true
            snapshotsChanged = takeFleet(members)
        }

        for record in batch.records {
            if !sourceListsFleet { hear(record) }
            switch record {
            case .event(let event):
                if snapshotsChanged {
                    takeSnapshots(at: now, readingTime: readingTime)
                    snapshotsChanged = false
                }
                if event.origin != nil { hasOrigins = true }
                let index = rowIndex(for: event.typeName)
                rows[index].capturedCount += 1
                rows[index].countSinceSnapshot += 1
                if event.receivers == 0 {
                    rows[index].capturedUnheard += 1
                    rows[index].unheardSinceSnapshot += 1
                }
            case .lifecycle(let captured):
                apply(captured.change, at: now)
            case .snapshot(let snapshot):
                // Origins come from the records; a source without a fleet list to prune them by
                // (a recording, a tap that relays several apps) could name any number: past
                // the fleet's limit, a new app's snapshots are not kept.
                if memberSnapshots[snapshot.origin] == nil {
                    guard memberSnapshots.count < FleetState.maximumMembers else {
                        snapshotsRefused.clampedAdd(1)
                        continue
                    }
                    snapshotOrder.append(snapshot.origin)
                }
                memberSnapshots[snapshot.origin] = snapshot.snapshot
                if snapshot.origin == nil { singleAppGone = false }
                snapshotsChanged = true
            case .detached(let detached):
                // Only the process watched now: a note of another (a stray line) says nothing
                // of it.
                if detached.pid == watchedPid {
                    singleAppGone = true
                    snapshotsChanged = true
                }
            case .hello(let hello):
                // Gone stays gone until the process, or a new one, sends what it has live.
                watchedPid = hello.pid
            case .dropped, .refused, .call:
                continue
            }
        }
        // A source of several apps' records that lists no fleet (a recording of apps that
        // dialled in, or of a NATS fleet): the fleet as the records tell it, each app active,
        // quiet or gone by when it was last heard on the source's clock.
        if !sourceListsFleet, !heard.isEmpty, takeFleet(heardFleet(at: readingTime)) {
            snapshotsChanged = true
        }
        if snapshotsChanged { takeSnapshots(at: now, readingTime: readingTime) }

        let changeTime = highlightTime(now: now, readingTime: readingTime)
        let tookSnapshots = snapshotsTaken != snapshotsTakenBefore
        for index in rows.indices {
            rows[index].subscribers.noteChanges(at: changeTime)
            // A protocol's row is read when a snapshot moves it, so that its rate is taken
            // between two of them, not from a count that stands still in between.
            guard !rows[index].isProtocol || tookSnapshots || rows[index].meter.total == nil else { continue }
            rows[index].meter.record(total: rows[index].published, at: readingTime)
        }
        wildcard.noteChanges(at: changeTime)
        totalMeter.record(total: totalPublished, at: readingTime)
        fleet?.record(at: readingTime)
        appendToLog(batch)
        lastReadingTime = readingTime
    }

    /// Takes the fleet's members, the source's list or the one the records tell.
    ///
    /// - Returns: Whether the snapshots to sum changed: an app whose snapshot they sum came or
    ///   went, or was forgotten.
    private mutating func takeFleet(_ members: [FleetMember]) -> Bool {
        var snapshotsChanged = false
        var tracker = fleet ?? FleetTracker()
        tracker.take(members, previousReading: lastReadingTime)
        fleet = tracker
        hasOrigins = true
        let gone = Set(members.filter { $0.presence == .gone }.map(\.origin))
        if gone != goneMembers {
            let moved = gone.symmetricDifference(goneMembers)
            goneMembers = gone
            if moved.contains(where: { memberSnapshots[$0] != nil }) { snapshotsChanged = true }
        }
        // An app the fleet no longer lists (forgotten after it went) keeps no snapshot: it
        // would count again once it is no longer among the gone, and hold a slot.
        let listed = Set(members.map(\.origin))
        let unlisted = snapshotOrder.filter { $0.map { !listed.contains($0) } ?? false }
        if !unlisted.isEmpty {
            for origin in unlisted { memberSnapshots[origin] = nil }
            snapshotOrder.removeAll { $0.map { !listed.contains($0) } ?? false }
            snapshotsChanged = true
        }
        return snapshotsChanged
    }

    /// Notes the app `record` came from, for a source that lists no fleet: when it was last
    /// heard from, and its events. As many apps as a fleet keeps; records of others are not
    /// counted here (their snapshots are refused likewise).
    private mutating func hear(_ record: FeedRecord) {
        let origin: EventOrigin?
        switch record {
        case .event(let event): origin = event.origin
        case .lifecycle(let captured): origin = captured.origin
        case .snapshot(let snapshot): origin = snapshot.origin
        case .hello, .dropped, .refused, .call, .detached: origin = nil
        }
        guard let origin, let time = record.time, time.isFinite else { return }
        guard heard[origin] != nil || heard.count < FleetState.maximumMembers else { return }
        var app = heard[origin] ?? (lastSeen: time, events: 0)
        app.lastSeen = max(app.lastSeen, time)
        if case .event = record { app.events.clampedAdd(1) }
        heard[origin] = app
    }

    /// The fleet the records tell, at `time` on the source's clock, with the default times
    /// after which a silent app is quiet, then gone.
    private func heardFleet(at time: Double) -> [FleetMember] {
        let times = FleetPresenceTimes()
        return heard.map { origin, app in
            let silence = time - app.lastSeen
            let presence: FleetMember.Presence =
                silence >= times.goneAfter ? .gone : silence >= times.quietAfter ? .quiet : .active
            return FleetMember(
                origin: origin, presence: presence, lastSeen: app.lastSeen, eventsReceived: app.events,
                snapshot: memberSnapshots[origin])
        }
    }

    /// Follows one lifecycle change.
    private mutating func apply(_ change: SubscriberLifecycleEvent, at now: Double) {
        observers.apply(change, at: now)
        handlers.apply(change)
        // Leak reports are about an object, and handler reports about a delivery, not an
        // event type's subscriptions: they make no type row.
        switch change.kind {
        case .leakSuspected, .leakCleared, .cascadeStopped, .handlerFailed, .slowHandler, .slowDelivery:
            return
        default: break
        }
        if change.eventTypeName == SubscriberLifecycleEvent.wildcardTypeName {
            wildcard.apply(change)
        } else {
            rows[rowIndex(for: change.eventTypeName)].subscribers.apply(change)
        }
    }

    /// The apps whose snapshots the counters sum, in the order they first sent one: all but
    /// those gone.
    var countedOrigins: [EventOrigin?] {
        snapshotOrder.filter { origin in origin.map { !goneMembers.contains($0) } ?? true }
    }

    /// The apps' newest snapshots as the panes sum them: a gone app's (or the one app's once it
    /// went away) retired, its totals kept and what it had live gone with it.
    var snapshotsAsShown: [BusSnapshot] {
        snapshotOrder.compactMap { origin in
            memberSnapshots[origin].map { snapshot in
                let gone = origin.map(goneMembers.contains) ?? singleAppGone
                return gone ? snapshot.retired : snapshot
            }
        } + [earlierProcesses].compactMap { $0 }
    }

    /// `snapshots` (``snapshotsAsShown``) summed, named as the bus or fleet watched now: the
    /// processes before the current one behind the same socket are in the sums, not the name.
    func mergedSnapshot(of snapshots: [BusSnapshot]) -> BusSnapshot {
        let merged = BusSnapshot.merged(snapshots)
        guard earlierProcesses != nil, snapshots.count > 1 else { return merged }
        return merged.named(BusSnapshot.merged(Array(snapshots.dropLast())).busName)
    }

    /// Takes the apps' newest snapshots, summed: as a baseline when it is the first, or when the
    /// apps it counts are not the ones counted last time.
    private mutating func takeSnapshots(at now: Double, readingTime: Double) {
        snapshotsTaken &+= 1
        let counted = countedOrigins
        let snapshot = mergedSnapshot(of: snapshotsAsShown)
        if isAwaitingBaseline || counted != countedMembers {
            countedMembers = counted
            let before = publishedByType()
            take(snapshot)
            rebaseMeters(from: before)
            // Nor are the subscribers it finds a change.
            for index in rows.indices { rows[index].subscribers.takeAsBaseline() }
            wildcard.takeAsBaseline()
            isAwaitingBaseline = false
        } else {
            take(snapshot)
        }
        observers.take(snapshot, at: now, readingTime: readingTime)
        handlers.take(snapshot)
    }

    /// The clock that changes are highlighted on: a replay's, whose cursor may read a minute
    /// of recording in one frame, each change at its own time; for a live source the wall
    /// clock, which no record stamped in the future (a phone's clock ahead, a stranger's
    /// record) can hold still.
    func highlightTime(now: Double, readingTime: Double? = nil) -> Double {
        hasSourceClock ? readingTime ?? sourceTime(at: now) : now
    }

    /// The time on the source's clock at `now` on the wall clock: the time stamps of the events
    /// it hands over. For a live source the two are the same but for a frame's lag; a replay
    /// runs on the recording's time, at the speed it plays.
    func sourceTime(at now: Double) -> Double {
        max(lastReadingTime ?? -.infinity, now + (clockOffset ?? 0))
    }

    /// Sets the source's clock by what `batch` says it reads (a replay's cursor), or else by the
    /// newest time stamp in it, if it has one.
    ///
    /// - Returns: The source's time of this batch, never earlier than the one before.
    private mutating func advanceClock(with batch: SourceBatch, at now: Double) -> Double {
        // The latest stamp of the batch, not its last record's: in a fleet's batch the last may
        // come from an app whose clock is behind, and would hold the reading back.
        var newest: Double?
        for record in batch.records {
            let time: Double
            switch record {
            case .event(let event): time = event.time
            case .lifecycle(let change): time = change.time
            default: continue
            }
            if time.isFinite, time > newest ?? -.infinity { newest = time }
        }
        if let clock = batch.sourceClock, clock.isFinite {
            clockOffset = clock - now
        } else if let newest, newest.isFinite {
            // A live source's records were made before they arrived: a stamp ahead of this
            // clock is another clock's (a phone's, an app's on another host, a stranger's), and
            // following it would hold the reading there, every rate at zero until it came.
            clockOffset = min(0, newest - now)
        }
        return sourceTime(at: now)
    }

    /// Keys of ``publishedByType()``: no type name is a string with a NUL in it, which the wire
    /// would escape but a name could still hold, so these two are told apart by more than that.
    private static let totalKey = "\u{0}total\u{0}"
    private static func meterKey(of row: TypeRow) -> String {
        row.isOtherTypes ? "\u{0}other types\u{0}" : row.name
    }

    /// Published counts by type, to rebase the meters from after a baseline.
    private func publishedByType() -> [String: Int] {
        var counts: [String: Int] = [Self.totalKey: totalPublished]
        for row in rows { counts[Self.meterKey(of: row)] = row.published }
        return counts
    }

    /// Shifts every meter by what its count changed since `before` (from ``publishedByType()``),
    /// so that the change counts as history, not as a rate.
    private mutating func rebaseMeters(from before: [String: Int]) {
        for index in rows.indices {
            rows[index].meter.rebase(
                by: rows[index].published - (before[Self.meterKey(of: rows[index])] ?? 0))
        }
        totalMeter.rebase(by: totalPublished - (before[Self.totalKey] ?? 0))
    }

    /// Forgets the counts of the process watched before: a new one starts from zero, and its
    /// first snapshot is a baseline. Meters keep their history, rebased to zero; change
    /// highlights start again, so the new counts do not show as a jump.
    private mutating func restartCounters() {
        let before = publishedByType()
        // The old process's totals stay in the sums; what it had live went with it.
        let finished = snapshotOrder.compactMap { memberSnapshots[$0]?.retired }
        if !finished.isEmpty {
            earlierProcesses = BusSnapshot.merged(finished + [earlierProcesses].compactMap { $0 })
        }
        for index in rows.indices {
            rows[index].capturedCount = 0
            rows[index].capturedUnheard = 0
            rows[index].countSinceSnapshot = 0
            rows[index].unheardSinceSnapshot = 0
            rows[index].statistics = nil
            rows[index].subscribers = SubscriberTracker()
        }
        wildcard = SubscriberTracker()
        observers.restart()
        handlers.restartReports()
        memberSnapshots = [:]
        snapshotOrder = []
        countedMembers = []
        // A new process numbers its observers afresh.
        announcedReclaims = [:]
        rebaseMeters(from: before)
        isAwaitingBaseline = true
    }

    /// Takes one type's counts from a snapshot into the row at `index`.
    private mutating func take(_ statistics: EventTypeStatistics, into index: Int) {
        rows[index].statistics = statistics
        rows[index].countSinceSnapshot = 0
        rows[index].unheardSinceSnapshot = 0
        rows[index].subscribers.takeSnapshot(
            SubscriberCounts(
                live: statistics.liveSubscribers, dead: statistics.deadSubscribers,
                reclaimed: statistics.reclaimedSubscribers,
                unsubscribed: statistics.unsubscribedSubscribers,
                cancelled: statistics.cancelledSubscribers,
                duplicates: statistics.duplicateSubscriptions))
    }

    /// Takes `snapshot`'s counts; events that come after it count on from there.
    private mutating func take(_ snapshot: BusSnapshot) {
        busName = snapshot.busName
        var stickyByType: [String: String] = [:]
        for sticky in snapshot.stickyEvents { stickyByType[sticky.typeName] = sticky.payloadText }
        for (name, _) in stickyByType { _ = rowIndex(for: name) }
        for index in rows.indices { rows[index].sticky = stickyByType[rows[index].name] }
        // The types past the table's limit, summed into one row.
        var otherTypes: EventTypeStatistics?
        for statistics in snapshot.eventTypes {
            let index = rowIndex(for: statistics.typeName)
            if rows[index].isOtherTypes {
                otherTypes = (otherTypes ?? EventTypeStatistics(typeName: Self.otherTypesName)).adding(
                    statistics)
                continue
            }
            take(statistics, into: index)
        }
        if let last = rows.indices.last, rows[last].isOtherTypes {
            rows[last].sticky = nil
            take(otherTypes ?? EventTypeStatistics(typeName: Self.otherTypesName), into: last)
        }
        wildcard.takeSnapshot(
            SubscriberCounts(
                live: snapshot.wildcardObservers, dead: snapshot.deadWildcardObservers,
                reclaimed: snapshot.reclaimedWildcardObservers))
    }

    /// The reclaim lines of `changes`, by the record index of each object's first report, and
    /// the record indexes of the later reports merged into them.
    private mutating func groupReclaims(
        _ changes: ArraySlice<(index: Int, change: FeedLifecycle)>
    ) -> (lines: [Int: ObjectReclaim], merged: Set<Int>) {
        var lines: [Int: ObjectReclaim] = [:]
        var merged: Set<Int> = []
        var first: [ReclaimedObject: Int] = [:]
        for (index, captured) in changes {
            let change = captured.change
            guard change.kind == .reclaimed, let number = change.observerID else { continue }
            // Each app numbers its observers: two apps' #4 are two objects.
            let id = ReclaimedObject(origin: captured.origin, observerID: number)
            if let start = first[id] {
                lines[start]?.add(change)
                merged.insert(index)
            } else {
                first[id] = index
                lines[index] = ObjectReclaim(change, isContinuation: announcedReclaims[id] != nil)
                announcedReclaims[id] = captured.time
            }
        }
        if announcedReclaims.count > Self.reclaimMemory {
            // The oldest half goes: an object's subscriptions are reclaimed within moments.
            let kept = announcedReclaims.sorted { $0.value > $1.value }.prefix(Self.reclaimMemory / 2)
            announcedReclaims = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
        return (lines, merged)
    }

    /// The row of `name`, made when new. A type first seen after the first batch counts from
    /// zero at the previous batch, so its first events show in its rate; types in the first
    /// batch count from what they had, so history from before the dashboard makes no spike.
    /// Past ``maximumTypeRows`` names, a new name gets the row of other types, kept last.
    private mutating func rowIndex(for name: String) -> Int {
        if let index = rowIndex[name] { return index }
        let hasOtherTypes = rows.last?.isOtherTypes == true
        // Before a meter is made: a flood of new names past the limit makes none.
        if hasOtherTypes, rowIndex.count >= Self.maximumTypeRows { return rows.endIndex - 1 }
        let meter = lastReadingTime.map { RateMeter(startingAt: 0, time: $0) } ?? RateMeter()
        if rowIndex.count >= Self.maximumTypeRows {
            rows.append(TypeRow(name: Self.otherTypesName, isOtherTypes: true, meter: meter))
            return rows.endIndex - 1
        }
        let listedEnd = hasOtherTypes ? rows.endIndex - 1 : rows.endIndex
        let position = rows[..<listedEnd].firstIndex { $0.name > name } ?? listedEnd
        var row = TypeRow(name: name, meter: meter)
        // Its count moves with snapshots only (see ``TypeRow/published``).
        row.meter.endsAtNewestReading = row.isProtocol
        rows.insert(row, at: position)
        for index in position..<listedEnd + 1 { rowIndex[rows[index].name] = index }
        return position
    }

    /// Appends the batch to the log in the order its records came, each notice before the
    /// first record stamped later than it. When the batch holds more than the log keeps, its
    /// oldest events are left out first, then its oldest lifecycle changes.
    ///
    /// The reports of one object's reclaim in a batch (one per event type list) become one line,
    /// where the first was. They are merged within a batch only: a line of an earlier batch may
    /// have been read by a filter already.
    private mutating func appendToLog(_ batch: SourceBatch) {
        let notices = batch.notices.suffix(log.capacity)
        var changes: [(index: Int, change: FeedLifecycle)] = []
        var eventCount = 0
        for (index, record) in batch.records.enumerated() {
            switch record {
            case .event: eventCount += 1
            case .lifecycle(let change): changes.append((index, change))
            default: continue
            }
        }
        let keptChanges = changes.suffix(max(0, log.capacity - notices.count))
        let firstKeptChange = keptChanges.first?.index ?? batch.records.endIndex
        var eventsToSkip = max(0, eventCount - max(0, log.capacity - keptChanges.count - notices.count))
        let reclaims = groupReclaims(keptChanges)
        var noticeIndex = notices.startIndex
        func appendNotices(before time: Double) {
            while noticeIndex < notices.endIndex, notices[noticeIndex].time < time {
                log.append(time: notices[noticeIndex].time, content: .notice(notices[noticeIndex]))
                noticeIndex += 1
            }
        }
        for (index, record) in batch.records.enumerated() {
            switch record {
            case .event(let event):
                if eventsToSkip > 0 {
                    eventsToSkip -= 1
                    continue
                }
                appendNotices(before: event.time)
                log.append(time: event.time, content: .event(event))
            case .lifecycle(let captured):
                guard index >= firstKeptChange else { continue }
                appendNotices(before: captured.time)
                if let reclaim = reclaims.lines[index] {
                    log.append(time: captured.time, content: .reclaim(reclaim), origin: captured.origin)
                } else if !reclaims.merged.contains(index) {
                    log.append(
                        time: captured.time, content: .lifecycle(captured.change), origin: captured.origin)
                }
            default:
                continue
            }
        }
        appendNotices(before: .infinity)
    }
}

/// An object whose reclaim the log reports: its number within its app, and the app.
struct ReclaimedObject: Hashable {
    let origin: EventOrigin?
    let observerID: UInt64
}
