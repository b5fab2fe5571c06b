import EventBus

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The system's real-time clock, read for every captured event.
@usableFromInline
package enum WallClock {
    /// Seconds since 1970, to the clock's full resolution.
    ///
    /// `clock_gettime` directly rather than `Date()`, which goes through Foundation's
    /// reference-date arithmetic on every call. `CLOCK_REALTIME_COARSE` would be cheaper still,
    /// but it advances once a kernel tick (4 ms here, by `clock_getres`), too coarse for a log
    /// that shows milliseconds.
    @inlinable @inline(__always)
    package static func now() -> Double {
        seconds(on: CLOCK_REALTIME)
    }
}

/// A clock that never jumps, for intervals, pacing and deadlines.
package enum MonotonicClock {
    /// Seconds from an arbitrary start.
    @inline(__always)
    package static func now() -> Double {
        seconds(on: CLOCK_MONOTONIC)
    }
}

/// The time on `clock`, in seconds.
@usableFromInline @inline(__always)
func seconds(on clock: clockid_t) -> Double {
    var now = timespec()
    clock_gettime(clock, &now)
    // A multiplication rather than a division by 1e9: a division takes a dozen cycles or more,
    // and the result differs in the last bit at most.
    return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
}

/// Time stamps for a stream of records, cheap enough for every event.
///
/// The bus's ``HandlerClock`` tells which tick a record falls in: past about 100,000 readings a
/// second, a load of a reading refreshed every millisecond; the first 8 records of a tick, and
/// every 64th after, read the real-time clock (25 to 35 ns), and the rest reuse the last reading.
/// Below that rate the handler clock reads the system clock each time, every record starts a
/// new tick and every stamp is exact. So stamps are at most 64 records or one tick early, and
/// never go backwards. (The kernel's coarse clock told the tick before, at 23 ns a reading on a
/// virtual machine: most of a stamp's cost.) Not thread-safe: keep one per buffer, under that
/// buffer's lock.
@usableFromInline
package struct StampClock {
    @usableFromInline var lastTick = -1
    @usableFromInline var recordsInTick = 0
    @usableFromInline var last = 0.0

    /// Creates a clock that has stamped nothing yet.
    package init() {}

    /// The stamp for the next record, in seconds since 1970.
    @inlinable @inline(__always)
    package mutating func stamp() -> Double {
        let tick = HandlerClock.sharedNow()
        if tick != lastTick {
            lastTick = tick
            recordsInTick = 0
        }
        recordsInTick &+= 1
        if recordsInTick <= 8 || recordsInTick & 63 == 0 {
            last = max(last, WallClock.now())
        }
        return last
    }
}
