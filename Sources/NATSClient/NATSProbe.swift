#if NATS
    internal import CNATS
    import Dispatch
    import EventBus

    #if canImport(Darwin)
        import Darwin
    #elseif canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// A bare nats.c connection for measuring and testing the bridge from outside: publish the
    /// same bytes in a plain loop (the floor the bridge is held against), and count what arrives.
    ///
    /// It lives here, beside ``NATSConnection``, so that the package's other targets need not
    /// import CNATS themselves: a module that does sees the C library's copies of system types
    /// (`timespec`), which member import visibility then asks every file of it to import.
    package final class NATSProbe: @unchecked Sendable {
        // `@unchecked`: `handle` and `subscription` are opaque pointers, set in `init` and used
        // by the calling thread and by `close`, which runs once; nats.c connections are
        // thread-safe. Counts and samples are behind `state`.
        private let handle: OpaquePointer
        private var subscription: OpaquePointer?
        private let state = LockedValue(Counts())
        private let allArrived = DispatchSemaphore(value: 0)
        private let completed = DispatchSemaphore(value: 0)
        private var closed = false

        private struct Counts {
            var arrived = 0
            var expected = Int.max
            var first: (subject: String, payload: [UInt8])?
            var lastArrival: Double?
        }

        /// Connects to `url`.
        package init(url: String) throws(NATSClientError) {
            var connection: OpaquePointer?
            let status = natsConnection_ConnectTo(&connection, url)
            guard status == NATS_OK, let connection else {
                throw .unreachable(url: url, detail: NATSConnection.text(status))
            }
            handle = connection
        }

        deinit {
            close()
        }

        /// Publishes `payload` on `subject` `count` times from a bare loop.
        package func publish(subject: String, payload: [UInt8], count: Int) {
            subject.withCString { subject in
                payload.withUnsafeBufferPointer { bytes in
                    for _ in 0..<count {
                        natsConnection_Publish(handle, subject, bytes.baseAddress, Int32(bytes.count))
                    }
                }
            }
        }

        /// Waits until the server has everything published so far.
        package func flush() {
            natsConnection_Flush(handle)
        }

        /// Starts counting the messages on `subject` (once per probe), with no limit on those
        /// waiting for the count, so that none is lost; returns once the server has the
        /// subscription.
        ///
        /// - Parameter expected: The count at which ``waitForCount(timeout:)`` returns.
        package func count(_ subject: String, expected: Int) {
            state.withLock { $0.expected = expected }
            let reference = Unmanaged.passRetained(self).toOpaque()
            natsConnection_Subscribe(
                &subscription, handle, subject,
                { _, _, message, closure in
                    Unmanaged<NATSProbe>.fromOpaque(closure!).takeUnretainedValue().arrive(message!)
                    natsMsg_Destroy(message)
                }, reference)
            guard let subscription else {
                Unmanaged<NATSProbe>.fromOpaque(reference).release()
                return
            }
            // The completion callback, run once the handler will not run again, lets go of the
            // reference the handler uses.
            natsSubscription_SetOnCompleteCB(
                subscription,
                { closure in
                    let probe = Unmanaged<NATSProbe>.fromOpaque(closure!)
                    probe.takeUnretainedValue().completed.signal()
                    probe.release()
                }, reference)
            natsSubscription_SetPendingLimits(subscription, -1, -1)
            natsConnection_Flush(handle)
        }

        private func arrive(_ message: OpaquePointer) {
            let now = Self.monotonicSeconds()
            let needsSample = state.withLock { $0.first == nil }
            var sample: (subject: String, payload: [UInt8])?
            if needsSample {
                let length = Int(natsMsg_GetDataLength(message))
                let payload = natsMsg_GetData(message).map {
                    [UInt8](UnsafeRawBufferPointer(start: $0, count: length))
                }
                sample = (String(cString: natsMsg_GetSubject(message)), payload ?? [])
            }
            let done = state.withLock { counts in
                if counts.first == nil { counts.first = sample }
                counts.arrived += 1
                counts.lastArrival = now
                return counts.arrived == counts.expected
            }
            if done { allArrived.signal() }
        }

        /// Waits until the expected count arrived, or `timeout` seconds pass.
        ///
        /// - Returns: How many arrived.
        package func waitForCount(timeout: Double) -> Int {
            _ = allArrived.wait(timeout: .now() + timeout)
            return state.withLock { $0.arrived }
        }

        /// Monotonic seconds when the last counted message arrived.
        package var lastArrival: Double? { state.withLock { $0.lastArrival } }

        /// The subject and bytes of the first counted message.
        package var firstMessage: (subject: String, payload: [UInt8])? { state.withLock { $0.first } }

        /// Unsubscribes, waits until the handler will not run again, and disconnects.
        package func close() {
            guard !closed else { return }
            closed = true
            if let subscription {
                natsSubscription_Unsubscribe(subscription)
                _ = completed.wait(timeout: .now() + 5)
                natsSubscription_Destroy(subscription)
            }
            natsConnection_Destroy(handle)
        }

        /// The clock ``lastArrival`` reads.
        package static func monotonicSeconds() -> Double {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
        }
    }
#endif
