internal import EventBus

/// One observer object as the Observers pane lists it: from the newest snapshot, or remembered
/// for a moment after it went.
struct InstanceRow: Equatable {
    /// How the object stands.
    enum Status: Equatable {
        case live
        /// Deallocated, its subscriptions not yet removed.
        case dead
        /// Alive after the time the app gave it: probably a leak.
        case suspect
        /// Gone from the bus since the newest snapshot but one: reclaimed (or unsubscribed), shown
        /// greyed for ``ObserverTracker/goneDuration`` seconds from `since`.
        case gone(label: String, since: Double)
    }

    let observerID: UInt64
    let className: String
    /// How long ago it first subscribed, as of the snapshot that listed it; `nil` when only
    /// the leak report names it.
    let age: Duration?
    /// Event type names, one per subscription.
    let subscriptions: [String]
    let status: Status
    /// For a suspect: why the app expected it to go.
    let reason: String?
    /// For a suspect: how long past its deadline it is; for one gone while it was a suspect, how
    /// long it was when last listed.
    let overdue: Duration?

    /// Whether it is gone, and shown greyed.
    var isGone: Bool {
        if case .gone = status { return true }
        return false
    }

    /// When it became a leak suspect (wall clock), for a suspect and for one that died or went
    /// while it was one; `nil` otherwise. Fixed once seen, so the suspects keep their order as
    /// their overdue times grow, and a row stays where it stood as it turns dead or gone.
    var suspectSince: Double?

    /// Whether it is listed among the suspects: a suspect, or one that died or went while it was
    /// one.
    var isAmongSuspects: Bool {
        guard suspectSince != nil else { return false }
        return status != .live
    }
}

/// What the dashboard knows of the bus's observer objects: the newest snapshot's classes and
/// leak suspects, a history of live instances per class, and the objects listed, remembered for
/// ``goneDuration`` seconds after they go so that live, dead, reclaimed can be watched.
///
/// A source without snapshots gives no classes or objects; its leak reports alone still count
/// suspects.
struct ObserverTracker {
    /// Seconds an object stays listed, greyed, after it went.
    static let goneDuration = 3.0
    /// Gone objects remembered at most; a mass cull need not all be shown.
    static let goneCapacity = 500

    /// Whether a snapshot has come since the start or the last restart.
    private(set) var hasSnapshot = false
    /// Per class, from the newest snapshot, sorted by class name.
    private(set) var classes: [ObserverStatistics] = []
    /// Leak suspects of the newest snapshot, the longest overdue first.
    private(set) var snapshotSuspects: [LeakSuspect] = []
    /// Live instances per class, second by second.
    private(set) var histories: [String: GaugeHistory] = [:]
    /// Objects the newest snapshot listed, by serial.
    private var listed: [UInt64: ObserverInstance] = [:]
    /// Objects that went, by serial, with their last listing.
    private var gone: [UInt64: (instance: ObserverInstance, label: String, since: Double)] = [:]
    /// When each object listed or remembered became a leak suspect, by serial (see
    /// ``InstanceRow/suspectSince``).
    private var suspectSince: [UInt64: Double] = [:]
    /// Objects that unsubscribed since the previous snapshot: if they leave the listing, they
    /// were not reclaimed.
    private var unsubscribed: Set<UInt64> = []
    /// Leak reports not yet cleared, for sources that send no snapshots.
    private var reportedSuspects: [UInt64: SubscriberLifecycleEvent] = [:]
    /// Leak reports kept at most: serials come from the app, and a stranger can send any
    /// number of them.
    static let maximumReportedSuspects = 10_000
    /// Reports of new suspects past ``maximumReportedSuspects``, counted but not kept (so a
    /// later clear of one cannot be matched to it).
    private var suspectsPastLimit = 0

    /// Whether there are classes to show.
    var hasData: Bool { !classes.isEmpty }

    /// Leak suspects now: the newest snapshot's, or those reported and not cleared when the
    /// source sends no snapshots.
    var suspectCount: Int {
        hasSnapshot ? snapshotSuspects.count : reportedSuspects.count.clampedAdding(suspectsPastLimit)
    }

    /// The classes of the suspects, the longest overdue first, each once.
    var suspectClasses: [String] {
        // A set beside the list: as many suspects as a snapshot lists may be of as many classes.
        var names: [String] = []
        var seen: Set<String> = []
        if hasSnapshot {
            for suspect in snapshotSuspects where seen.insert(suspect.className).inserted {
                names.append(suspect.className)
            }
        } else {
            for (_, report) in reportedSuspects.sorted(by: { $0.key < $1.key }) {
                if let name = report.observerTypeName, seen.insert(name).inserted { names.append(name) }
            }
        }
        return names
    }

    /// Follows a lifecycle change at `now` (wall clock seconds).
    mutating func apply(_ change: SubscriberLifecycleEvent, at now: Double) {
        guard let id = change.observerID else { return }
        switch change.kind {
        case .reclaimed:
            if let instance = listed.removeValue(forKey: id) {
                remember(instance, label: "reclaimed", at: now)
            }
        case .unsubscribed:
            if listed[id] != nil { unsubscribed.insert(id) }
        case .leakSuspected:
            if reportedSuspects[id] != nil || reportedSuspects.count < Self.maximumReportedSuspects {
                reportedSuspects[id] = change
            } else {
                suspectsPastLimit.clampedAdd(1)
            }
        case .leakCleared:
            reportedSuspects[id] = nil
        case .subscribed, .duplicateSubscription, .cancelled, .cascadeStopped, .handlerFailed, .slowHandler,
            .slowDelivery:
            break
        }
    }

