#if NATS
    import EventBus
    import Synchronization

    #if canImport(Darwin)
        import Darwin
    #elseif canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// The thread-local slot that says "the next delivery this bridge observes on this thread is
    /// the event it is republishing: do not forward it".
    ///
    /// A bridge republishes a received event from a nats.c delivery thread that is inside no
    /// delivery of the bus, so the bus delivers it at once, on that thread: typed handlers first,
    /// then wildcard observers, among them the bridge's own. Events those handlers publish in
    /// reaction are delivered only after that, on the same thread. So the first delivery the
    /// bridge observes on the thread after arming is the received event, and consuming the mark
    /// there lets the reactions through. A thread-local slot rather than one flag, because each
    /// received type has its own delivery thread, and they republish at the same time.
    struct RepublishMarker: @unchecked Sendable {
        // `@unchecked`: `token` is an address used only for comparison, never dereferenced.
        /// How many threads carry this bridge's mark now. The observer runs for every event
        /// published, and most bridges republish seldom or never: while no thread is marked it
        /// skips the thread-local lookup. A marked thread always sees its own count.
        private let armed: Counter
        /// This bridge's mark: an address no other live bridge has.
        let token: UnsafeMutableRawPointer
        /// The process-wide key, read once here: a global is initialized lazily, and reading it
        /// goes through `swift_once` each time, on the publisher's path.
        private let key: pthread_key_t

        init(owner: AnyObject) {
            token = Unmanaged.passUnretained(owner).toOpaque()
            key = republishKey
            armed = Counter()
        }

        /// A count shared by the copies of a marker.
        final class Counter: Sendable {
            let value = Atomic<Int>(0)
        }

        /// Marks the calling thread before it republishes an event.
        func arm() {
            armed.value.add(1, ordering: .relaxed)
            pthread_setspecific(key, token)
        }

        /// Clears the mark if the delivery did not consume it (the bridge stopped observing).
        func disarm() {
            if pthread_getspecific(key) == UnsafeMutableRawPointer(token) {
                pthread_setspecific(key, nil)
                armed.value.subtract(1, ordering: .relaxed)
            }
        }

        /// Whether the delivery being observed is the republished event; clears the mark if so.
        @inline(__always)
        func consume() -> Bool {
            guard armed.value.load(ordering: .relaxed) > 0 else { return false }
            guard let mark = pthread_getspecific(key), mark == UnsafeMutableRawPointer(token) else {
                return false
            }
            pthread_setspecific(key, nil)
            armed.value.subtract(1, ordering: .relaxed)
            return true
        }
    }

    /// The process-wide thread-local key every bridge marks its threads with.
    private let republishKey = ThreadLocalKey.make()
#endif
