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

    @Test("a backlog read a chunk at a time is read on at once, not at the pace's own rate")
    func aFullChunkIsNeverPausedFor() {
        // Given a reader that paused after a quiet spell, while the app went on at 2 MB a second
        var pacing = ReadPacing(now: 0)
        let pausedAfterQuiet = pacing.pausesAfter(reading: 100, outOf: 64 << 10, at: 5)
        #expect(pausedAfterQuiet)
        // When each read fills its 64 KiB chunk, a pause and a little apart, for three seconds
        var paused = 0
        var time = 5 + ReadPacing.pause * 1.05
        while time < 8 {
            if pacing.pausesAfter(reading: 64 << 10, outOf: 64 << 10, at: time) { paused += 1 }
            time += ReadPacing.pause * 1.05
        }
        // Then none is followed by a pause: a full chunk left more waiting in the socket
        #expect(paused == 0)
        // (Counted without the chunk's size, those reads measure the pace itself, just under
        // what a pause may gather, and each pauses again.)
        var unbounded = ReadPacing(now: 0)
        _ = unbounded.pausesAfter(reading: 100, at: 5)
        let held = pauses(&unbounded, reads: 64 << 10, every: ReadPacing.pause * 1.05, from: 5.2, for: 3)
        #expect(held.paused == held.reads)
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
