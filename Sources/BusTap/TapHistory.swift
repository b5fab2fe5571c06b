import BusWire

/// The records the tap thread has taken from the inbox, kept so that readers can each go at
/// their own pace: one ring of the newest records, one cursor per reader.
///
/// Owned by the tap thread alone, so it needs no lock. A reader that falls more than `capacity`
/// records behind skips to the oldest one kept; the sequence numbers tell it what it lost.
struct TapHistory {
    /// One record, not formatted yet: an event (numbered in its ``FeedEvent/sequence``), or a
    /// lifecycle change with its own number.
    enum Entry {
        case event(FeedEvent)
        case lifecycle(sequence: Int, FeedLifecycle)
        /// A handler call, kept while a reader asked for calls, with its number among the calls
        /// the tap kept (from 1), so that a reader that skips some can count them.
        case call(sequence: Int, FeedHandlerCall)

        /// When it happened, in seconds since 1970 (a call: when it started).
        var time: Double {
            switch self {
            case .event(let event): event.time
            case .lifecycle(_, let change): change.time
            case .call(_, let call): call.time
            }
        }
    }

    /// Where a reader stands: the next position, and the sequence numbers it expects next.
    struct Cursor {
        var position: Int
        var nextEvent: Int
        var nextLifecycle: Int
    }

    let capacity: Int
    private var entries: [Entry] = []
    /// Records ever appended: the position after the newest.
    private(set) var end = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The position of the oldest record kept.
    var oldest: Int { max(0, end - entries.count) }

    mutating func allocate() {
        entries.reserveCapacity(capacity)
    }

    /// Forgets every record, releasing the events they hold; only when no reader has a cursor,
    /// since positions start over.
    mutating func release() {
        entries = []
        end = 0
    }

    mutating func append(_ entry: Entry) {
        // Positions start at 0 and slots fill in order, so position % capacity is the slot.
        if entries.count < capacity {
            entries.append(entry)
        } else {
            entries[end % capacity] = entry
        }
        end += 1
    }

    /// The record at `position`, which must lie in `oldest..<end`.
    subscript(position: Int) -> Entry {
        entries[position % capacity]
    }
}
