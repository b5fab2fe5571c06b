internal import EventBus

/// The reclaim of one dead observer's subscriptions, as one log line.
///
/// The bus reports a reclaim once per event type list; a person wants to read what happened to
/// the object: `LoginScreen #41 deallocated; 3 subscriptions reclaimed 12 ms later by a publish
/// of UserLoggedInEvent`. A publish removes dead entries of its own type only, so the rest of an
/// object's subscriptions may go a little later, in a line of their own:
/// `LoginScreen #41: 1 more subscription reclaimed by the sweep`.
struct ObjectReclaim {
    /// The bus's reports, in order; all `.reclaimed`, all of one observer.
    private(set) var changes: [SubscriberLifecycleEvent]
    /// Whether an earlier line already said the object was deallocated.
    let isContinuation: Bool

    /// Starts with the first report of a reclaim.
    init(_ change: SubscriberLifecycleEvent, isContinuation: Bool = false) {
        changes = [change]
        self.isContinuation = isContinuation
    }

    /// Adds the next report.
    mutating func add(_ change: SubscriberLifecycleEvent) {
        changes.append(change)
    }

    /// Subscriptions reclaimed, all types.
    var count: Int { changes.clampedSum(\.count) }

    /// The event types, in the order reported, each once.
    var typeNames: [String] {
        var names: [String] = []
        for change in changes where !names.contains(change.eventTypeName) {
            names.append(change.eventTypeName)
        }
        return names
    }

    /// The line: who went, how many subscriptions the bus removed, how long after it knew of
    /// the death (when it knew before), and what removed them.
    var description: String {
        let name = changes[0].observerName ?? "an observer"
        let plural = count == 1 ? "subscription" : "subscriptions"
        // Reports of one reclaim share these; the longest wait is the honest one if not.
        let deadFor = changes.compactMap(\.deadFor).max()
        let later = deadFor.map { " \(TextFormat.elapsed($0)) later" } ?? ""
        var causes: [String] = []
        for cause in changes.compactMap(\.reclaimedBy) where !causes.contains(cause.description) {
            causes.append(cause.description)
        }
        let by = causes.isEmpty ? "" : " by " + causes.joined(separator: " and ")
        if isContinuation { return "\(name): \(count) more \(plural) reclaimed\(later)\(by)" }
        return "\(name) deallocated; \(count) \(plural) reclaimed\(later)\(by)"
    }
}
