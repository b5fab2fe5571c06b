extension FeedRecord {
    /// When the record was made, seconds since 1970 on its writer's clock; `nil` for a hello and
    /// a refusal, which stand outside a stream's time.
    package var time: Double? {
        switch self {
        case .event(let event): return event.time
        case .lifecycle(let change): return change.time
        case .snapshot(let snapshot): return snapshot.time
        case .dropped(let drops): return drops.time
        case .call(let call): return call.time
        case .detached(let detach): return detach.time
        case .hello, .refused: return nil
        }
    }

    /// Whether the record tells of what a process's bus did (an event, a lifecycle change, a
    /// snapshot, a handler call, a count of its losses), which only the `hello` before it says
    /// whose it is; not a hello, a refusal or a monitor's own note of a detach.
    package var isOfAProcess: Bool {
        switch self {
        case .event, .lifecycle, .snapshot, .call, .dropped: return true
        case .hello, .refused, .detached: return false
        }
    }

    /// The process the record names as its sender, when it names one (it came through a fleet).
    package var origin: FeedOrigin? {
        switch self {
        case .event(let event): return event.origin
        case .lifecycle(let change): return change.origin
        case .snapshot(let snapshot): return snapshot.origin
        case .call(let call): return call.origin
        case .hello, .dropped, .refused, .detached: return nil
        }
    }
}

extension [FeedRecord] {
    /// The event records, in order.
    package var events: [FeedEvent] {
        compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    /// The lifecycle records, in order.
    package var lifecycleChanges: [FeedLifecycle] {
        compactMap { if case .lifecycle(let change) = $0 { change } else { nil } }
    }

    /// The snapshot records, in order.
    package var snapshots: [FeedSnapshot] {
        compactMap { if case .snapshot(let snapshot) = $0 { snapshot } else { nil } }
    }

    /// The handler calls, in order.
    package var calls: [FeedHandlerCall] {
        compactMap { if case .call(let call) = $0 { call } else { nil } }
    }

    /// The drop counts, in order.
    package var drops: [FeedDrops] {
        compactMap { if case .dropped(let drops) = $0 { drops } else { nil } }
    }

    /// The last snapshot record.
    package var newestSnapshot: FeedSnapshot? {
        for record in reversed() {
            if case .snapshot(let snapshot) = record { return snapshot }
        }
        return nil
    }
}
