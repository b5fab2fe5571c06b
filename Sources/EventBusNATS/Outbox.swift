#if NATS
    import BusWire
    import Dispatch
    import EventBus
    import Synchronization

    #if canImport(Darwin)
        import Darwin
    #elseif canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// Where publishing threads leave events for the bridge thread: a bounded ring that keeps the
    /// newest.
    ///
    /// The publisher's side runs inside every `publish` on the bus, so it only takes the lock
    /// (the package's pthread-backed ``LockedValue``, which ThreadSanitizer understands) and
    /// stores the event, its receiver count and a time stamp: no encoding,
    /// no system call unless the bridge thread sleeps and must be woken. The type name and the
    /// sequence number are worked out on the bridge thread, which spares the publisher a string's
    /// reference counting and a store; the trace (the event's number, its cause's, its call
    /// site) is kept as the bus made it. When the ring is full the oldest event is
    /// overwritten and counted as dropped: while the server is away the bridge keeps the most
    /// recent events, which are the ones worth sending when it comes back.
    ///
    /// The bridge thread swaps the whole ring for its empty spare under the lock (a few stores)
    /// and reads it afterwards without the lock, so the two sides meet only briefly.
    ///
    /// `@unchecked Sendable`: the rings hold events (`any Event`, which is `Sendable`) in raw
    /// storage; the active ring is reached only under the lock, and a ring handed out by
    /// ``take(sleepingIfEmpty:)`` belongs to the bridge thread until it hands it back.
    final class Outbox: @unchecked Sendable {
        /// One event as the publisher left it. No sequence number: the ring holds consecutive
        /// events, so the bridge thread works them out from the count written.
        struct Pending {
            var time: Double
            var receivers: Int32
            var event: any Event
            /// The event's number, its cause's and its call site, which envelopes carry so that a
            /// fleet monitor shows what a tap's monitor shows.
            var trace: PublishTrace
        }

        /// A fixed-size ring of pending events, written over from the oldest when full.
        typealias Ring = SlotRing<Pending>

        private struct State {
            var active: Ring
            var written = 0
            /// Events overwritten before the bridge thread took them; counted here, under the
            /// lock the append holds anyway, rather than with an atomic operation of its own.
            var dropped = 0
            var stamps = StampClock()
            /// Set by the bridge thread when it found nothing to do and is about to wait.
            var sleeping = false
            var stopping = false
        }

        private let state: LockedValue<State>
        private let wakeSignal = DispatchSemaphore(value: 0)
        /// The ring the bridge thread fills next, swapped with the active one on each round.
        private var spare: Ring?
        let capacity: Int

        init(capacity: Int) {
            self.capacity = max(1, capacity)
            state = LockedValue(State(active: .allocate(capacity: self.capacity)))
            spare = .allocate(capacity: self.capacity)
        }

        deinit {
            state.withLock { $0.active.deallocate() }
            spare?.deallocate()
        }

        /// Called on the publisher's thread for every event; drops the oldest when full.
        @inline(__always)
        func append(_ record: DeliveryRecord) {
            let wake = state.withLock { state in
                state.written &+= 1
                let overwritten = state.active.appendOverwritingOldest(
                    Pending(
                        time: state.stamps.stamp(), receivers: Int32(clamping: record.receivers),
                        event: record.event, trace: record.trace))
                if overwritten { state.dropped &+= 1 }
                let wake = state.sleeping
                state.sleeping = false
                return wake
            }
            if wake { wakeSignal.signal() }
        }

        /// The events stored since the last call, for the bridge thread, which must pass the ring
        /// back with ``giveBack(_:)``; `nil` when there are none.
        ///
        /// - Parameter sleepingIfEmpty: When there are none, note that the caller will wait in
        ///   ``wait(timeout:)``, so that the next publisher wakes it.
        func take(sleepingIfEmpty: Bool) -> Ring? {
            guard let empty = spare else { return nil }
            let taken: Ring? = state.withLock { state in
                guard state.active.count > 0 else {
                    if sleepingIfEmpty && !state.stopping { state.sleeping = true }
                    return nil
                }
                defer { state.active = empty }
                state.active.firstSequence = state.written - state.active.count + 1
                return state.active
            }
            if taken != nil { spare = nil }
            return taken
        }

        /// Hands back a ring ``take(sleepingIfEmpty:)`` gave, emptied.
        func giveBack(_ ring: Ring) {
            spare = ring
        }

        /// Waits until a publisher, the connection or ``stop()`` wakes the bridge thread, or
        /// `timeout` seconds pass.
        func wait(timeout: Double?) {
            if let timeout {
                _ = wakeSignal.wait(timeout: .now() + timeout)
            } else {
                wakeSignal.wait()
            }
        }

        /// Wakes the bridge thread, whether it sleeps or not (an extra wake-up costs one round).
        func wake() {
            wakeSignal.signal()
        }

        /// Tells the bridge thread to finish.
        func stop() {
            state.withLock { $0.stopping = true }
            wakeSignal.signal()
        }

        /// How many events publishers have stored so far, dropped ones included: the sequence
        /// number of the last.
        var written: Int {
            state.withLock { $0.written }
        }

        /// Events dropped so far because the ring was full.
        var dropped: Int {
            state.withLock { $0.dropped }
        }

        var isStopping: Bool {
            state.withLock { $0.stopping }
        }
    }
#endif
