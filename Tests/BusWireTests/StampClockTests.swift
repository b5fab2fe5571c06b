import Foundation
import TestSupport
import Testing

@testable import BusWire

@Suite("Stamp clock")
struct StampClockTests {
    @Test("stamps never go backwards and stay within a tick of the wall clock")
    func stampsFollowTheWallClock() {
        var clock = StampClock()
        let before = Date().timeIntervalSince1970
        var previous = 0.0
        var stamps: [Double] = []
        for _ in 0..<100_000 {
            let stamp = clock.stamp()
            #expect(stamp >= previous)
            previous = stamp
            stamps.append(stamp)
        }
        let after = Date().timeIntervalSince1970
        // The first stamps of a tick read the precise clock; later ones may lag by one tick.
        #expect(stamps.first! >= before - 0.001)
        #expect(stamps.last! <= after + 0.001)
        #expect(stamps.last! >= after - 0.05, "a long burst still advances with the clock")
    }

    @Test("at a low rate every stamp is the precise time")
    func lowRatesArePrecise() {
        var clock = StampClock()
        for _ in 0..<5 {
            let before = Date().timeIntervalSince1970
            let stamp = clock.stamp()
            let after = Date().timeIntervalSince1970
            #expect(stamp >= before - 1e-6 && stamp <= after + 1e-6)
            usleep(5_000)
        }
    }
}
