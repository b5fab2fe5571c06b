#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The operations on a `pthread_mutex_t` that ``Lock`` and ``LockedValue`` share: how a
/// mutex is set up, how much room it gets, and how it is taken and released.
///
/// The bus's locks are pthread mutexes rather than `Synchronization.Mutex` because
/// ThreadSanitizer on Linux understands pthread mutexes and reports false races through `Mutex`.
/// Debug builds use an error-checking mutex, so a recursive acquisition traps at once instead of
/// deadlocking silently.
@usableFromInline
enum PthreadMutex {
    /// The size of a cache line, to which every mutex is aligned.
    ///
    /// 64 bytes on x86_64 and on Linux's arm64 servers, 128 on Apple silicon. Computed rather
    /// than stored: a stored `static let` is initialized lazily, and code inlined into other
    /// modules would reach it through `swift_once` on every access.
    @inlinable
    static var cacheLineSize: Int {
        #if arch(arm64) && canImport(Darwin)
            128
        #else
            64
        #endif
    }

    /// The bytes given to each mutex: a whole number of cache lines.
    ///
    /// A locked mutex is written by every thread that takes it. Packed next to other memory, as
    /// a plain allocation of its 40 bytes would be, two locks that different threads take (such
    /// as two event types' locks) could share a cache line and slow each other down.
    @inlinable
    static var byteCount: Int {
        (MemoryLayout<pthread_mutex_t>.size + cacheLineSize - 1) / cacheLineSize * cacheLineSize
    }

    /// Initializes the mutex at `mutex`, unlocked, with the type this build uses.
    @usableFromInline
    static func initialize(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
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

    /// Destroys the unlocked mutex at `mutex`.
    @usableFromInline
    static func destroy(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        pthread_mutex_destroy(mutex)
    }

    /// Acquires the mutex at `mutex`, waiting for it if another thread holds it.
    @inlinable @inline(__always)
    static func lock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let status = pthread_mutex_lock(mutex)
        assert(status == 0, "pthread_mutex_lock failed: \(status)")
    }

    /// Releases the mutex at `mutex`, which the calling thread must hold.
    @inlinable @inline(__always)
    static func unlock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let status = pthread_mutex_unlock(mutex)
        assert(status == 0, "pthread_mutex_unlock failed: \(status)")
    }
}
