#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value that many threads share, reachable only while its lock is held.
///
/// In the manner of swift-nio's `NIOLockedValueBox`: one `ManagedBuffer` holds the value as its
/// header and a `pthread_mutex_t` in its elements, on cache lines of its own (see
/// ``PthreadMutex``), so the value and its lock are one allocation and nothing else can reach
/// the value. Copies of the box share the value.
///
/// ```swift
/// let counts = LockedValue([String: Int]())
/// counts.withLock { $0["ticks", default: 0] += 1 }
/// let ticks = counts.current["ticks"]
/// ```
///
/// The box is `Sendable` only when `Value` is. A value that is not `Sendable` (one holding
/// non-sendable classes, say) can still be guarded by a box inside an `@unchecked Sendable` type
/// that documents why sharing it is safe.
@usableFromInline
package struct LockedValue<Value> {
    @usableFromInline
    let storage: LockedValueStorage<Value>

    /// Creates a box holding `value`.
    ///
    /// - Parameter value: The value to guard.
    @inlinable
    package init(_ value: Value) {
        storage = LockedValueStorage.create(value)
    }

    /// Runs `body` with exclusive access to the value, holding the lock.
    ///
    /// `body` must not take this box's lock again: debug builds trap, release builds deadlock.
    ///
    /// - Parameter body: Reads or changes the value; it may return a result.
    /// - Returns: What `body` returns.
    @inlinable @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withLock(body)
    }

    /// A copy of the value as it is now.
    @inlinable
    package var current: Value {
        withLock { $0 }
    }
}

// `@unchecked`: the storage is a `ManagedBuffer`, which is never `Sendable`; the lock makes
// every access to the value exclusive, so sharing the box is as safe as sending its value.
extension LockedValue: @unchecked Sendable where Value: Sendable {}

/// The storage of a ``LockedValue``: the value in the header, the mutex in the elements.
///
/// The elements are raw bytes, one cache line more than the mutex needs, and the mutex sits at
/// the first line boundary inside them, so no other memory shares its lines.
@usableFromInline
final class LockedValueStorage<Value>: ManagedBuffer<Value, UInt8> {
    /// A new storage holding `value`, with its mutex initialized.
    @inlinable
    static func create(_ value: Value) -> LockedValueStorage {
        let buffer = create(minimumCapacity: PthreadMutex.byteCount + PthreadMutex.cacheLineSize - 1) { _ in
            value
        }
        let storage = unsafeDowncast(buffer, to: LockedValueStorage.self)
        PthreadMutex.initialize(storage.mutex)
        return storage
    }

    deinit {
        PthreadMutex.destroy(mutex)
    }

    /// The mutex, at the first cache-line boundary of the elements.
    @inlinable
    var mutex: UnsafeMutablePointer<pthread_mutex_t> {
        @inline(__always) get {
            withUnsafeMutablePointerToElements { bytes in
                UnsafeMutableRawPointer(bytes).alignedUp(toMultipleOf: PthreadMutex.cacheLineSize)
                    .assumingMemoryBound(to: pthread_mutex_t.self)
            }
        }
    }

    /// Runs `body` on the header while holding the mutex.
    ///
    /// The header is reached through its pointer rather than the `header` property, so that
    /// the access costs no dynamic exclusivity check: the mutex already makes it exclusive.
    @inlinable @inline(__always)
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        let mutex = self.mutex
        PthreadMutex.lock(mutex)
        defer { PthreadMutex.unlock(mutex) }
        return try withUnsafeMutablePointerToHeader { try body(&$0.pointee) }
    }
}
