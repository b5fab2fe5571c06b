/// A level read now and then (such as live instances of a class), kept as one value per second
/// for a sparkline.
///
/// ``RateMeter`` counts what a growing counter added each second; a level is not a counter, so
/// each second keeps the highest reading in it (a short peak still shows), and seconds without a
/// reading carry the level read before them.
struct GaugeHistory: Equatable {
    /// Seconds of history kept.
    static let historySeconds = RateMeter.historySeconds

    private var buckets = [Int](repeating: 0, count: historySeconds)
    private var firstSecond: Int?
    private var newestSecond: Int?
    /// The newest reading.
    private(set) var newest = 0

    /// Takes a reading of the level at `time` (seconds); readings older than the newest second
    /// are ignored.
    mutating func record(_ value: Int, at time: Double) {
        guard time.isFinite else { return }
        let second = Int(time.rounded(.down))
        guard let last = newestSecond else {
            firstSecond = second
            newestSecond = second
            buckets[Self.bucket(second)] = value
            newest = value
            return
        }
        guard second >= last else { return }
        if second == last {
            buckets[Self.bucket(second)] = max(buckets[Self.bucket(second)], value)
        } else {
            // The seconds between the two readings held the level read before them.
            if second - last > 1 {
                for carried in (last + 1)..<min(second, last + Self.historySeconds + 1) {
                    buckets[Self.bucket(carried)] = newest
                }
            }
            buckets[Self.bucket(second)] = value
            newestSecond = second
        }
        newest = value
    }

    /// The level in each of the `count` whole seconds before the one `now` falls in, oldest
    /// first, like ``RateMeter/history(seconds:at:)`` so the two sparklines line up in time.
    /// Seconds before the first reading are 0; seconds after the newest carry it.
    func history(seconds count: Int, at now: Double) -> [Int] {
        guard let firstSecond, let newestSecond, now.isFinite else {
            return [Int](repeating: 0, count: max(0, count))
        }
        let current = Int(now.rounded(.down))
        return (0..<max(0, count)).map { offset in
            let second = current - count + offset
            if second < firstSecond || second <= newestSecond - Self.historySeconds { return 0 }
            return second > newestSecond ? newest : buckets[Self.bucket(second)]
        }
    }

    private static func bucket(_ second: Int) -> Int {
        ((second % historySeconds) + historySeconds) % historySeconds
    }
}
