#if NATS
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #elseif canImport(Darwin)
        import Darwin
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
        /// This bridge's mark: an address no other live bridge has.
        let token: UnsafeMutableRawPointer

        init(owner: AnyObject) {
            token = Unmanaged.passUnretained(owner).toOpaque()
        }

        /// Marks the calling thread before it republishes an event.
        func arm() {
            pthread_setspecific(republishKey, token)
        }

        /// Clears the mark if the delivery did not consume it (the bridge stopped observing).
        func disarm() {
            if pthread_getspecific(republishKey) == UnsafeMutableRawPointer(token) {
                pthread_setspecific(republishKey, nil)
            }
        }

        /// Whether the delivery being observed is the republished event; clears the mark if so.
        @inline(__always)
        func consume() -> Bool {
            guard let mark = pthread_getspecific(republishKey), mark == UnsafeMutableRawPointer(token) else {
                return false
            }
            pthread_setspecific(republishKey, nil)
            return true
        }
    }

    /// The process-wide thread-local key every bridge marks its threads with.
    private let republishKey: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key, nil)
        precondition(created == 0, "pthread_key_create failed: \(created)")
        return key
    }()
#endif
