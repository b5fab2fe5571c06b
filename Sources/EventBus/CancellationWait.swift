#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where `cancel()` and `unsubscribe(observer:)` sleep while a handler they wait for is still
/// running on another thread, instead of polling.
///
/// A delivery that ends while a canceller waits for it wakes every sleeper, which checks again.
/// The delivery's check for waiters is a relaxed load, kept off the publish path's ordering, so
/// a wake-up can be missed when the two race; each sleep is therefore bounded by
/// ``longestSleep``, after which the sleeper checks anyway. The guarantee rests on the check,
/// not on the wake-up: a canceller returns only once no thread runs the handler.
final class CancellationWait: @unchecked Sendable {
    /// The process's one waiting room; cancellers that wait are rare, and a wake-up wakes all.
    static let shared = CancellationWait()

    /// How long a canceller sleeps at most before checking again.
    static let longestSleep: Duration = .milliseconds(5)

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    private init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if !canImport(Darwin)
            // Sleeps are measured on the monotonic clock, so a change of the wall clock does
            // not stretch them.
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    /// Blocks until `isDone()` holds, checking it whenever a delivery a canceller waits for
    /// ends, and at least every ``longestSleep``.
    func wait(until isDone: () -> Bool) {
        pthread_mutex_lock(mutex)
        while !isDone() {
            sleepBriefly()
        }
        pthread_mutex_unlock(mutex)
    }

    /// Wakes every canceller waiting, to check again. Kept out of line: the publish path
    /// calls it only when a canceller waits, and inlined it would grow that path for nothing.
    @inline(never)
    func wakeWaiters() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Sleeps on the condition for at most ``longestSleep``; the caller holds the mutex.
    private func sleepBriefly() {
        let sleep = Self.longestSleep.components
        let nanoseconds = Int(sleep.seconds) * 1_000_000_000 + Int(sleep.attoseconds / 1_000_000_000)
        #if canImport(Darwin)
            var interval = timespec(tv_sec: nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
            pthread_cond_timedwait_relative_np(condition, mutex, &interval)
        #else
            var deadline = timespec()
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            let total = Int(deadline.tv_nsec) + nanoseconds
            deadline.tv_sec += total / 1_000_000_000
            deadline.tv_nsec = total % 1_000_000_000
            pthread_cond_timedwait(condition, mutex, &deadline)
        #endif
    }
}
