#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutual-exclusion lock backed by `pthread_mutex_t`, alone on its cache lines (see
/// ``PthreadMutex``).
///
/// To guard a value, prefer ``LockedValueBox``, which keeps the value and its mutex together and
/// reaches the value only while the mutex is held.
package final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates an unlocked lock.
    package init() {
        mutex = UnsafeMutableRawPointer.allocate(
            byteCount: PthreadMutex.byteCount, alignment: PthreadMutex.cacheLineSize
        )
        .bindMemory(to: pthread_mutex_t.self, capacity: 1)
        PthreadMutex.initialize(mutex)
    }

    deinit {
        PthreadMutex.destroy(mutex)
        UnsafeMutableRawPointer(mutex).deallocate()
    }

    /// Acquires the lock, waiting for it if another thread holds it.
    @inline(__always)
    package func lock() {
        PthreadMutex.lock(mutex)
    }

    /// Releases the lock, which the calling thread must hold.
    @inline(__always)
    package func unlock() {
        PthreadMutex.unlock(mutex)
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
