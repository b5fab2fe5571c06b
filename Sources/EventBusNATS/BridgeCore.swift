#if NATS
    import BusWire
    import Dispatch
    import EventBus
    import Foundation
    internal import NATSClient
    import Synchronization

    /// The running bridge behind a ``NATSBridge``: the connection, the bus observer, the queue,
    /// the bridge thread and the subscriptions of received types.
    ///
    /// Nothing here holds the ``NATSBridge`` itself, so releasing it closes the bridge.
    final class BridgeCore: Sendable {
        private let bus: EventBus
        private let sender: EnvelopeSender
        private let connection: NATSConnection
        /// Where publishing threads leave events for the bridge thread; keeps the newest.
        private let inbox: RecordInbox
        /// Set by ``close()``: the bridge thread sends what is queued and finishes.
        private let stopping = Atomic<Bool>(false)
        private let counters = BridgeCounters()
        private let stream: NATSStreamOptions?
        /// The connection count at which the stream was last made sure of; the bridge thread
        /// tries again after every reconnection until it succeeds.
        private let streamCheckedAt: Atomic<Int>
        private let problem = LockedValue<NATSBridgeError?>(nil)
        private let subscriptions = LockedValue<[String: NATSSubscription]>([:])
        private let observer = LockedValue<Subscription?>(nil)
        private let threadFinished = DispatchSemaphore(value: 0)
        private let closeStarted = Atomic<Bool>(false)
        private let closeFinished = DispatchSemaphore(value: 0)
        private let marker: RepublishMarker
        /// Batches up to this size are written at once rather than left to nats.c's flusher.
        private static let smallBatch = 16
        /// Events appended up to the last drain, every one of them sent or given up on.
        private let processed = Atomic<Int>(0)

        init(
            bus: EventBus, url: String, app: String, stream: NATSStreamOptions?, options: NATSBridgeOptions
        ) throws(NATSBridgeError) {
            self.bus = bus
            self.stream = stream
            sender = EnvelopeSender(
                app: app, host: options.host, pid: Int(ProcessInfo.processInfo.processIdentifier),
                origin: String(UInt64.random(in: 1...UInt64.max), radix: 16))
            let inbox = RecordInbox(capacity: options.queueCapacity, whenFull: .dropOldest)
            self.inbox = inbox
            let events = ConnectionEvents(onConnected: { inbox.wake() })
            connection = try NATSConnection.connect(url: url, name: app, options: options, events: events)
            streamCheckedAt = Atomic(stream == nil ? Int.max : 0)
            marker = RepublishMarker(owner: inbox)
            if let stream, events.state == .connected {
                // Connected now: a stream that cannot be made is the caller's to hear about.
                do throws(NATSBridgeError) {
                    try connection.ensureStream(stream)
                    streamCheckedAt.store(Int.max, ordering: .relaxed)
                } catch {
                    connection.close()
                    throw error
                }
            }
            startThread()
            let marker = self.marker
            observer.withLock {
                $0 = bus.observeDeliveries(on: nil) { record in
                    if marker.consume() { return }
                    inbox.append(record)
                }
            }
        }

        var state: NATSBridgeState {
            closeStarted.load(ordering: .acquiring) ? .closed : connection.bridgeState
        }

        var statistics: NATSBridgeStatistics {
            NATSBridgeStatistics(
                forwarded: counters.forwarded.load(ordering: .relaxed),
                received: counters.received.load(ordering: .relaxed),
                dropped: counters.dropped.load(ordering: .relaxed) + inbox.droppedEvents,
                undecodable: counters.undecodable.load(ordering: .relaxed),
                unencodable: counters.unencodable.load(ordering: .relaxed),
                reconnects: max(0, connection.events.connections.load(ordering: .relaxed) - 1))
        }

        var lastError: NATSBridgeError? { problem.current }

        func receive<T: Event & Decodable>(_ type: T.Type) {
            let typeName = String(describing: T.self)
            let subject = NATSSubject.root + ".*." + NATSSubject.token(for: typeName)
            subscriptions.withLock { subscriptions in
                guard !closeStarted.load(ordering: .acquiring), subscriptions[typeName] == nil else { return }
                let receiver = TypedReceiver<T>(
                    bus: bus, origin: sender.origin, counters: counters, marker: marker)
                do throws(NATSBridgeError) {
                    subscriptions[typeName] = try connection.subscribeForBridge(subject) { bytes in
                        receiver.deliver(bytes)
                    }
                } catch {
                    problem.withLock { $0 = error }
                }
            }
        }

        func flush(timeout: Double) -> Bool {
            let deadline = MonotonicClock.now() + timeout
            let target = inbox.eventsAppended
            while processed.load(ordering: .acquiring) < target {
                guard !closeStarted.load(ordering: .acquiring), MonotonicClock.now() < deadline else {
                    return false
                }
                usleep(1000)
            }
            return connection.flush(timeout: max(0.001, deadline - MonotonicClock.now()))
        }

        /// Stops everything, in the order that leaves nothing running: the bus observer (no new
        /// events), the bridge thread (after sending what is queued), the subscriptions (no more
        /// republishing), then the connection. Later callers wait for the first to finish.
        func close() {
            guard !closeStarted.exchange(true, ordering: .acquiringAndReleasing) else {
                closeFinished.wait()
                closeFinished.signal()
                return
            }
            counters.closed.store(true, ordering: .releasing)
            observer.withLock { $0 }?.cancel()
            stopping.store(true, ordering: .releasing)
            inbox.wake()
            threadFinished.wait()
            let subscriptions = self.subscriptions.withLock { $0 }
            for subscription in subscriptions.values { subscription.cancel() }
            connection.close()
            closeFinished.signal()
        }

        // MARK: - The bridge thread

        private func startThread() {
            let thread = Thread { [self] in
                run()
                threadFinished.signal()
            }
            thread.name = "NATSBridge \(sender.app)"
            thread.start()
        }

        private func run() {
            var encoder = EnvelopeEncoder(sender: sender)
            // The number of the last event published: events are numbered as they are sent, not
            // as the bus delivered them, so that a gap a reader sees is events lost after the
            // bridge (what the bridge itself drops or does not send is in its own counts).
            var lastSent = 0
            while true {
                let stopping = self.stopping.load(ordering: .acquiring)
                guard connection.events.state == .connected else {
                    if stopping { break }
                    // Publishers do not wake a bridge that cannot send: the queue keeps the newest
                    // events, and the connected callback (or a stop) ends the wait.
                    inbox.wait(timeout: 0.25)
                    continue
                }
                ensureStreamIfNeeded()
                let drained = inbox.drain(sleepingIfEmpty: !stopping)
                guard !drained.records.isEmpty else {
                    if stopping { break }
                    inbox.wait(timeout: nil)
                    continue
                }
                for case .event(let event) in drained.records {
                    if send(event, numbered: lastSent + 1, with: &encoder) { lastSent += 1 }
                }
                let batch = drained.records.count
                // nats.c's flusher thread waits a millisecond for more messages before it writes
                // (conn.c, `_flusher`), so a lone event would wait that long. A flush writes at
                // once (it sends a ping, and waits for the pong). Only after small batches: under
                // a flood batches are large, and the flusher thread's own pace is the efficient
                // one. The wait is long enough that it rarely times out: a pong that comes after
                // its flush gave up would end the next flush early.
                if batch <= Self.smallBatch { _ = connection.flush(timeout: 0.05) }
                // Every event appended up to this drain is sent or was dropped.
                processed.store(drained.eventsAppended, ordering: .releasing)
            }
            if connection.events.state == .connected { _ = connection.flush(timeout: 0.5) }
        }

        /// Publishes `event` as number `number`; returns whether it was published (an event that
        /// is not `Encodable`, fails to encode, or that the client refuses is not, and takes no
        /// number).
        private func send(
            _ event: FeedEvent, numbered number: Int, with encoder: inout EnvelopeEncoder
        ) -> Bool {
            guard case .value(let value) = event.payload else { return false }
            let type = encoder.type(of: value)
            let outcome = encoder.encode(
                value, sequence: number, time: event.time, receivers: event.receivers,
                trace: event.trace, info: type)
            switch outcome {
            case .skipped: return false
            case .failed:
                counters.unencodable.add(1, ordering: .relaxed)
                return false
            case .encoded: break
            }
            let sent = type.subject.withUnsafeBufferPointer { subject in
                encoder.writer.bytes.withUnsafeBufferPointer { bytes in
                    connection.publish(subject: subject.baseAddress!, bytes: bytes)
                }
            }
            if sent {
                counters.forwarded.add(1, ordering: .relaxed)
            } else {
                counters.dropped.add(1, ordering: .relaxed)
            }
            return sent
        }

        private func ensureStreamIfNeeded() {
            guard let stream else { return }
            let connections = connection.events.connections.load(ordering: .relaxed)
            guard streamCheckedAt.load(ordering: .relaxed) < connections else { return }
            do throws(NATSBridgeError) {
                try connection.ensureStream(stream)
                streamCheckedAt.store(Int.max, ordering: .relaxed)
            } catch {
                streamCheckedAt.store(connections, ordering: .relaxed)
                problem.withLock { $0 = error }
            }
        }
    }
#endif
