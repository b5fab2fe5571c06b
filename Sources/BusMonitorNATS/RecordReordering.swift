internal import BusMonitor
internal import BusWire

/// Puts each app's records back in the order of their times, as a tap's single stream has them.
///
/// A bridge sends an app's events as they are published and its lifecycle changes (and its
/// handler calls) a tenth of a second at a time, on subjects of their own: a monitor receives a
/// `deallocated` after events published later. Records wait here until their app has sent
/// records ``holdBack`` newer, or for ``longestWait`` of the monitor's clock, whichever comes
/// first, and leave sorted by time. Apps are ordered apart: each app's clock orders only its own
/// records, and one whose clock runs ahead never holds up the others.
struct RecordReordering {
    /// How much newer an app's records must be than a waiting one for it to leave: more than
    /// a bridge's lifecycle round, a tenth of a second, plus the network.
    static let holdBack = 0.3
    /// The longest a record waits, in seconds of the monitor's clock, when its app goes quiet.
    static let longestWait = 1.0
    /// Records that may wait at once; beyond, every waiting record leaves at once (memory stays
    /// bounded under a flood, where a drain's batch is bounded too).
    static let maximumWaiting = 200_000

    private struct Waiting {
        var record: FeedRecord
        var time: Double
        var arrived: Double
    }

    /// Waiting records by app, in the order they arrived.
    private var waiting: [FeedOrigin: [Waiting]] = [:]
    private var waitingCount = 0
    /// The newest record time of each app that has records waiting.
    private var newest: [FeedOrigin: Double] = [:]

    /// Takes `records`, arrived by `now` (seconds on the monitor's clock), and returns those
    /// due, each app's in the order of their times. Records of no app, or with no time, pass at
    /// once.
    mutating func pass(_ records: [FeedRecord], now: Double) -> [FeedRecord] {
        var passing: [FeedRecord] = []
        var due: [Waiting] = []
        for record in records {
            guard let origin = record.origin, let time = record.time, time.isFinite else {
                passing.append(record)
                continue
            }
            waiting[origin, default: []].append(Waiting(record: record, time: time, arrived: now))
            newest[origin] = max(newest[origin] ?? time, time)
            waitingCount += 1
        }
        let overfull = waitingCount > Self.maximumWaiting
        for origin in Array(waiting.keys) {
            guard var records = waiting[origin] else { continue }
            let newestTime = newest[origin] ?? -.infinity
            let latestDue =
                records.lazy.filter {
                    overfull || $0.time <= newestTime - Self.holdBack || now - $0.arrived >= Self.longestWait
                }.map(\.time).max()
            guard let latestDue else { continue }
            // Whatever is older than a record that is due is due too: it would come after it.
            due += records.filter { $0.time <= latestDue }
            let before = records.count
            records.removeAll { $0.time <= latestDue }
            waitingCount -= before - records.count
            if records.isEmpty {
                waiting[origin] = nil
                newest[origin] = nil
            } else {
                waiting[origin] = records
            }
        }
        // Apps' records among each other by their times too, as they mostly came.
        return passing + Self.sorted(due)
    }

    /// Every record waiting of the apps whose newest record is older than `cutoff` (seconds
    /// since 1970, on their clocks), and of the apps in `gone`: apps nothing newer will come
    /// from, whose records need not wait (a history's that ended, an app that left).
    mutating func flush(appsQuietSince cutoff: Double, gone: Set<FeedOrigin> = []) -> [FeedRecord] {
        var leaving: [Waiting] = []
        for (origin, records) in waiting
        where gone.contains(origin) || (newest[origin] ?? -.infinity) < cutoff {
            leaving += records
            waiting[origin] = nil
            newest[origin] = nil
        }
        waitingCount -= leaving.count
        return Self.sorted(leaving)
    }

    /// Every record still waiting, each app's sorted: for the last drain.
    mutating func flush() -> [FeedRecord] {
        defer {
            waiting = [:]
            newest = [:]
            waitingCount = 0
        }
        return Self.sorted(waiting.values.flatMap { $0 })
    }

    /// `records` by time, those of one time in the order they arrived.
    private static func sorted(_ records: [Waiting]) -> [FeedRecord] {
        records.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(
            \.element.record)
    }
}
