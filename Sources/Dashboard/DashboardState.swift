import BusMonitor
import EventBus

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
            live += change.count
        case .duplicateSubscription:
            live += change.count
            duplicates += change.count
        case .unsubscribed:
            live = max(0, live - change.count)
            unsubscribed += change.count
        case .cancelled:
            live = max(0, live - change.count)
            cancelled += change.count
        case .reclaimed:
            live = max(0, live - change.count)
            reclaimed += change.count
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
            return RecentChange(delta: change.delta + delta, time: now)
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

    /// The counts to show.
    var counts: SubscriberCounts { fromSnapshot ?? derived }

    mutating func apply(_ change: SubscriberLifecycleEvent) {
        derived.apply(change)
    }

    mutating func takeSnapshot(_ counts: SubscriberCounts) {
        fromSnapshot = counts
    }

    /// Notes changes since the previous call, for highlighting.
    mutating func noteChanges(at now: Double) {
        let current = counts
        if let shown {
            if current.live != shown.live {
                liveChange = RecentChange.merge(liveChange, delta: current.live - shown.live, at: now)
            }
            if current.reclaimed > shown.reclaimed {
                reclaimChange = RecentChange.merge(
                    reclaimChange, delta: current.reclaimed - shown.reclaimed, at: now)
            }
        }
        shown = current
    }
}

/// What the dashboard knows of one event type.
struct TypeRow {
    let name: String
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

    /// Events published: the newest snapshot's exact count plus what was captured since, so
    /// that the count moves every frame, not only when a snapshot arrives; the captured count
    /// when the source sends no snapshots.
    var published: Int {
        statistics.map { $0.published + countSinceSnapshot } ?? capturedCount
    }
    /// Publishes no typed subscriber received, counted the same way.
    var unheard: Int {
        statistics.map { $0.unheard + unheardSinceSnapshot } ?? capturedUnheard
    }
}

/// Everything the dashboard shows, updated from source batches.
///
/// A value type so that pausing the display is a copy: the copy is drawn while this one keeps
/// taking in batches.
struct DashboardState {
    /// Lines the log keeps.
    static let logCapacity = 5_000

    var busName: String?
    var status: String?
    var droppedEvents = 0
    /// Event types, sorted by name.
    private(set) var rows: [TypeRow] = []
    private var rowIndex: [String: Int] = [:]
    var wildcard = SubscriberTracker()
    var totalMeter = RateMeter()
    var log = EventLog(capacity: logCapacity)
    /// When the first batch was taken, in seconds since 1970.
    private(set) var startTime: Double?
    private var lastUpdateTime: Double?

    /// Events published, all types.
    var totalPublished: Int { rows.reduce(0) { $0 + $1.published } }
    /// Publishes no typed subscriber received, all types.
    var totalUnheard: Int { rows.reduce(0) { $0 + $1.unheard } }

    /// Takes in what a source gathered since the previous batch.
    mutating func apply(_ batch: SourceBatch, at now: Double) {
        let isFirst = startTime == nil
        if isFirst { startTime = now }
        if let status = batch.status { self.status = status }
        droppedEvents = batch.droppedEvents

        for event in batch.events {
            let index = rowIndex(for: event.typeName, at: now)
            rows[index].capturedCount += 1
            rows[index].countSinceSnapshot += 1
            if event.receivers == 0 {
                rows[index].capturedUnheard += 1
                rows[index].unheardSinceSnapshot += 1
            }
        }
        for captured in batch.lifecycle {
            let change = captured.change
            if change.eventTypeName == SubscriberLifecycleEvent.wildcardTypeName {
                wildcard.apply(change)
            } else {
                rows[rowIndex(for: change.eventTypeName, at: now)].subscribers.apply(change)
            }
        }
        if let snapshot = batch.snapshot { take(snapshot, at: now) }

        for index in rows.indices {
            rows[index].subscribers.noteChanges(at: now)
            rows[index].meter.record(total: rows[index].published, at: now)
        }
        wildcard.noteChanges(at: now)
        totalMeter.record(total: totalPublished, at: now)
        appendToLog(batch)
        lastUpdateTime = now
    }

    private mutating func take(_ snapshot: BusSnapshot, at now: Double) {
        busName = snapshot.busName
        for statistics in snapshot.eventTypes {
            let index = rowIndex(for: statistics.typeName, at: now)
            rows[index].statistics = statistics
            // Sources take the snapshot after gathering the batch, so the batch's events are in it.
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
        wildcard.takeSnapshot(
            SubscriberCounts(
                live: snapshot.wildcardObservers, dead: snapshot.deadWildcardObservers,
                reclaimed: snapshot.reclaimedWildcardObservers))
    }

    /// The row of `name`, made when new. A type first seen after the first batch counts from
    /// zero at the previous batch, so its first events show in its rate; types in the first
    /// batch count from what they had, so history from before the dashboard makes no spike.
    private mutating func rowIndex(for name: String, at now: Double) -> Int {
        if let index = rowIndex[name] { return index }
        let meter = lastUpdateTime.map { RateMeter(startingAt: 0, time: $0) } ?? RateMeter()
        let position = rows.firstIndex { $0.name > name } ?? rows.endIndex
        rows.insert(TypeRow(name: name, meter: meter), at: position)
        for index in position..<rows.endIndex { rowIndex[rows[index].name] = index }
        return position
    }

    /// Appends the batch to the log in time order. When the batch holds more than the log
    /// keeps, only its newest events are added, and every lifecycle change.
    private mutating func appendToLog(_ batch: SourceBatch) {
        let lifecycle = batch.lifecycle.suffix(log.capacity)
        let events = batch.events.suffix(max(0, log.capacity - lifecycle.count))
        var eventIndex = events.startIndex
        var changeIndex = lifecycle.startIndex
        while eventIndex < events.endIndex || changeIndex < lifecycle.endIndex {
            let takeEvent =
                changeIndex == lifecycle.endIndex
                || (eventIndex < events.endIndex && events[eventIndex].time <= lifecycle[changeIndex].time)
            if takeEvent {
                let event = events[eventIndex]
                log.append(time: event.time, content: .event(event))
                eventIndex += 1
            } else {
                let change = lifecycle[changeIndex]
                log.append(time: change.time, content: .lifecycle(change.change))
                changeIndex += 1
            }
        }
    }
}
