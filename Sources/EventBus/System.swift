import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Numbers given to threads where the system's cannot be read.
private let nextThreadSerial = Atomic<Int>(0)

/// The C library calls whose spelling differs between Darwin and Linux, each with both branches
/// side by side, so that the rest of the module reads the same on every platform.
enum System {
    #if canImport(Darwin)
        /// A thread-local key's destructor: Darwin passes the thread's value, never `nil`.
        typealias ThreadKeyDestructor = @convention(c) (UnsafeMutableRawPointer) -> Void
    #else
        /// A thread-local key's destructor: glibc and musl declare the value optional, though
        /// they call it only for threads whose value is set.
        typealias ThreadKeyDestructor = @convention(c) (UnsafeMutableRawPointer?) -> Void
    #endif

    /// A new thread-local key, whose destructor runs as each thread that set it ends.
    static func makeThreadKey(destructor: ThreadKeyDestructor?) -> pthread_key_t {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, destructor)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }

    /// This thread's value for `key`, or `nil` when it has set none.
    @inline(__always)
    static func threadValue(for key: pthread_key_t) -> UnsafeMutableRawPointer? {
        pthread_getspecific(key)
    }

    /// Sets this thread's value for `key`.
    @inline(__always)
    static func setThreadValue(_ value: UnsafeMutableRawPointer?, for key: pthread_key_t) {
        _ = pthread_setspecific(key, value)
    }

    /// Lets another thread run before this one goes on.
    static func yieldProcessor() {
        _ = sched_yield()
    }

    /// A monotonic reading in nanoseconds, for ``HandlerClock``'s ticks and the pacing of
    /// reports; handler calls are timed with ``HandlerClock``, which is cheaper to read.
    static func monotonicNanoseconds() -> Int {
        #if canImport(Darwin)
            return Int(truncatingIfNeeded: clock_gettime_nsec_np(CLOCK_UPTIME_RAW))
        #else
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return Int(now.tv_sec) &* 1_000_000_000 &+ Int(now.tv_nsec)
        #endif
    }

    /// Whether the calling code runs on the main actor's executor, where the thread alone tells:
    /// on Darwin the main dispatch queue, which is that executor, runs only on the main thread,
    /// and Swift counts the main thread as the main actor. `nil` elsewhere: on Linux the main
    /// queue's jobs may run on other threads (after `dispatchMain()`, as under an async `main`),
    /// and only the queue can tell.
    @inline(__always)
    static func isOnMainActorByThread() -> Bool? {
        #if canImport(Darwin)
            return pthread_main_np() != 0
        #else
            return nil
        #endif
    }

    /// Nanoseconds since 1970 on the real-time clock, for the start of a traced handler call, so
    /// that a monitor can put it beside the time stamps of the records around it.
    @inline(__always)
    static func wallClockNanoseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int(now.tv_sec) &* 1_000_000_000 &+ Int(now.tv_nsec)
    }

    /// The calling thread's number as the system shows it, and whether it is the main thread.
    /// A system call or a file read: ask once per thread.
    static func currentThreadIdentity() -> (id: UInt64, isMain: Bool) {
        #if canImport(Darwin)
            var id: UInt64 = 0
            _ = pthread_threadid_np(nil, &id)
            return (id, pthread_main_np() != 0)
        #else
            // `gettid` is not in the C library's Swift module, and `syscall` is variadic;
            // "/proc/thread-self" links to "<pid>/task/<tid>". The main thread's tid is the pid.
            var buffer = [CChar](repeating: 0, count: 64)
            let length = readlink("/proc/thread-self", &buffer, buffer.count - 1)
            let pid = UInt64(getpid())
            let text =
                length > 0
                ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
            guard let last = text.split(separator: "/").last, let id = UInt64(last) else {
                // No /proc (a sandbox): a number of the process's own, above any tid.
                return ((1 << 40) + UInt64(nextThreadSerial.add(1, ordering: .relaxed).newValue), false)
            }
            return (id, id == pid)
        #endif
    }

    /// The processors online now.
    static var processorsOnline: Int {
        Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}

/// Thread-local keys for the package's other modules, made as ``System`` makes them; a name of
/// its own, since BusWire has a `System` too and a file may import both.
package enum ThreadLocalKey {
    /// A new key with no destructor.
    package static func make() -> pthread_key_t {
        System.makeThreadKey(destructor: nil)
    }
}
