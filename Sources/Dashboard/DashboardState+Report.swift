internal import BusMonitor
internal import BusWire
internal import EventBus

extension DashboardState {
    /// Log lines a state report ends with.
    static let reportedLogLines = 20

    /// The apps' newest snapshots, summed as the panes show them (``snapshotsAsShown``); `nil`
    /// before any arrived.
    var shownSnapshot: BusSnapshot? {
        let snapshots = snapshotsAsShown
        return snapshots.isEmpty ? nil : mergedSnapshot(of: snapshots)
    }

    /// What every pane shows, as one JSON line (`"kind":"state"`): the events and lifecycle
    /// changes lost on the way so far (and a fleet's records from apps past its limit); each type's count, unheard publishes and rate; the bus's snapshot as the wire carries it (subscribers, observers,
    /// handlers, leak suspects, sticky events), summed over a fleet's apps; the fleet's members;
    /// and the newest log lines as wire records. `busmon --replay FILE --at TIME --headless`
    /// prints it.
    ///
    /// - Parameters:
    ///   - cursor: Seconds into the recording, for a replay.
    ///   - now: The source's time the report is for, which the rates are read at.
    package func reportLine(cursor: Double?, now: Double) -> String {
        var writer = JSONLineWriter(reservingCapacity: 4096)
        writer.beginRecord("state")
        if let cursor { writer.field("at", cursor) }
        writer.field("time", now)
        // Losses the source counted up to now, as the header shows them.
        writer.field("dropped", droppedEvents)
        writer.field("lifecycleDropped", droppedLifecycle)
        // A fleet's records from apps past the member limit, as the header counts them.
        if droppedFromAppsPastTheLimit > 0 {
            writer.field("droppedFromAppsPastTheLimit", droppedFromAppsPastTheLimit)
        }
        writer.beginArray("types")
        for row in rows {
            writer.beginObject(nil)
            writer.field("typeName", row.name)
            writer.field("published", row.published)
            writer.field("unheard", row.unheard)
            writer.field("rate", (row.meter.rate(at: now) * 10).rounded() / 10)
            // The row that sums the types past the table's limit, told apart from a type of
            // that name.
            if row.isOtherTypes { writer.field("otherTypes", true) }
            writer.endObject()
        }
        writer.endArray()
        if let snapshot = shownSnapshot {
            let line = FeedRecord.snapshot(FeedSnapshot(time: now, snapshot: snapshot)).encodeLine()
            writer.rawField("snapshot", String(line.dropLast()))
        }
        if let fleet {
            writer.beginArray("fleet")
            for row in fleet.rows {
                writer.beginObject(nil)
                writer.field("app", row.member.origin.app)
                writer.field("host", row.member.origin.host)
                writer.field("pid", row.member.origin.pid)
                writer.field("presence", row.member.presence.rawValue)
                // As the Fleet pane's EVENTS: received from it since the recording began.
                writer.field("events", row.member.eventsReceived)
                writer.field("rate", (row.meter.rate(at: now) * 10).rounded() / 10)
                writer.endObject()
            }
            writer.endArray()
        }
        writer.beginArray("log")
        var first = true
        for sequence in log.sequences.suffix(Self.reportedLogLines) {
            guard let entry = log[sequence] else { continue }
            let records: [FeedRecord]
            switch entry.content {
            case .event(let event): records = [.event(event)]
            case .lifecycle(let change):
                records = [.lifecycle(FeedLifecycle(time: entry.time, change: change))]
            // One line for an object's reclaimed subscriptions: the changes it is made of.
            case .reclaim(let reclaim):
                records = reclaim.changes.map { .lifecycle(FeedLifecycle(time: entry.time, change: $0)) }
            case .notice: records = []
            }
            for record in records {
                if !first { writer.appendRaw(",") }
                first = false
                writer.appendRaw(String(record.encodeLine().dropLast()))
            }
        }
        writer.endArray()
        writer.endRecord()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
