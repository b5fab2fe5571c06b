#if NATS
    internal import CNATS
    import Dispatch
    import Synchronization

    #if canImport(Darwin)
        import Darwin
    #elseif canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// Every call into nats.c, and every pointer it calls back with, in one file.
    ///
    /// ## Invariants
    /// - nats.c calls back on its own threads with a `void *closure`; a C function cannot capture
    ///   Swift context, so the closure is an `Unmanaged` reference, retained before nats.c gets it
    ///   and released only once nats.c will not call with it again:
    ///   - ``ConnectionEvents`` (connected, disconnected, reconnected, closed): released after the
    ///     closed callback, which nats.c's callback thread runs last, in order, after every other
    ///     connection callback; and after `natsConnection_Destroy`.
    ///   - ``NATSMessageReceiver`` (one per subscription, plain or JetStream): released by the
    ///     subscription's completion callback, which nats.c runs once the subscription is closed
    ///     and its handler returned.
    /// - The reconnect-delay callback gets no object at all: its two bounds travel in the closure
    ///   pointer's bits, so nothing can be freed under it while the reconnect thread winds down.
    /// - The connection and subscription handles are used only until ``NATSConnection/close()``
    ///   and ``NATSSubscription/cancel(waiting:)``, which run once each.
    package final class NATSConnection: @unchecked Sendable {
        // `@unchecked`: `handle` is an opaque pointer; nats.c connections are thread-safe, and
        // `closed` makes sure it is destroyed once, after which no method uses it.
        /// The nats.c connection; also used by ``NATSHistoryReplay``, and by nothing after
        /// ``close()``.
        let handle: OpaquePointer
        private let eventsReference: Unmanaged<ConnectionEvents>
        private let closed = Atomic<Bool>(false)
        /// Calls under way from threads other than the bridge thread (flushes), which
        /// ``close()`` waits for before it destroys the handle.
        private let users = Atomic<Int>(0)
        /// What the callbacks report.
        package let events: ConnectionEvents

        /// `name` as the server may see it in the connection's `CONNECT` line: nats.c writes it
        /// there between quotes as it is, so a quote, a backslash or a control character broke
        /// the line (the server refused the connection) or added fields to it. Printable ASCII
        /// but those two stays; anything else becomes `_`, and the name is cut at 256 characters.
        /// The app's own name travels in the messages, escaped, whatever this says.
        package static func connectName(_ name: String) -> String {
            var safe = ""
            for scalar in name.unicodeScalars.prefix(256) {
                let printable = (0x20...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\"
                safe.unicodeScalars.append(printable ? scalar : "_")
            }
            return safe
        }

        /// Connects, or starts trying to, as `options.keepTryingWhenUnreachable` says.
        package init(
            url: String, name: String, options: NATSConnectionOptions, events: ConnectionEvents
        ) throws(NATSClientError) {
            var optionsHandle: OpaquePointer?
            try Self.check(natsOptions_Create(&optionsHandle), "natsOptions_Create")
            defer { natsOptions_Destroy(optionsHandle) }
            let status = Self.setServers(of: url, in: optionsHandle)
            guard status == NATS_OK else { throw .invalidURL(url, reason: Self.text(status)) }
            natsOptions_SetName(optionsHandle, Self.connectName(name))
            // The server must not send this connection's own messages back to it.
            try Self.check(natsOptions_SetNoEcho(optionsHandle, true), "natsOptions_SetNoEcho")
            natsOptions_SetTimeout(optionsHandle, Int64(max(0.001, options.connectTimeout) * 1000))
            natsOptions_SetAllowReconnect(optionsHandle, true)
            natsOptions_SetMaxReconnect(optionsHandle, Int32(clamping: options.maximumReconnects ?? -1))
            natsOptions_SetCustomReconnectDelay(
                optionsHandle,
                { _, attempts, closure in
                    ReconnectBackoff(bits: UInt(bitPattern: closure)).milliseconds(
                        afterAttempts: Int(attempts))
                },
                UnsafeMutableRawPointer(bitPattern: ReconnectBackoff(options.reconnectDelay).bits))

            let reference = Unmanaged.passRetained(events)
            let closure = reference.toOpaque()
            natsOptions_SetDisconnectedCB(
                optionsHandle, { _, closure in ConnectionEvents.from(closure).disconnected() }, closure)
            natsOptions_SetReconnectedCB(
                optionsHandle, { _, closure in ConnectionEvents.from(closure).connected(again: true) },
                closure)
            natsOptions_SetClosedCB(
                optionsHandle, { _, closure in ConnectionEvents.from(closure).closed() }, closure)
            if options.keepTryingWhenUnreachable {
                natsOptions_SetRetryOnFailedConnect(
                    optionsHandle, true,
                    { _, closure in ConnectionEvents.from(closure).connected(again: false) },
                    closure)
            }

            var connection: OpaquePointer?
            let connected = natsConnection_Connect(&connection, optionsHandle)
            switch connected {
            case NATS_OK:
                events.connected(again: false)
            case NATS_NOT_YET_CONNECTED:
                // The state starts as `reconnecting`; it is not set here, since the connected
                // callback may already have run on nats.c's thread.
                break
            default:
                // No connection object, so no callback can come: the reference is nats.c's no more.
                if let connection { natsConnection_Destroy(connection) }
                reference.release()
                switch connected {
                case NATS_ADDRESS_MISSING, NATS_INVALID_ARG:
                    throw .invalidURL(url, reason: Self.text(connected))
                default: throw .unreachable(url: url, detail: Self.text(connected))
                }
            }
            handle = connection!
            requiresTLS = NATSServerList.requiresTLS(url)
            eventsReference = reference
            self.events = events
        }

        deinit {
            close()
        }

        /// Gives nats.c the servers of `url`: one, or each of a comma-separated list (which
        /// `natsOptions_SetURL` would take as one address), encrypted if any is `tls://`.
        private static func setServers(of url: String, in options: OpaquePointer?) -> natsStatus {
            let urls = NATSServerList.urls(in: url)
            if NATSServerList.requiresTLS(url) {
                let secure = natsOptions_SetSecure(options, true)
                guard secure == NATS_OK else { return secure }
            }
            guard urls.count > 1 else { return natsOptions_SetURL(options, urls.first ?? url) }
            // The strings one after the other, each ending in its NUL, and pointers into them.
            var storage: [CChar] = []
            var starts: [Int] = []
            for text in urls {
                starts.append(storage.count)
                storage.append(contentsOf: text.utf8CString)
            }
            return storage.withUnsafeBufferPointer { buffer in
                var pointers: [UnsafePointer<CChar>?] = starts.map { buffer.baseAddress! + $0 }
                return natsOptions_SetServers(options, &pointers, Int32(pointers.count))
            }
        }

        /// Hands one message to nats.c, which buffers it for its flusher thread.
        ///
        /// - Returns: Whether nats.c took it (it refuses when its reconnect buffer is full, or the
        ///   message is longer than the server allows).
        @inline(__always)
        package func publish(subject: UnsafePointer<CChar>, bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            natsConnection_Publish(handle, subject, bytes.baseAddress, Int32(clamping: bytes.count))
                == NATS_OK
        }

        /// Waits up to `seconds` for the server to have everything published so far.
        ///
        /// - Returns: Whether the server answered in time.
        package func flush(timeout seconds: Double) -> Bool {
            // Counted before checking `closed`, so that `close` either sees this call or this call
            // sees `closed`: never a destroyed handle.
            users.add(1, ordering: .sequentiallyConsistent)
            defer { users.subtract(1, ordering: .sequentiallyConsistent) }
            guard !closed.load(ordering: .sequentiallyConsistent) else { return false }
            return natsConnection_FlushTimeout(handle, max(1, Int64(seconds * 1000))) == NATS_OK
        }

        /// Subscribes to `subject`: `deliver` runs on a delivery thread of nats.c's, one message
        /// at a time, with the message's bytes (valid only during the call).
        ///
        /// - Parameter shedding: What to shed while the handler falls behind, if anything.
        package func subscribe(
            _ subject: String, shedding: NATSShedding? = nil,
            deliver: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
        ) throws(NATSClientError) -> NATSSubscription {
            let receiver = NATSMessageReceiver(shedding: shedding, deliver: { bytes, _ in deliver(bytes) })
            let reference = Unmanaged.passRetained(receiver)
            var subscription: OpaquePointer?
            let status = natsConnection_Subscribe(
                &subscription, handle, subject,
                { _, subscription, message, closure in
                    NATSMessageReceiver.from(closure).receive(message!, on: subscription)
                }, reference.toOpaque())
            guard status == NATS_OK, let subscription else {
                reference.release()
                throw .client(operation: "natsConnection_Subscribe(\(subject))", detail: Self.text(status))
            }
            let completion = NATSMessageReceiver.releaseOnCompletion(of: subscription, reference)
            guard completion == NATS_OK else {
                // Without a completion callback there is no safe moment to release the receiver:
                // unsubscribe, and keep it alive for good (a few bytes, on a path never seen).
                natsSubscription_Unsubscribe(subscription)
                natsSubscription_Destroy(subscription)
                throw .client(operation: "natsSubscription_SetOnCompleteCB", detail: Self.text(completion))
            }
            return NATSSubscription(handle: subscription, receiver: receiver)
        }

        /// Makes sure a JetStream stream named `name` captures `subject`, keeping messages for at
        /// most `maximumAge` seconds and `maximumBytes` bytes, the oldest going first.
        package func ensureStream(
            name: String, subject: String, maximumAge: Double, maximumBytes: Int64
        ) throws(NATSClientError) {
            let allowed = name.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
            guard allowed, !name.isEmpty else {
                throw .streamFailed(
                    name: name, detail: "a stream name holds only letters, digits, - and _")
            }
            var context: OpaquePointer?
            let created = natsConnection_JetStream(&context, handle, nil)
            guard created == NATS_OK, let context else {
                throw .streamFailed(name: name, detail: Self.text(created))
            }
            defer { jsCtx_Destroy(context) }
            var errorCode = jsErrCode(0)
            let status = name.withCString { name in
                subject.withCString { subject in
                    var subjects: [UnsafePointer<CChar>?] = [subject]
                    return subjects.withUnsafeMutableBufferPointer { subjects in
                        var config = jsStreamConfig()
                        jsStreamConfig_Init(&config)
                        config.Name = name
                        config.Subjects = subjects.baseAddress
                        config.SubjectsLen = 1
                        config.MaxAge = Int64(max(0, maximumAge) * 1e9)
                        config.MaxBytes = maximumBytes
                        config.Storage = js_FileStorage
                        config.Discard = js_DiscardOld
                        return js_AddStream(nil, context, &config, nil, &errorCode)
                    }
                }
            }
            // A stream of that name already there (with other limits, say) is the one to use.
            guard status == NATS_OK || errorCode == JSStreamNameExistErr else {
                var detail = Self.text(status)
                if errorCode.rawValue != 0 { detail += " (JetStream error \(errorCode.rawValue))" }
                if errorCode == JSNotEnabledErr || errorCode == JSNotEnabledForAccountErr
                    || status == NATS_NO_RESPONDERS
                {
                    detail += "; is JetStream enabled on the server (nats-server -js)?"
                }
                throw .streamFailed(name: name, detail: detail)
            }
        }

        /// Whether nats.c gave up on the server by itself, though told to keep trying: it does
        /// when the server refuses the connection for good (no TLS where the URL asked for it,
        /// wrong credentials), reporting only that no server was available, and retries every
        /// other failure.
        package var gaveUp: Bool {
            // As in ``flush(timeout:)``: never a handle ``close()`` destroyed meanwhile.
            users.add(1, ordering: .sequentiallyConsistent)
            defer { users.subtract(1, ordering: .sequentiallyConsistent) }
            guard !closed.load(ordering: .sequentiallyConsistent) else { return false }
            return natsConnection_IsClosed(handle)
        }

        /// Whether the URL asked for TLS (``NATSServerList/requiresTLS(_:)``).
        package let requiresTLS: Bool

        /// Closes the connection and waits (up to five seconds) for nats.c's last callback.
        ///
        /// Calling it again does nothing.
        package func close() {
            guard !closed.exchange(true, ordering: .sequentiallyConsistent) else { return }
            events.closing.store(true, ordering: .releasing)
            // Closing releases flushes that are waiting; they return at once.
            natsConnection_Close(handle)
            while users.load(ordering: .sequentiallyConsistent) > 0 { usleep(1000) }
            let finished = events.closedSignal.wait(timeout: .now() + 5) == .success
            natsConnection_Destroy(handle)
            // Had the closed callback not come, nats.c might still call with the reference:
            // keeping the small events object alive for good is the safe way out.
            if finished { eventsReference.release() }
            events.setState(.closed)
        }

        private static func check(_ status: natsStatus, _ operation: String) throws(NATSClientError) {
            guard status == NATS_OK else { throw .client(operation: operation, detail: text(status)) }
        }

        /// nats.c's text for `status`, with its last error message when it has one.
        static func text(_ status: natsStatus) -> String {
            var text = String(cString: natsStatus_GetText(status))
            var last = NATS_OK
            if let message = nats_GetLastError(&last), last != NATS_OK {
                let detail = String(cString: message)
                if !detail.isEmpty && detail != text { text += ": " + detail }
            }
            return text
        }
    }

    /// One subscription, and the receiver nats.c calls for its messages.
    package final class NATSSubscription: @unchecked Sendable {
        // `@unchecked`: `handle` is an opaque pointer used once more, by `cancel`, which runs once.
        private let handle: OpaquePointer
        private let receiver: NATSMessageReceiver
        private let cancelled = Atomic<Bool>(false)

        init(handle: OpaquePointer, receiver: NATSMessageReceiver) {
            self.handle = handle
            self.receiver = receiver
        }

        /// Messages nats.c dropped so far, its queue for the handler full, as the handler last
        /// saw the count: they went whatever they were, unread. Counted only for a subscription
        /// that sheds (``NATSShedding``), whose point is that this stays 0.
        package var droppedByClient: Int { receiver.droppedByClient.load(ordering: .relaxed) }

        /// Unsubscribes; when `waiting`, returns only once the handler will not run again.
        ///
        /// Does not wait when called from the handler itself (it would wait for itself): the
        /// completion callback then runs once the handler returns.
        package func cancel(waiting: Bool = true) {
            guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
            natsSubscription_Unsubscribe(handle)
            if waiting && receiver.deliveringThread.load(ordering: .acquiring) != currentThreadID() {
                _ = receiver.completed.wait(timeout: .now() + 5)
            }
            natsSubscription_Destroy(handle)
        }
    }

    /// What a subscription sheds while its handler falls behind: nats.c keeps at most 65,536
    /// messages queued for a handler and drops what comes past them, whatever they are. A
    /// handler behind by ``backlog`` messages gets only those whose subject ends in one of
    /// ``keptLastTokens``, the rest destroyed unread, which is quick enough that the queue
    /// shrinks and nats.c drops nothing: the few messages that must not be lost go on arriving,
    /// in order among the others.
    package struct NATSShedding: Sendable {
        /// Messages queued for the handler past which shedding begins.
        package var backlog: Int
        /// The last subject tokens of the messages never shed.
        package var keptLastTokens: [String]
        /// Called with each shed message's bytes (valid during the call), on the subscription's
        /// thread, so that the owner can count what was lost without decoding it all.
        package var onShed: (@Sendable (UnsafeRawBufferPointer) -> Void)?

        /// Sheds all but the messages whose subject ends in one of `keptLastTokens` while more
        /// than `backlog` wait, handing each to `onShed`.
        package init(
            backlog: Int, keptLastTokens: [String],
            onShed: (@Sendable (UnsafeRawBufferPointer) -> Void)? = nil
        ) {
            self.backlog = backlog
            self.keptLastTokens = keptLastTokens
            self.onShed = onShed
        }
    }

    /// What nats.c's message callbacks reach through their closure pointer: the handler, and
    /// what tells a subscription's owner that it will not run again.
    final class NATSMessageReceiver: Sendable {
        /// Called with each message's bytes, and with how many more the JetStream consumer has
        /// after it (`nil` on a plain subscription, or when nats.c cannot tell).
        private let deliver: @Sendable (UnsafeRawBufferPointer, _ pending: UInt64?) -> Void
        /// Signalled once nats.c will not call the handler again.
        let completed = DispatchSemaphore(value: 0)
        /// The thread inside the handler now, or 0: cancelling from the handler must not wait
        /// for itself.
        let deliveringThread = Atomic<UInt>(0)

        /// What is shed while the handler falls behind.
        private let shedding: NATSShedding?
        /// Messages nats.c dropped so far for want of room in the subscription's queue, as last
        /// read (only while shedding is asked for).
        let droppedByClient = Atomic<Int>(0)
        /// The stream sequence of the last JetStream message handed over, or 0: where a replay
        /// picks up again.
        let lastStreamSequence = Atomic<UInt64>(0)
        /// ``NATSShedding/keptLastTokens``, each with its `.`.
        private let keptSuffixes: [[UInt8]]

        init(
            shedding: NATSShedding? = nil,
            deliver: @escaping @Sendable (UnsafeRawBufferPointer, _ pending: UInt64?) -> Void
        ) {
            self.deliver = deliver
            self.shedding = shedding
            keptSuffixes = (shedding?.keptLastTokens ?? []).map { Array(("." + $0).utf8) }
        }

        /// Whether `message` is shed: the handler is behind by more than the backlog shedding
        /// allows, and the subject is not one it keeps.
        private func sheds(_ message: OpaquePointer, on subscription: OpaquePointer?) -> Bool {
            guard let shedding, let subscription else { return false }
            var messages: Int32 = 0
            var dropped: Int64 = 0
            guard
                natsSubscription_GetStats(subscription, &messages, nil, nil, nil, nil, &dropped) == NATS_OK
            else { return false }
            // Read with every message: drops come while the queue is full, and the messages
            // queued before them follow.
            if dropped > 0 { droppedByClient.store(Int(dropped), ordering: .relaxed) }
            guard Int(messages) > shedding.backlog, let subject = natsMsg_GetSubject(message) else {
                return false
            }
            let length = strlen(subject)
            return subject.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                !keptSuffixes.contains { suffix in
                    length >= suffix.count
                        && memcmp(bytes + (length - suffix.count), suffix, suffix.count) == 0
                }
            }
        }

        static func from(_ closure: UnsafeMutableRawPointer?) -> NATSMessageReceiver {
            Unmanaged<NATSMessageReceiver>.fromOpaque(closure!).takeUnretainedValue()
        }

        /// Hands `message`'s bytes to the handler, then destroys the message.
        /// Hands `message`, which came on `subscription`, to the handler, unless it is shed.
        func receive(_ message: OpaquePointer, on subscription: OpaquePointer?) {
            if sheds(message, on: subscription) {
                if let onShed = shedding?.onShed {
                    let data = natsMsg_GetData(message)
                    let length = Int(natsMsg_GetDataLength(message))
                    onShed(UnsafeRawBufferPointer(start: data.map { UnsafeRawPointer($0) }, count: length))
                }
                natsMsg_Destroy(message)
                return
            }
            receive(message, pending: nil)
        }

        func receive(_ message: OpaquePointer, pending: UInt64?) {
            deliveringThread.store(currentThreadID(), ordering: .releasing)
            let data = natsMsg_GetData(message)
            let length = Int(natsMsg_GetDataLength(message))
            deliver(UnsafeRawBufferPointer(start: data.map { UnsafeRawPointer($0) }, count: length), pending)
            deliveringThread.store(0, ordering: .releasing)
            natsMsg_Destroy(message)
        }

        /// Has nats.c release `reference` (and signal ``completed``) once `subscription` is closed
        /// and its handler has returned for the last time.
        static func releaseOnCompletion(
            of subscription: OpaquePointer, _ reference: Unmanaged<NATSMessageReceiver>
        ) -> natsStatus {
            natsSubscription_SetOnCompleteCB(
                subscription,
                { closure in
                    let reference = Unmanaged<NATSMessageReceiver>.fromOpaque(closure!)
                    reference.takeUnretainedValue().completed.signal()
                    reference.release()
                }, reference.toOpaque())
        }
    }

    /// What nats.c's connection callbacks report: the state, and reconnections.
    package final class ConnectionEvents: Sendable {
        private let stateCode = Atomic<UInt8>(NATSConnectionState.reconnecting.rawValue)
        /// Connections made so far, the first one included.
        package let connections = Atomic<Int>(0)
        /// Set by ``NATSConnection/close()`` before it closes, so that the closed callback knows
        /// the bridge was closed rather than given up on.
        let closing = Atomic<Bool>(false)
        /// Signalled by the closed callback, nats.c's last for this connection.
        let closedSignal = DispatchSemaphore(value: 0)
        /// Called once connected, the first time and after each reconnection.
        private let onConnected: @Sendable () -> Void

        /// Creates the events of a connection to be made; `onConnected` runs on nats.c's thread.
        package init(onConnected: @escaping @Sendable () -> Void) {
            self.onConnected = onConnected
        }

        static func from(_ closure: UnsafeMutableRawPointer?) -> ConnectionEvents {
            Unmanaged<ConnectionEvents>.fromOpaque(closure!).takeUnretainedValue()
        }

        /// Where the connection stands now.
        package var state: NATSConnectionState {
            NATSConnectionState(rawValue: stateCode.load(ordering: .acquiring)) ?? .closed
        }

        func setState(_ state: NATSConnectionState) {
            stateCode.store(state.rawValue, ordering: .releasing)
        }

        func connected(again: Bool) {
            guard !closing.load(ordering: .acquiring) else { return }
            connections.add(1, ordering: .relaxed)
            setState(.connected)
            onConnected()
        }

        func disconnected() {
            guard !closing.load(ordering: .acquiring) else { return }
            setState(.reconnecting)
        }

        func closed() {
            setState(closing.load(ordering: .acquiring) ? .closed : .disconnected)
            closedSignal.signal()
        }
    }

    /// The reconnect backoff's bounds, packed into the bits of a pointer for nats.c to hand back.
    struct ReconnectBackoff {
        let minimum: UInt
        let maximum: UInt

        init(_ seconds: ClosedRange<Double>) {
            let low = seconds.lowerBound.isFinite ? max(0.001, seconds.lowerBound) : 0.1
            let high = seconds.upperBound.isFinite ? max(low, seconds.upperBound) : 5
            // Milliseconds, each in 31 bits (24 days), so that the two fit in a 64-bit pointer and
            // the pointer is never null.
            minimum = UInt(min(low * 1000, Double(Int32.max)))
            maximum = UInt(min(high * 1000, Double(Int32.max)))
        }

        init(bits: UInt) {
            minimum = bits >> 32
            maximum = bits & 0xFFFF_FFFF
        }

        var bits: UInt { minimum << 32 | maximum | (minimum == 0 && maximum == 0 ? 1 : 0) }

        /// The wait before the next round of attempts: doubling from the minimum, capped, plus up
        /// to a fifth at random.
        func milliseconds(afterAttempts attempts: Int) -> Int64 {
            let doublings = min(max(attempts - 1, 0), 30)
            let base = min(maximum, minimum << UInt(doublings))
            let jitter = UInt.random(in: 0...max(1, base / 5))
            return Int64(base + jitter)
        }
    }

    /// The calling thread's identity, to compare with a thread noted earlier.
    @inline(__always)
    func currentThreadID() -> UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }
#endif
