import Testing

@testable import Dashboard

@Suite("RateMeter")
struct RateMeterTests {
    @Test func rateIsTheIncreaseOverTheLastTwoSeconds() {
        var meter = RateMeter(startingAt: 0, time: 100)
        // 50 per second, read ten times a second
        for tick in 1...50 {
            meter.record(total: tick * 5, at: 100 + Double(tick) / 10)
        }
        #expect(abs(meter.rate(at: 105) - 50) < 0.01)
        // Nothing more arrives: the rate falls to zero once the window has passed.
        meter.record(total: 250, at: 106)
        meter.record(total: 250, at: 107.5)
        #expect(meter.rate(at: 107.5) == 0)
    }

    @Test("a total rebased below zero and then read as Int.max is measured, not a crash")
    func totalsFromAnAppDoNotOverflow() {
        var meter = RateMeter(startingAt: 3, time: 10)
        meter.rebase(by: -6)
        meter.record(total: .max, at: 10.5)
        #expect(meter.rate(at: 11) > 0)
        #expect(meter.history(seconds: 2, at: 11.5) == [0, .max])
        meter.record(total: .max, at: 12)
        #expect(meter.rate(at: 13) == 0, "no increase since the reading at 10.5")
    }

    @Test func firstReadingIsABaselineNotABurst() {
        var meter = RateMeter()
        meter.record(total: 1_000_000, at: 10)
        meter.record(total: 1_000_010, at: 11)
        #expect(meter.rate(at: 11) == 10)
        #expect(meter.history(seconds: 3, at: 12.5) == [0, 0, 10])
    }

    @Test("a meter a millisecond old rates what it counted over a reading's spacing, not as a burst")
    func aYoungMeterIsNoBurst() {
        var meter = RateMeter(startingAt: 0, time: 10)
        meter.record(total: 3, at: 10.001)
        #expect(abs(meter.rate(at: 10.001) - 30) < 1e-9)
        meter.record(total: 60, at: 10.6)
        #expect(abs(meter.rate(at: 10.6) - 100) < 1e-9, "over the time there is, once there is more")
    }

    @Test func historyCountsWholeSecondsOldestFirst() {
        var meter = RateMeter(startingAt: 0, time: 0)
        meter.record(total: 3, at: 0.5)
        meter.record(total: 10, at: 1.2)
        meter.record(total: 12, at: 1.9)
        meter.record(total: 12, at: 3.1)
        meter.record(total: 20, at: 4.0)
        // Seconds 0 to 3 are complete at 4.5; second 4 is still counting and is not shown.
        #expect(meter.history(seconds: 4, at: 4.5) == [3, 9, 0, 0])
        #expect(meter.history(seconds: 2, at: 5.0) == [0, 8])
        // Long after, the old seconds have scrolled out.
        #expect(meter.history(seconds: 3, at: 500) == [0, 0, 0])
    }

    @Test func sparklineScalesToTheLargestValue() {
        #expect(Glyphs.unicode.sparkline([0, 1, 2, 4, 8]) == " ▁▂▄█")
        #expect(Glyphs.ascii.sparkline([0, 1, 5, 10]) == " _-#")
        #expect(Glyphs.unicode.sparkline([0, 0, 0]) == "   ")
        #expect(Glyphs.unicode.sparkline([]) == "")
    }
}
