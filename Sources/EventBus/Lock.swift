#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutual-exclusion lock backed by `pthread_mutex_t`.
///
/// The bus guards its tables with this rather than `Synchronization.Mutex` because
/// ThreadSanitizer on Linux understands pthread mutexes and reports false races through `Mutex`.
/// Debug builds use an error-checking mutex, so a recursive acquisition traps at once instead of
/// deadlocking silently.
package final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// The bytes given to each mutex: a whole number of cache lines, aligned to a line.
    ///
    /// A locked mutex is written by every thread that takes it. Packed next to other memory, as
    /// a plain allocation of its 40 bytes would be, two locks that different threads take (such
    /// as two event types' locks) could share a cache line and slow each other down.
    private static let cacheLineSize = 64
    private static let byteCount =
        (MemoryLayout<pthread_mutex_t>.size + cacheLineSize - 1) / cacheLineSize * cacheLineSize

    /// Creates an unlocked lock.
    package init() {
        mutex = UnsafeMutableRawPointer.allocate(byteCount: Self.byteCount, alignment: Self.cacheLineSize)
            .bindMemory(to: pthread_mutex_t.self, capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if DEBUG
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        #elseif canImport(Glibc)
            // The bus and the capture hold their locks for a few dozen nanoseconds at a time. A
            // plain glibc mutex puts a waiter to sleep in the kernel at once; an adaptive one
            // spins briefly first, which is far cheaper than the futex round trip for sections
            // this short.
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        #endif
        let status = pthread_mutex_init(mutex, &attributes)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        UnsafeMutableRawPointer(mutex).deallocate()
    }

    /// Acquires the lock, waiting for it if another thread holds it.
    @inline(__always)
    package func lock() {
        let status = pthread_mutex_lock(mutex)
        assert(status == 0, "pthread_mutex_lock failed: \(status)")
    }

    /// Releases the lock, which the calling thread must hold.
    @inline(__always)
    package func unlock() {
        let status = pthread_mutex_unlock(mutex)
        assert(status == 0, "pthread_mutex_unlock failed: \(status)")
    }

    /// Runs `body` while holding the lock.
    @inline(__always)
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A value that many threads share, guarded by a ``Lock``.
package final class LockedValue<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value

    /// Creates the box holding `initialValue`.
    package init(_ initialValue: Value) {
        value = initialValue
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value as it is now.
    package var current: Value {
        withLock { $0 }
    }
}
