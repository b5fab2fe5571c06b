#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value that cannot be copied, shared by many threads and reachable only while its lock is
/// held: ``LockedValue`` for `~Copyable` values, such as a ring that owns its slots.
///
/// `LockedValue` keeps its value in a `ManagedBuffer`'s header, which must be copyable, so this
/// box keeps the value in a stored property instead and its mutex, on cache lines of its own, in
/// a second allocation. The property is marked `@exclusivity(unchecked)`: the mutex already
/// makes each access exclusive, and the run-time check would cost more than the short sections
/// this box guards.
///
/// ```swift
/// let ring = LockedUniqueValue(SlotRing<Int>(capacity: 64))
/// ring.withLock { $0.append(1) }
/// ```
@usableFromInline
package final class LockedUniqueValue<Value: ~Copyable> {
    @usableFromInline
    let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline @exclusivity(unchecked)
    var value: Value

    /// Creates a box that owns `value`.
    package init(_ value: consuming Value) {
        self.value = value
        mutex = UnsafeMutableRawPointer.allocate(
            byteCount: PthreadMutex.byteCount, alignment: PthreadMutex.cacheLineSize
        ).bindMemory(to: pthread_mutex_t.self, capacity: 1)
        PthreadMutex.initialize(mutex)
    }

    deinit {
        PthreadMutex.destroy(mutex)
        UnsafeMutableRawPointer(mutex).deallocate()
    }

    /// Runs `body` with exclusive access to the value, holding the lock.
    ///
    /// `body` must not take this box's lock again: debug builds trap, release builds deadlock.
    @inlinable @inline(__always)
    package func withLock<Result: ~Copyable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        PthreadMutex.lock(mutex)
        defer { PthreadMutex.unlock(mutex) }
        return try body(&value)
    }
}

// `@unchecked`: the lock makes every access to the value exclusive, so sharing the box is as
// safe as sending its value.
extension LockedUniqueValue: @unchecked Sendable where Value: ~Copyable & Sendable {}
