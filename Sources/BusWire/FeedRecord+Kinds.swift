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
