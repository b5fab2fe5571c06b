import Testing

@testable import BusMonitor

/// An attached reader pauses between reads while its app trickles, and reads a busy app at once.
@Suite("ReadPacing") struct ReadPacingTests {
    /// Feeds `pacing` reads of `bytes` every `interval` seconds from `start` for `seconds`, and
    /// returns how many of them were followed by a pause.
    private func pauses(
        _ pacing: inout ReadPacing, reads bytes: Int, every interval: Double, from start: Double,
        for seconds: Double
    ) -> (paused: Int, reads: Int) {
        var paused = 0
        var reads = 0
        var time = start
        while time < start + seconds {
            if pacing.pausesAfter(reading: bytes, at: time) { paused += 1 }
            reads += 1
            time += interval
        }
        return (paused, reads)
    }

    @Test("simapp's default rate (about 50 KB a second) is read after every pause")
    func aTricklePauses() {
        var pacing = ReadPacing(now: 0)
        let trickle = pauses(&pacing, reads: 6_000, every: ReadPacing.pause, from: 0, for: 5)
        #expect(trickle.paused == trickle.reads)
    }

    @Test("an app sending 20 MB a second is never paused for")
    func aBusyAppIsReadAtOnce() {
        var pacing = ReadPacing(now: 0)
        let busy = pauses(&pacing, reads: 64 << 10, every: 0.003, from: 0, for: 3)
        #expect(busy.paused == 0, "\(busy.paused) of \(busy.reads) reads paused")
    }

    @Test("one read as large as a pause may hold, right after a quiet spell, is a burst: no pause")
    func aBurstAfterQuietIsNotPausedFor() {
        var pacing = ReadPacing(now: 0)
        let afterQuiet = pacing.pausesAfter(reading: 100, at: 5)
        let afterBurst = pacing.pausesAfter(reading: ReadPacing.bytesPerPause, at: 5.05)
        #expect(afterQuiet)
        #expect(!afterBurst)
    }

    @Test("once an app turns quiet, the reader pauses again within two of the rate's windows")
    func pausesAgainAfterTheRateFalls() {
        var pacing = ReadPacing(now: 0)
        let busy = pauses(&pacing, reads: 64 << 10, every: 0.01, from: 0, for: 2)
        #expect(busy.paused == 0)
        // The window the busy reads ended in still reads at their rate; the reads after the
        // next window's end pause.
        let turning = pauses(
            &pacing, reads: 1_000, every: ReadPacing.pause, from: 2, for: 2 * ReadPacing.window)
        #expect(turning.paused < turning.reads)
        let quiet = pauses(&pacing, reads: 1_000, every: ReadPacing.pause, from: 4, for: 2)
        #expect(quiet.paused == quiet.reads)
    }
}
