#if NATS
    import BusWire
    import Dispatch
    import EventBus
    import Foundation
    internal import NATSClient
    import Synchronization

    /// Publishes what a monitor shows of a bridged app: its bus's snapshots on
    /// `eventbus.<app>._snapshot`, its subscriber lifecycle changes on `._lifecycle` (wire-format
    /// records with the app's origin) and the bridge's state and counts on `._bridge`.
    ///
    /// It has a connection and a thread of its own, so the bridge's event path (the inbox, the
    /// bridge thread) is untouched by it, and a monitor still hears how the bridge fares while
    /// events flood. Lifecycle changes are stored on the thread that made them (a lock and an
    /// append to a bounded list; they come at the pace screens open and close, not at the pace
    /// of events); everything else happens on the monitoring thread:
    /// - every `interval`: a snapshot (`bus.snapshot(instancesPerClass:)`, as a tap takes it)
    ///   and a bridge record, which also tell monitors that the app is alive;
    /// - every tenth of a second: the lifecycle changes stored since, and a bridge record when
    ///   the bridge's state changed.
    ///
    /// While the server is away nothing is published: snapshots are taken again when it is back,
    /// and up to ``lifecycleCapacity`` lifecycle changes wait, the older ones counted and dropped.
    /// ``close()`` publishes a last snapshot and a bridge record saying `closed`, so a monitor
    /// sees the app's final counts and knows it left.
    final class MonitoringPublisher: Sendable {
        /// Lifecycle changes kept while they cannot be published; the oldest go first.
        static let lifecycleCapacity = 10_000
        /// Handler calls kept between two rounds while a monitor asks for them; later ones are
        /// counted and dropped.
        static let callCapacity = 20_000
        /// Seconds a monitor's request for calls stands: it repeats it every second.
        static let callLease = 5.0
        /// The monitoring thread's round, in seconds: how late a lifecycle change or a state
        /// change may reach monitors.
        private static let round = 0.1

        private let bus: EventBus
        private let core: BridgeCore
        private let connection: NATSConnection
        private let origin: FeedOrigin
        private let interval: Double
        private let snapshotSubject: [CChar]
        private let lifecycleSubject: [CChar]
        private let bridgeSubject: [CChar]
        private let callsSubject: [CChar]
        /// Handler calls waiting for the monitoring thread, while a monitor asks for them.
        private let calls = RecordInbox(capacity: MonitoringPublisher.callCapacity, whenFull: .dropNewest)
        /// Until when (monotonic seconds) a monitor's request for calls stands.
        private let callsWantedUntil = LockedValue(-Double.infinity)
        private let callObserver = LockedValue<Subscription?>(nil)
        private let requests = LockedValue<NATSSubscription?>(nil)
        /// Lifecycle changes waiting for the monitoring thread; its event ring is unused.
        private let pending = RecordInbox(
            capacity: 1, lifecycleCapacity: MonitoringPublisher.lifecycleCapacity, whenFull: .dropOldest)
        private let observer = LockedValue<Subscription?>(nil)
        private let wake = DispatchSemaphore(value: 0)
        private let stopping = Atomic<Bool>(false)
        private let closeStarted = Atomic<Bool>(false)
        private let finished = DispatchSemaphore(value: 0)

        /// Connects (or keeps trying to, whatever the bridge's policy: the bridge itself already
        /// reached the server or chose to wait for it) and starts the monitoring thread.
        init(
            bus: EventBus, core: BridgeCore, url: String, app: String, options: NATSBridgeOptions
        ) throws(NATSBridgeError) {
            self.bus = bus
            self.core = core
            origin = FeedOrigin(
                app: app, host: options.host, pid: Int(ProcessInfo.processInfo.processIdentifier))
            interval = options.monitoringInterval.isFinite ? max(0.01, options.monitoringInterval) : 0.5
            snapshotSubject = Array(
                NATSSubject.monitoringSubject(app: app, token: NATSSubject.snapshotToken).utf8CString)
            lifecycleSubject = Array(
                NATSSubject.monitoringSubject(app: app, token: NATSSubject.lifecycleToken).utf8CString)
            bridgeSubject = Array(
                NATSSubject.monitoringSubject(app: app, token: NATSSubject.bridgeToken).utf8CString)
            callsSubject = Array(
                NATSSubject.monitoringSubject(app: app, token: NATSSubject.callsToken).utf8CString)
            var connectionOptions = options
            connectionOptions.whenUnreachable = .keepTrying
            let wake = self.wake
            connection = try NATSConnection.connect(
                url: url, name: app + " monitoring", options: connectionOptions,
                events: ConnectionEvents(onConnected: { wake.signal() }))
            let pending = self.pending
            observer.withLock {
                $0 = bus.observeLifecycle { pending.append($0) }
            }
            let wanted = callsWantedUntil
            let request = try? connection.subscribeForBridge(NATSSubject.traceRequestSubject) { bytes in
                let line = Array(bytes.bindMemory(to: UInt8.self))
                guard case .traceCalls(let on)? = MonitorRequest.decode(line[...].prefix { $0 != 0x0A })
                else {
                    return
                }
                wanted.withLock {
                    $0 = on ? MonotonicClock.now() + MonitoringPublisher.callLease : -.infinity
                }
                wake.signal()
            }
            requests.withLock { $0 = request }
            let thread = Thread { [self] in
                run()
                finished.signal()
            }
            thread.name = "NATSBridge \(app) monitoring"
            thread.start()
        }

        /// Publishes the last snapshot and a `closed` bridge record (if connected), then stops
        /// the thread and closes the connection. Later callers wait for the first.
        func close() {
            guard !closeStarted.exchange(true, ordering: .acquiringAndReleasing) else {
                finished.wait()
                finished.signal()
                return
            }
            observer.withLock { $0 }?.cancel()
            requests.withLock { $0 }?.cancel()
            stopping.store(true, ordering: .releasing)
            wake.signal()
            finished.wait()
            // After the thread: a request in flight may have had it start observing again.
            callObserver.withLock { observer in
                observer?.cancel()
                observer = nil
            }
            connection.close()
            finished.signal()
        }

        private func run() {
            var nextSnapshot = MonotonicClock.now()
            var reportedState: NATSBridgeState?
            while !stopping.load(ordering: .acquiring) {
                let now = MonotonicClock.now()
                observeCallsWhileWanted(now: now)
                if connection.events.state == .connected {
                    publishLifecycle()
                    publishCalls()
                    let state = core.state
                    if now >= nextSnapshot {
                        publishSnapshot()
                        publishReport(state: state.description)
                        reportedState = state
                        nextSnapshot = now + interval
                    } else if state != reportedState {
                        publishReport(state: state.description)
                        reportedState = state
                    }
                } else {
                    // Back to the server: a fresh snapshot at once.
                    nextSnapshot = now
                    reportedState = nil
                }
                let wait = max(0.001, min(Self.round, nextSnapshot - MonotonicClock.now()))
                _ = self.wake.wait(timeout: .now() + wait)
            }
            guard connection.events.state == .connected else { return }
            publishLifecycle()
            publishCalls()
            publishSnapshot()
            publishReport(state: NATSBridgeState.closed.description)
            _ = connection.flush(timeout: 0.5)
        }

        private func publishLifecycle() {
            let changes = pending.drain().records.lifecycleChanges
            guard !changes.isEmpty else { return }
            var writer = JSONLineWriter(reservingCapacity: 512)
            for change in changes {
                writer.bytes.removeAll(keepingCapacity: true)
                writer.writeLifecycle(time: change.time, change: change.change, origin: origin)
                publish(writer.bytes, on: lifecycleSubject)
            }
        }

        /// Observes the bus's handler calls while a monitor's request stands, and only then.
        private func observeCallsWhileWanted(now: Double) {
            let wanted = callsWantedUntil.current > now
            let calls = self.calls
            callObserver.withLock { observer in
                if wanted, observer == nil {
                    observer = bus.observeHandlerCalls { calls.append($0) }
                } else if !wanted, let current = observer {
                    current.cancel()
                    observer = nil
                }
            }
        }

        private func publishCalls() {
            let records = calls.drain().records.calls
            guard !records.isEmpty else { return }
            var writer = JSONLineWriter(reservingCapacity: 512)
            for var call in records {
                call.origin = origin
                writer.bytes.removeAll(keepingCapacity: true)
                writer.write(call)
                publish(writer.bytes, on: callsSubject)
            }
        }

        private func publishSnapshot() {
            var writer = JSONLineWriter(reservingCapacity: 4096)
            writer.writeSnapshot(
                time: WallClock.now(), bus.snapshot(instancesPerClass: FeedSnapshot.instancesPerClass),
                origin: origin)
            publish(writer.bytes, on: snapshotSubject)
        }

        private func publishReport(state: String) {
            var report = NATSBridgeReport(
                time: WallClock.now(), app: origin.app, host: origin.host, pid: origin.pid, state: state,
                statistics: core.statistics, lifecycleDropped: pending.droppedLifecycle)
            report.callsDropped = calls.droppedCalls
            publish(report.encodeLine(), on: bridgeSubject)
        }

        private func publish(_ bytes: [UInt8], on subject: [CChar]) {
            subject.withUnsafeBufferPointer { subject in
                bytes.withUnsafeBufferPointer { bytes in
                    _ = connection.publish(subject: subject.baseAddress!, bytes: bytes)
                }
            }
        }
    }
#endif
