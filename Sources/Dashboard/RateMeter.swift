internal import EventBus

/// Turns a growing counter, read now and then, into a rate and a per-second history.
struct RateMeter {
    /// Seconds of history kept for sparklines.
    static let historySeconds = 120
    /// Seconds the rate is averaged over.
    static let window = 2.0
    /// Least seconds between two samples kept for the rate.
    static let sampleSpacing = 0.1

    private struct Sample {
        var time: Double
        var total: Int
    }

    private(set) var total: Int?
    /// Whether the counter moves only with readings made now and then (a protocol's row, whose
    /// count comes from snapshots alone): the rate is then taken up to the newest reading, not
    /// up to now, so that it does not sag between two readings by what the next will add. From
    /// a second after the newest reading time runs on, so that a counter nobody reads any more
    /// falls to zero.
    var endsAtNewestReading = false
    private var samples: [Sample] = []
    private var buckets = [Int](repeating: 0, count: historySeconds)
    private var newestSecond: Int?

    /// Creates a meter that starts counting from `total`, read at `time`; `nil` starts it at
    /// the first reading.
    init(startingAt total: Int? = nil, time: Double? = nil) {
        if let total, let time {
            self.total = total
            samples = [Sample(time: time, total: total)]
        }
    }

    /// Takes a reading of the counter. Totals come from an app and a rebase may have shifted the
    /// stored one below 0: differences are taken without overflow.
    mutating func record(total newTotal: Int, at now: Double) {
        let second = Int((now).rounded(.down))
        moveHistory(to: second)
        if let total, newTotal > total {
            buckets[Self.bucket(second)].clampedAdd(newTotal.clampedSubtracting(total))
        }
        total = newTotal
        // The newest reading is always kept; the one before it is replaced while they are
        // closer than the spacing, so frequent readings do not pile up.
        if samples.count >= 2, now - samples[samples.count - 2].time < Self.sampleSpacing {
            samples[samples.count - 1] = Sample(time: now, total: newTotal)
        } else {
            samples.append(Sample(time: now, total: newTotal))
        }
        let horizon = now - Self.window - 1
        if let firstKept = samples.firstIndex(where: { $0.time >= horizon }), firstKept > 1 {
            samples.removeFirst(firstKept - 1)
        }
    }

    /// Shifts the counter by `delta` without counting it: the next reading compares with the
    /// shifted total, so a total that jumps to a baseline shows no spike.
    mutating func rebase(by delta: Int) {
        guard total != nil, delta != 0 else { return }
        total = total?.clampedAdding(delta)
        for index in samples.indices { samples[index].total.clampedAdd(delta) }
    }

    /// Counts per second averaged over the last ``window`` seconds before `time`; over the
    /// time there is, but ``shortestSpan`` at least, while the meter is younger than the window.
    func rate(at time: Double) -> Double {
        guard let total else { return 0 }
        let newest = samples.last?.time ?? time
        let now = endsAtNewestReading ? min(time, max(newest, time - Self.readingPatience)) : time
        let start = now - Self.window
        // The newest sample at or before the window's start, or the oldest there is.
        let base = samples.last { $0.time <= start } ?? samples.first
        guard let base, now - base.time > 1e-6 else { return 0 }
        // Three events a millisecond after the first reading (a replay stepped on from its
        // start) are no 3,000 a second: too few, too close, to say more than that they came
        // within a reading's spacing.
        return Double(max(0, total.clampedSubtracting(base.total))) / max(now - base.time, Self.shortestSpan)
    }

    /// Seconds after its newest reading that a meter ``endsAtNewestReading`` still takes its
    /// rate up to that reading: twice the interval at which taps send snapshots.
    static let readingPatience = 1.0

    /// Seconds a rate is taken over at least: the spacing of the samples it keeps.
    static let shortestSpan = sampleSpacing

    /// Counts in each of the `count` whole seconds before the one `now` falls in, oldest first.
    func history(seconds count: Int, at now: Double) -> [Int] {
        let current = Int(now.rounded(.down))
        guard count > 0 else { return [] }
        // A loop, not `map` with a closure: every row of the table asks for its history in every
        // frame, and a debug build pays a call per second of it.
        var history = [Int](repeating: 0, count: count)
        guard let newestSecond else { return history }
        for offset in 0..<count {
            let second = current - count + offset
            if second <= newestSecond, second > newestSecond - Self.historySeconds {
                history[offset] = buckets[Self.bucket(second)]
            }
        }
        return history
    }

    private mutating func moveHistory(to second: Int) {
        guard let newest = newestSecond else {
            newestSecond = second
            return
        }
        guard second > newest else { return }
        for cleared in (newest + 1)...min(second, newest + Self.historySeconds) {
            buckets[Self.bucket(cleared)] = 0
        }
        newestSecond = second
    }

    private static func bucket(_ second: Int) -> Int {
        ((second % historySeconds) + historySeconds) % historySeconds
    }
}
