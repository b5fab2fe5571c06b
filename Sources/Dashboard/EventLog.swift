internal import BusMonitor
internal import BusWire
internal import EventBus
internal import Synchronization

/// Logs made so far in this process: the last one's ``EventLog/epoch``.
private let logsMade = Atomic<Int>(0)

/// One line of the dashboard's log: an event, a lifecycle change, or a notice about the source.
struct LogEntry {
    /// What the line shows.
    enum Content {
        case event(FeedEvent)
        case lifecycle(SubscriberLifecycleEvent)
        /// A dead observer's subscriptions reclaimed, all its event types in one line.
        case reclaim(ObjectReclaim)
        /// Something that happened to the source itself, such as a detach.
        case notice(SourceNotice)
    }

    /// The line's place in the log since the dashboard started; never reused.
    let sequence: Int
    /// Seconds since 1970 when it was captured.
    let time: Double
    let content: Content

    /// The event type the line is about (`*` for wildcard lifecycle changes, empty for notices).
    var typeName: String {
        switch content {
        case .event(let event): return event.typeName
        case .lifecycle(let change): return change.eventTypeName
        // Every type, so that filtering by any of them finds the line.
        case .reclaim(let reclaim): return reclaim.typeNames.joined(separator: " ")
        case .notice: return ""
        }
    }

    /// The process the line's event or change came from, for a source that watches several.
    var origin: EventOrigin? {
        switch content {
        case .event(let event): return event.origin
        case .lifecycle, .reclaim: return changeOrigin
        case .notice: return nil
        }
    }

    /// The origin of a lifecycle change or a reclaim, which their content does not hold.
    let changeOrigin: EventOrigin?

    /// A line at `time` showing `content`; `origin` is where a change came from (an event
    /// holds its own).
    init(sequence: Int, time: Double, content: Content, origin: EventOrigin? = nil) {
        self.sequence = sequence
        self.time = time
        self.content = content
        changeOrigin = origin
    }

    /// The text after the type: the payload of an event, the account of a change.
    ///
    /// Formatting an in-process event's payload costs an encoding, so callers ask only for
    /// lines they draw or filter.
    var detailText: String {
        switch content {
        case .event(let event): return event.payload.text
        case .lifecycle(let change): return change.description
        case .reclaim(let reclaim): return reclaim.description
        case .notice(let notice): return notice.text
        }
    }
}

/// The newest lines, at most `capacity` of them; older ones drop off the front.
///
/// Lines are addressed by sequence number, so a position in the log stays meaningful while
/// lines arrive and drop.
struct EventLog {
    let capacity: Int
    /// This log's number among the logs made so far, so that a line is known by this and its
    /// sequence number alone: a log made anew (a replay that read again from a checkpoint)
    /// numbers its lines from 0 again.
    let epoch: Int
    private var entries: [LogEntry] = []
    private var oldest = 0
    /// The sequence number the next line gets.
    private(set) var nextSequence = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        epoch = logsMade.add(1, ordering: .relaxed).newValue
    }

    /// Lines held.
    var count: Int { entries.count }

    /// The sequence number of the oldest line held (equal to ``nextSequence`` when empty).
    var firstSequence: Int { nextSequence - entries.count }

    /// The sequence numbers held, oldest first.
    var sequences: Range<Int> { firstSequence..<nextSequence }

    /// The line numbered `sequence`, if it is still held.
    subscript(sequence: Int) -> LogEntry? {
        guard sequences.contains(sequence) else { return nil }
        return entries[(oldest + sequence - firstSequence) % capacity]
    }

    /// Appends a line, dropping the oldest when full.
    mutating func append(time: Double, content: LogEntry.Content, origin: EventOrigin? = nil) {
        let entry = LogEntry(sequence: nextSequence, time: time, content: content, origin: origin)
        nextSequence += 1
        if entries.count < capacity {
            entries.append(entry)
        } else {
            entries[oldest] = entry
            oldest = (oldest + 1) % capacity
        }
    }
}
