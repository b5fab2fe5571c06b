/// When a reader of apps' taps (attached to one, or listening for apps that dial in) pauses
/// between reads, so that an app publishing a trickle costs busmon a wake-up and a frame for
/// what gathered in a pause rather than one for every 10 ms a tap sends, while a busy app is
/// read as fast as it sends.
///
/// The pause is three frames at 25 frames a second: longer than the tenth of a second on which
/// the log moves on, so two frames of news are never closer than the log's beat and each shows
/// the log moved on (at a pause of exactly a tenth, news often reached frames 80 ms after the
/// last, the log held their lines back, and a frame 40 ms later showed them: 14 frames a second
/// instead of 10). A trickle then reaches the dashboard about eight times a second.
///
/// A reader pauses only while what arrives in a pause, at the rate of the last second or of
/// this one if higher, stays under a quarter of what a tap holds for a reader (256 KiB):
/// beyond that the tap finds the reader behind and starts dropping. At 200 bytes an event that
/// is up to about 2,700 events a second (from all the apps a listener reads together); a
/// busier stream is read at once, at every frame. A dashboard paces its drains of a source
/// with no reader of its own (a NATS fleet) the same way, counting records.
package struct ReadPacing {
    /// Seconds a reader pauses after a read while the app's rate allows it.
    package static let pause = 0.12
    /// Bytes that may gather during a pause: a quarter of a tap's 256 KiB for a reader.
    package static let bytesPerPause = 64 << 10
    /// Records that may gather during a pause, for a dashboard that paces its drains: what
    /// ``bytesPerPause`` holds of a tap's lines of 200 bytes.
    package static let recordsPerPause = bytesPerPause / 200
    /// Seconds over which the rate is taken.
    package static let window = 1.0

    /// What may gather during a pause, in the unit counted: bytes, or records.
    private let allowance: Int
    private var windowStart: Double
    private var windowAmount = 0
    /// The amount a second over the last whole window.
    private var lastRate = 0.0

    /// Starts pacing at `now` (seconds), with `allowance` (bytes or records, as counted) that
    /// may gather during a pause.
    package init(now: Double, allowance: Int = bytesPerPause) {
        self.allowance = allowance
        windowStart = now
    }

    /// Counts a read of `amount` (bytes or records) at `now`; returns whether the reader
    /// should pause before it reads again.
    ///
    /// - Parameter room: What the read could take at most, if it was bounded: a read that
    ///   filled it left more waiting, and the reader reads on at once. Paced, a backlog read a
    ///   bounded piece at a time would measure the pace itself, just under the allowance, and
    ///   keep the reader paused while the tap dropped what waited behind.
    package mutating func pausesAfter(reading amount: Int, outOf room: Int? = nil, at now: Double) -> Bool {
        windowAmount += amount
        let elapsed = now - windowStart
        if elapsed >= Self.window {
            lastRate = Double(windowAmount) / elapsed
            windowStart = now
            windowAmount = 0
        }
        // The current window counts as at least a pause long, so that one large read right
        // after a quiet spell reads as the burst it is, not as a second's average.
        let currentRate = Double(windowAmount) / max(now - windowStart, Self.pause)
        if let room, amount >= room { return false }
        return max(lastRate, currentRate) * Self.pause < Double(allowance)
    }
}
