import Dispatch
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

#if !canImport(Darwin) && canImport(CDispatch)
    // libdispatch's own C interface, which the toolchain ships beside Dispatch wherever Dispatch
    // is built from swift-corelibs-libdispatch: the main-queue check asks it directly.
    import CDispatch
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
    /// queue's jobs may run on other threads too (after `dispatchMain()`, as under an async
    /// `main`), where only the queue can tell (see ``MainActorCheck``).
    @inline(__always)
    static func isOnMainActorByThread() -> Bool? {
        #if canImport(Darwin)
            return pthread_main_np() != 0
        #else
            return nil
        #endif
    }

    #if !canImport(Darwin) && canImport(CDispatch)
        /// The address whose value on the main queue is the address itself; set once, at the
        /// first check. An address rather than a `DispatchSpecificKey`: `DispatchQueue
        /// .getSpecific(key:)` is generic and not inlinable, and took 28 ns a call where
        /// `dispatch_get_specific` takes 11 (ten million calls of each, release build).
        private static let mainQueueKey: Int = {
            let key = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
            dispatch_queue_set_specific(dispatch_get_main_queue(), key, key, nil)
            return Int(bitPattern: key)
        }()
    #else
        private static let mainQueueKey: DispatchSpecificKey<Bool> = {
            let key = DispatchSpecificKey<Bool>()
            DispatchQueue.main.setSpecific(key: key, value: true)
            return key
        }()
    #endif

    /// Whether the calling code runs on the main dispatch queue, the main actor's executor, or on
    /// a queue serialized with it: a value set on the main queue reads back only there. Asked
    /// where ``isOnMainActorByThread()`` cannot tell.
    static func isOnMainQueue() -> Bool {
        #if !canImport(Darwin) && canImport(CDispatch)
            let key = mainQueueKey
            return Int(bitPattern: dispatch_get_specific(UnsafeRawPointer(bitPattern: key)!)) == key
        #else
            return DispatchQueue.getSpecific(key: mainQueueKey) == true
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
