#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The C library calls the grid makes, in one place.
enum System {
    /// Whether the `count` bytes at `first` and at `second` are the same: `memcmp`, which
    /// compares a row of cells many times faster than a loop in Swift does in a debug build.
    @inline(__always)
    static func bytesEqual(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, count: Int) -> Bool {
        memcmp(first, second, count) == 0
    }
}
