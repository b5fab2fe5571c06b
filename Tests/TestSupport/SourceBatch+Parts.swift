import BusMonitor
import BusWire
import EventBus

extension SourceBatch {
    /// A batch made of parts, as tests script a source: the events and lifecycle changes in
    /// time order (events first on equal times), then the snapshot, with the last
    /// `eventsAfterSnapshot` events after it, which its counts do not include.
    package init(
        events: [FeedEvent] = [], lifecycle: [FeedLifecycle] = [], snapshot: BusSnapshot? = nil,
        eventsAfterSnapshot: Int = 0, droppedEvents: Int = 0, status: String? = nil,
        notices: [SourceNotice] = [], countersRestarted: Bool = false, fleet: [FleetMember]? = nil
    ) {
        var records: [FeedRecord] = []
        var eventIndex = 0
        var changeIndex = 0
        while eventIndex < events.count || changeIndex < lifecycle.count {
            if changeIndex == lifecycle.count
                || (eventIndex < events.count && events[eventIndex].time <= lifecycle[changeIndex].time)
            {
                records.append(.event(events[eventIndex]))
                eventIndex += 1
            } else {
                records.append(.lifecycle(lifecycle[changeIndex]))
                changeIndex += 1
            }
        }
        if let snapshot {
            let after = min(max(0, eventsAfterSnapshot), events.count)
            let time = events.last?.time ?? lifecycle.last?.time ?? 0
            var position = records.endIndex
            var skipped = 0
            while skipped < after, position > records.startIndex {
                position -= 1
                if case .event = records[position] { skipped += 1 }
            }
            records.insert(.snapshot(FeedSnapshot(time: time, snapshot: snapshot)), at: position)
        }
        self.init(
            records: records, droppedEvents: droppedEvents, status: status, notices: notices,
            countersRestarted: countersRestarted, fleet: fleet)
    }

    /// The snapshot of the batch: its newest.
    package var snapshot: BusSnapshot? { newestSnapshot?.snapshot }
}

extension FeedEvent {
    /// An event as an in-process capture keeps it, unnumbered, holding its value.
    package init(
        time: Double, typeName: String, value: any Event, receivers: Int, origin: FeedOrigin? = nil,
        trace: PublishTrace = PublishTrace()
    ) {
        self.init(
            sequence: 0, time: time, typeName: typeName, payload: .value(value), receivers: receivers,
            origin: origin, trace: trace)
    }
}
