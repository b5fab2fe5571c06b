import BusWire

extension [FeedRecord] {
    /// The event records, in order.
    package var events: [FeedEvent] {
        compactMap { if case .event(let event) = $0 { return event } else { return nil } }
    }

    /// The lifecycle records, in order.
    package var lifecycleChanges: [FeedLifecycle] {
        compactMap { if case .lifecycle(let change) = $0 { return change } else { return nil } }
    }

    /// The snapshot records, in order.
    package var snapshots: [FeedSnapshot] {
        compactMap { if case .snapshot(let snapshot) = $0 { return snapshot } else { return nil } }
    }

    /// The drop counts, in order.
    package var drops: [FeedDrops] {
        compactMap { if case .dropped(let drops) = $0 { return drops } else { return nil } }
    }
}