    /// Takes the observer part of `snapshot`, read at `now` (wall clock) and `readingTime` (the
    /// source's clock, which the sparklines run on).
    mutating func take(_ snapshot: BusSnapshot, at now: Double, readingTime: Double) {
        hasSnapshot = true
        classes = snapshot.observers
        snapshotSuspects = snapshot.leakSuspects
        var classNames: Set<String> = []
        for statistics in classes {
            classNames.insert(statistics.className)
            histories[statistics.className, default: GaugeHistory()].record(
                statistics.liveInstances, at: readingTime)
        }
        for name in histories.keys where !classNames.contains(name) { histories[name] = nil }

        var newListing: [UInt64: ObserverInstance] = [:]
        var listedPerClass: [String: Int] = [:]
        for instance in snapshot.instances {
            newListing[instance.observerID] = instance
            listedPerClass[instance.className, default: 0] += 1
            gone[instance.observerID] = nil
        }
        let statisticsByClass = Dictionary(classes.map { ($0.className, $0) }) { first, _ in first }
        for (id, instance) in listed where newListing[id] == nil {
            // The listing is capped per class: an object missing from a full list may only have
            // been pushed out by newer ones. It went if it was dead already, or if the list now
            // holds every object of its class.
            let statistics = statisticsByClass[instance.className]
            let remaining = statistics.map { $0.liveInstances.clampedAdding($0.deadInstances) } ?? 0
            let isComplete = (listedPerClass[instance.className] ?? 0) >= remaining
            guard instance.state == .dead || isComplete else { continue }
            remember(instance, label: unsubscribed.contains(id) ? "unsubscribed" : "reclaimed", at: now)
        }
        listed = newListing
        unsubscribed.removeAll()
        forget(before: now)
        noteSuspects(at: now)
    }

    /// Sets when each suspect of the newest snapshot became one, the first time it is seen, and
    /// forgets objects no longer listed or remembered.
    private mutating func noteSuspects(at now: Double) {
        for instance in listed.values {
            guard let overdue = instance.overdue, suspectSince[instance.observerID] == nil else { continue }
            suspectSince[instance.observerID] = now - Double(overdue / .milliseconds(1)) / 1000
        }
        for suspect in snapshotSuspects where suspectSince[suspect.observerID] == nil {
            suspectSince[suspect.observerID] = now - Double(suspect.overdue / .milliseconds(1)) / 1000
        }
        let reported = Set(snapshotSuspects.map(\.observerID))
        suspectSince = suspectSince.filter { id, _ in
            listed[id] != nil || gone[id] != nil || reported.contains(id)
        }
    }

    /// Forgets everything: the source now watches another process.
    mutating func restart() {
        self = ObserverTracker()
    }

    /// The objects of `className` to list at `now`: suspects first, the longest overdue first,
    /// then the others newest first, those gone in the last ``goneDuration`` seconds among
    /// them in their places (one that died or went while a suspect among the suspects, by when
    /// it became one), so that a row changes state where it stands and a selection that follows
    /// it does not jump down the list.
    func instances(of className: String, at now: Double) -> [InstanceRow] {
        var rows: [InstanceRow] = []
        var seen: Set<UInt64> = []
        for instance in listed.values where instance.className == className {
            seen.insert(instance.observerID)
            rows.append(
                InstanceRow(
                    observerID: instance.observerID, className: className, age: instance.age,
                    subscriptions: instance.subscriptions,
                    status: instance.isLeakSuspect ? .suspect : instance.state == .dead ? .dead : .live,
                    reason: instance.leakReason, overdue: instance.overdue,
                    suspectSince: suspectSince[instance.observerID]))
        }
        // A source may report suspects without listing objects.
        for suspect in snapshotSuspects
        where suspect.className == className && !seen.contains(suspect.observerID) {
            seen.insert(suspect.observerID)
            rows.append(
                InstanceRow(
                    observerID: suspect.observerID, className: className, age: nil,
                    subscriptions: suspect.subscriptions, status: .suspect, reason: suspect.reason,
                    overdue: suspect.overdue, suspectSince: suspectSince[suspect.observerID]))
        }
        for (id, entry) in gone where entry.instance.className == className && !seen.contains(id) {
            guard now - entry.since < Self.goneDuration, now >= entry.since else { continue }
            rows.append(
                InstanceRow(
                    observerID: id, className: className, age: entry.instance.age,
                    subscriptions: entry.instance.subscriptions,
                    status: .gone(label: entry.label, since: entry.since), reason: nil,
                    overdue: entry.instance.overdue, suspectSince: suspectSince[id]))
        }
        return rows.sorted { first, second in
            let firstSuspect = first.isAmongSuspects
            let secondSuspect = second.isAmongSuspects
            if firstSuspect != secondSuspect { return firstSuspect }
            if firstSuspect, first.suspectSince != second.suspectSince {
                return (first.suspectSince ?? 0) < (second.suspectSince ?? 0)
            }
            return first.observerID > second.observerID
        }
    }

    private mutating func remember(_ instance: ObserverInstance, label: String, at now: Double) {
        gone[instance.observerID] = (instance, label, now)
        if gone.count > Self.goneCapacity {
            forget(before: now)
            // Still too many: the oldest go first.
            let excess = gone.count - Self.goneCapacity
            if excess > 0 {
                for (id, _) in gone.sorted(by: { $0.value.since < $1.value.since }).prefix(excess) {
                    gone[id] = nil
                }
            }
        }
    }

    /// Drops gone objects no longer shown at `now`.
    private mutating func forget(before now: Double) {
        gone = gone.filter { now - $0.value.since < Self.goneDuration }
    }
}
