internal import BusWire
internal import EventBus

/// Writes the records of batches as wire-format lines: what a recording and headless output
/// both hold, line for line, in the order the source received them.
///
/// Events are numbered in the order written (from 1, so a reader sees a gap only where this
/// writer lost something), payloads held as values are formatted, and a `dropped` line follows
/// whenever the source's count of dropped events (or handler calls) changed. Lifecycle changes and snapshots are
/// written as they came, with their app's origin when they have one.
struct RecordLines {
    /// The number the next event line gets.
    private(set) var nextSequence = 1
    /// Event, lifecycle, snapshot and call lines written so far.
    private(set) var recordsWritten = 0
    /// The drop counts of the last `dropped` line.
    private var lastDropped = 0
    private var lastDroppedCalls = 0
    private var lastDroppedLifecycle = 0
    private var lastDroppedPastTheLimit = 0
    /// The newest record time written, and the monotonic clock when it was: a `dropped` line
    /// that the source does not stamp (``SourceBatch/droppedAt``) takes that time plus the time
    /// since, so a recording of a replay keeps the replay's clock.
    private var lastRecordTime: Double?
    private var lastRecordClock = 0.0
    /// The fleet as the last `fleet` line listed it (see ``FleetLine/shape(of:)``).
    private var lastFleet: [FleetLine.FleetShape]?
    /// When the last `fleet` line stood: fleet lines never go back.
    private var lastFleetTime = -Double.infinity

    /// Appends the lines of `batch` to `writer`.
    ///
    /// - Returns: The number of lines appended.
    mutating func write(_ batch: SourceBatch, into writer: inout JSONLineWriter) -> Int {
        var lines = 0
        for record in batch.records {
            switch record {
            case .event(var event):
                event.sequence = nextSequence
                nextSequence += 1
                event.payload = event.payload.formatted
                writer.write(event)
            case .lifecycle, .snapshot, .call:
                writer.write(record)
            case .hello, .detached:
                // An attached app's hellos and detaches, and a replay's, go where they were.
                writer.write(record)
            case .dropped, .refused:
                continue  // not part of a batch
            }
            if let time = record.time { stamp(time) }
            lines += 1
        }
        recordsWritten += lines
        // An empty fleet before anything was written (busmon listening, no app yet) is no news.
        if let fleet = batch.fleet, lastFleet != nil || !fleet.isEmpty {
            let shape = FleetLine.shape(of: fleet)
            if shape != lastFleet {
                writeFleetLine(fleet, into: &writer)
                lines += 1
            }
        }
        if batch.droppedEvents != lastDropped || batch.droppedCalls != lastDroppedCalls
            || batch.droppedLifecycle != lastDroppedLifecycle
            || batch.droppedFromAppsPastTheLimit != lastDroppedPastTheLimit
        {
            lastDropped = batch.droppedEvents
            lastDroppedCalls = batch.droppedCalls
            lastDroppedLifecycle = batch.droppedLifecycle
            lastDroppedPastTheLimit = batch.droppedFromAppsPastTheLimit
            writer.write(
                FeedDrops(
                    // Never before a record already written: stamps go on in order.
                    time: batch.droppedAt.map { max($0, lastRecordTime ?? $0) } ?? currentTime(),
                    events: batch.droppedEvents,
                    lifecycle: batch.droppedLifecycle,
                    calls: batch.droppedCalls, fromAppsPastTheLimit: batch.droppedFromAppsPastTheLimit))
            lines += 1
        }
        return lines
    }

    /// Appends a `fleet` line listing `fleet` at `time`, or now on the records' clock, but
    /// never before the last fleet line: lines written as the fleet changes and those that
    /// lead each summary of a headless run take turns, and each reads its own clock.
    mutating func writeFleetLine(
        _ fleet: [FleetMember], at time: Double? = nil, into writer: inout JSONLineWriter
    ) {
        let stamp = max(time ?? currentTime(), lastFleetTime)
        lastFleetTime = stamp
        lastFleet = FleetLine.shape(of: fleet)
        FleetLine.write(fleet, time: stamp, into: &writer)
    }

    /// Whether a `fleet` line was written.
    var wroteFleetLine: Bool { lastFleet != nil }

    private mutating func stamp(_ time: Double) {
        lastRecordTime = max(lastRecordTime ?? time, time)
        lastRecordClock = MonotonicClock.now()
    }

    private func currentTime() -> Double {
        guard let last = lastRecordTime else { return WallClock.now() }
        return last + (MonotonicClock.now() - lastRecordClock)
    }
}
