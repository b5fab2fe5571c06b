#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The system's real-time clock, read for every captured event.
enum WallClock {
    /// Seconds since 1970, to the clock's full resolution.
    ///
    /// `clock_gettime` directly rather than `Date()`, which goes through Foundation's
    /// reference-date arithmetic on every call. `CLOCK_REALTIME_COARSE` would be cheaper still,
    /// but it advances once a kernel tick (4 ms here, by `clock_getres`), too coarse for a log
    /// that shows milliseconds.
    @inline(__always)
    static func now() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        // A multiplication rather than a division by 1e9: a division takes a dozen cycles or
        // more, and the result differs in the last bit at most.
        return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
    }
}
