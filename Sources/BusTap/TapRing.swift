import EventBus

/// The one queue between the app's publishing threads and the tap thread.
///
/// Publishers append raw records (the event itself, not its JSON) under a lock held for a few
/// stores; when the ring is full the oldest record is overwritten. Each connected reader keeps its
/// own cursor into the ring, so one slow reader loses records without holding back the others, and
/// appending costs the same however many readers there are.
final class TapRing: @unchecked Sendable {
    /// A record as the publisher's thread leaves it: nothing formatted yet.
    enum Entry {
        case empty
        case event(sequence: Int, time: Double, typeName: String, event: any Event, receivers: Int)
        case lifecycle(sequence: Int, time: Double, change: SubscriberLifecycleEvent)
    }

    /// Where a reader stands: the next ring position and the next sequence numbers it expects.
    struct Cursor {
        var position: Int
        var nextEvent: Int
        var nextLifecycle: Int
    }

    let capacity: Int
    private let lock = Lock()
    // Guarded by `lock`.
    private var entries: [Entry] = []
    private var written = 0
    private var eventsWritten = 0
    private var lifecycleWritten = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Makes room for records; the tap calls this when its first reader connects.
    func allocate() {
        lock.withLock {
            if entries.isEmpty { entries = Array(repeating: .empty, count: capacity) }
        }
    }

    /// Forgets every record, releasing the events they hold; called when the last reader leaves.
    func release() {
        lock.withLock { entries = [] }
    }

    /// A cursor that will see only what is appended from now on.
    func cursorAtEnd() -> Cursor {
        lock.withLock {
            Cursor(position: written, nextEvent: eventsWritten + 1, nextLifecycle: lifecycleWritten + 1)
        }
    }

    /// Called on the publisher's thread for every event: a few stores under the lock.
    @inline(__always)
    func append(_ delivery: DeliveryRecord, time: Double) {
        lock.lock()
        if !entries.isEmpty {
            eventsWritten += 1
            entries[written % capacity] = .event(
                sequence: eventsWritten, time: time, typeName: delivery.eventTypeName, event: delivery.event,
                receivers: delivery.receivers)
            written += 1
        }
        lock.unlock()
    }

    /// Called on whichever thread changed the subscriptions.
    func append(_ change: SubscriberLifecycleEvent, time: Double) {
        lock.lock()
        if !entries.isEmpty {
            lifecycleWritten += 1
            entries[written % capacity] = .lifecycle(sequence: lifecycleWritten, time: time, change: change)
            written += 1
        }
        lock.unlock()
    }

    /// Copies up to `limit` records from `position` on into `output`, replacing its contents.
    ///
    /// - Returns: The position of the first record copied (later than `position` when those
    ///   records were overwritten) and the position after the last.
    func copy(from position: Int, limit: Int, into output: inout [Entry]) -> Range<Int> {
        output.removeAll(keepingCapacity: true)
        lock.lock()
        defer { lock.unlock() }
        guard !entries.isEmpty else { return written..<written }
        let start = max(position, written - capacity)
        let end = min(written, start + limit)
        guard start < end else { return end..<end }
        for index in start..<end {
            output.append(entries[index % capacity])
        }
        return start..<end
    }

    /// The position after the newest record.
    var end: Int {
        lock.withLock { written }
    }
}
