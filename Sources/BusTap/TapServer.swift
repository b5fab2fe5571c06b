import BusWire
import Dispatch
import EventBus
import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The tap's thread: accepts readers, formats records and writes them, sends snapshots.
///
/// Everything below the configuration is touched only by the tap thread, except the thread's
/// stop request, `connectedCount` and the inbox's contents, which are locked; that is why the
/// class can be `@unchecked Sendable`.
final class TapServer: @unchecked Sendable {
    /// Bytes waiting for one reader beyond which the tap stops taking records for it, so a reader
    /// that does not read costs memory bounded by this plus the history.
    static let outputHighWater = 256 << 10
    /// How many readers may be connected at once by default; more are refused with a `refused`
    /// record.
    static let defaultMaximumClients = 64
    /// Seconds a reader may leave output waiting without taking any of it, by default, before
    /// the tap disconnects it to free its place.
    static let defaultIdleTimeout = 10.0
    /// How long the thread sleeps between rounds when readers are connected but idle, in seconds.
    static let tick = 0.01
    /// Rounds whose takings set the inbox's limit: 80 ms, longer than a monitor's pause between
    /// two reads (busmon's is one frame, 40 ms).
    static let roundsRemembered = 8
    /// Events the inbox keeps each round at least, whatever the readers took: enough for a
    /// monitor that has stopped reading for a moment to see the app's traffic when it comes back,
    /// 25,600 a second.
    static let minimumInboxLimit = 256

    let bus: EventBus
    /// Events the inbox holds between two rounds, and the history holds.
    let capacity: Int
    let listenDescriptor: Int32
    let socketIdentity: UnixSocket.FileIdentity?
    /// The lock on the socket's path, held until the tap shuts down.
    let socketLock: SocketPathLock?
    let socketPath: String
    /// The tap's thread, and the pipe that wakes it to stop.
    let thread: StoppableThread
    let snapshotInterval: Double
    let processName: String
    let connectedCount = LockedValue(0)
    let maximumClients: Int
    let idleTimeout: Double
    /// The connection out to a monitor, for a tap that dials one instead of listening.
    let dialer: MonitorDialer?

    // Tap thread only.
    var clients: [Client] = []
    var deliveryToken: Subscription?
    /// The observation of handler calls, while a reader asks for them.
    var callToken: Subscription?
    /// Handler calls the inbox dropped so far because it was full.
    var droppedCalls = 0
    /// Handler calls kept in the history so far: the number of the newest.
    var callsKept = 0
    var lifecycleToken: Subscription?
    var nextSnapshot = 0.0
    var acceptPausedUntil = 0.0
    /// Events published up to the last swap, stored or not: what a reader that has read the whole
    /// history has seen or lost.
    var eventsPublished = 0
    var history: TapHistory
    /// Where publishers leave records, while anyone reads them.
    var inbox: RecordInbox?
    var encoded = JSONLineWriter(reservingCapacity: 64 << 10)
    var lineEnds: [Int] = []
    let payloads: PayloadFormatter
    /// The fields whose values monitors do not see, in events and in sticky events.
    let redaction: PayloadRedaction
    /// Connections refused because `maximumClients` readers were connected.
    var refusedCount = 0
    /// Readers disconnected because they took none of their waiting output for `idleTimeout`.
    var idleDisconnections = 0
    /// Records the most eager reader took in each of the last rounds, newest last, or
    /// `capacity` for a round in which every reader caught up: what the inbox keeps for the next
    /// round (``TapServer/inboxLimit``).
    var recentlyTaken: [Int] = []

    /// One connected reader.
    final class Client {
        let descriptor: Int32
        var cursor: TapHistory.Cursor
        var output: [UInt8] = []
        var sent = 0
        /// Whether ``output`` starts inside a line, the first part of which was sent before the
        /// bytes sent were let go.
        var outputStartsInsideALine = false
        var droppedEvents = 0
        var droppedLifecycle = 0
        /// Since when output has been waiting and the reader has taken none of it, or nil.
        var stalledSince: Double?
        /// Records encoded for this reader in the current round.
        var takenThisRound = 0
        /// What the reader sent that is not a whole line yet.
        var input: [UInt8] = []
        /// Whether the reader asked for handler calls (it writes a trace).
        var wantsCalls = false
        /// The count of lost calls this reader was last told.
        var droppedCallsTold = 0
        /// The inbox's count of dropped calls when the reader asked for calls: only later drops
        /// are its losses.
        var callDropsBefore = 0
        /// Calls the reader skipped because it fell behind the history.
        var callsSkipped = 0
        /// The number the next call the reader takes should have.
        var nextCall = 1

        /// Calls this reader lost since it asked for them: those the inbox dropped meanwhile,
        /// `inboxDrops` counting all it ever dropped, and those it skipped.
        func droppedCalls(inboxDrops: Int) -> Int {
            max(0, inboxDrops - callDropsBefore) + callsSkipped
        }

        init(descriptor: Int32, cursor: TapHistory.Cursor) {
            self.descriptor = descriptor
            self.cursor = cursor
        }

        /// Snapshots taken while the reader was behind in the history, each with the position
        /// the history had reached then, oldest first: each goes out once the reader has the
        /// records before it, so that a reader's lines stay in the order things happened, and
        /// its counts never include events that come after them. Two at most: the oldest, which
        /// the reader reaches first, and the newest, which supersedes those between.
        var pendingSnapshots: [(position: Int, line: [UInt8])] = []

        /// Keeps `line`, a snapshot taken when the history reached `position`, until the reader
        /// gets there.
        func holdSnapshot(_ line: [UInt8], at position: Int) {
            if pendingSnapshots.count >= 2 { pendingSnapshots.removeLast() }
            pendingSnapshots.append((position, line))
        }

        /// Writes the snapshots the reader has reached, at `position` in the history.
        func writeSnapshots(reaching position: Int) {
            while let first = pendingSnapshots.first, first.position <= position {
                output.append(contentsOf: first.line)
                pendingSnapshots.removeFirst()
            }
        }

        var pendingBytes: Int { output.count - sent }
        var wantsRecords: Bool { pendingBytes < TapServer.outputHighWater }
    }

    /// Where a tap's readers come from: a listening socket, or a connection it dials.
    struct Endpoint {
        var listenDescriptor: Int32
        var socketIdentity: UnixSocket.FileIdentity?
        var socketLock: SocketPathLock?
        /// The socket's path, or the monitor's address.
        var name: String
        var processName: String
        var maximumClients: Int
        var dialer: MonitorDialer?
    }

    /// A tap that listens on the Unix socket at `socketPath`.
    convenience init(
        bus: EventBus, socketPath: String, snapshotInterval: Double, capacity: Int, processName: String,
        maximumClients: Int = TapServer.defaultMaximumClients,
        idleTimeout: Double = TapServer.defaultIdleTimeout, redaction: PayloadRedaction = .default
    ) throws(BusTapError) {
        let thread = StoppableThread()
        guard thread.canWake else {
            throw .systemCall(name: "pipe", path: socketPath, reason: UnixSocket.errorText(errno))
        }
        let listening = try UnixSocket.listen(at: socketPath)
        self.init(
            bus: bus, thread: thread,
            endpoint: Endpoint(
                listenDescriptor: listening.descriptor, socketIdentity: listening.identity,
                socketLock: listening.lock, name: socketPath,
                processName: processName, maximumClients: maximumClients, dialer: nil),
            snapshotInterval: snapshotInterval, capacity: capacity, idleTimeout: idleTimeout,
            redaction: redaction)
    }

    /// A tap that listens on no socket and instead keeps a connection out to the monitor at
    /// `address`, dialling in with `dial`.
    convenience init(
        bus: EventBus, monitor address: NetworkAddress, dial: MonitorLinkHandshake.Dial,
        snapshotInterval: Double,
        capacity: Int, idleTimeout: Double = TapServer.defaultIdleTimeout,
        redaction: PayloadRedaction = .default,
        report: @escaping @Sendable (MonitorLinkStatus) -> Void
    ) throws(BusTapError) {
        let thread = StoppableThread()
        guard thread.canWake else {
            throw .systemCall(name: "pipe", path: address.description, reason: UnixSocket.errorText(errno))
        }
        self.init(
            bus: bus, thread: thread,
            endpoint: Endpoint(
                listenDescriptor: -1, socketIdentity: nil, socketLock: nil, name: address.description,
                processName: dial.app,
                maximumClients: 1, dialer: MonitorDialer(address: address, dial: dial, report: report)),
            snapshotInterval: snapshotInterval, capacity: capacity, idleTimeout: idleTimeout,
            redaction: redaction)
    }

    private init(
        bus: EventBus, thread: StoppableThread, endpoint: Endpoint, snapshotInterval: Double, capacity: Int,
        idleTimeout: Double, redaction: PayloadRedaction
    ) {
        self.bus = bus
        self.thread = thread
        self.capacity = max(1, capacity)
        self.history = TapHistory(capacity: capacity)
        self.listenDescriptor = endpoint.listenDescriptor
        self.socketIdentity = endpoint.socketIdentity
        self.socketLock = endpoint.socketLock
        self.socketPath = endpoint.name
        self.snapshotInterval = snapshotInterval.isFinite ? max(0.01, snapshotInterval) : 0.5
        self.processName = endpoint.processName
        self.maximumClients = max(1, endpoint.maximumClients)
        self.idleTimeout = idleTimeout.isNaN ? Self.defaultIdleTimeout : max(0.01, idleTimeout)
        self.payloads = PayloadFormatter(redaction: redaction)
        self.redaction = redaction
        self.dialer = endpoint.dialer
    }

    /// Starts the tap thread.
    func start() {
        thread.start(name: "BusTap \(socketPath)") { [self] in run() }
    }

    /// Stops the thread, disconnects every reader and removes the socket file; waits for that.
    func stop() {
        thread.stop()
    }

    /// Readers connected now.
    var clientCount: Int { connectedCount.current }

    // MARK: - The loop

    func run() {
        System.lowerThreadPriority()
        while !thread.isStopRequested {
            var descriptors = [
                pollfd(fd: thread.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(
                    fd: listenDescriptor,
                    events: MonotonicClock.now() < acceptPausedUntil ? 0 : Int16(POLLIN),
                    revents: 0),
            ]
            for client in clients {
                let wantsWrite = client.pendingBytes > 0
                descriptors.append(
                    pollfd(
                        fd: client.descriptor, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0),
                        revents: 0))
            }
            // The dialer's socket while it connects, last (a negative descriptor is ignored).
            descriptors.append(dialer?.pollRequest ?? pollfd(fd: -1, events: 0, revents: 0))
            // Idle with nobody connected: sleep until someone connects, at no cost to the app.
            var timeout = clients.isEmpty && acceptPausedUntil == 0 ? -1 : Int32(Self.tick * 1000)
            if let due = dialer?.secondsUntilDue(now: MonotonicClock.now()) {
                let milliseconds = Int32(min(1000, (due * 1000).rounded(.up)))
                timeout = timeout < 0 ? milliseconds : min(timeout, milliseconds)
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0 && errno != EINTR { break }
            if descriptors[0].revents != 0 { thread.clearWakeups() }
            if thread.isStopRequested { break }

            var gone: [Client] = []
            for (index, client) in clients.enumerated() {
                let events = descriptors[index + 2].revents
                if events & Int16(POLLIN) != 0, !receiveRequests(from: client) {
                    gone.append(client)
                } else if events & (Int16(POLLERR) | Int16(POLLHUP) | Int16(POLLNVAL)) != 0 {
                    gone.append(client)
                }
            }
            remove(gone)
            observeCallsIfAsked()
            if descriptors[1].revents & Int16(POLLIN) != 0 { acceptClients() }
            if let dialer,
                let descriptor = dialer.advance(
                    revents: descriptors[descriptors.count - 1].revents, now: MonotonicClock.now())
            {
                add(descriptor)
                if let client = clients.last, client.descriptor == descriptor {
                    client.input = dialer.takeLeftover()
                    applyRequests(of: client)
                }
            }
            guard !clients.isEmpty else { continue }

            let now = MonotonicClock.now()
            var snapshot: SnapshotLine?
            if now >= nextSnapshot {
                nextSnapshot = now + snapshotInterval
                snapshot = snapshotLine()
            }
            pumpRecords(with: snapshot)
            flush()
        }
        shutDown()
    }

    func shutDown() {
        sendLastRecords()
        // Closed first, so that the monitor's connection ending here is the app's own doing,
        // not reported as lost.
        dialer?.close()
        remove(clients)
        if listenDescriptor >= 0 { close(listenDescriptor) }
        // Remove the socket file only if it is still ours: a newer tap may have replaced it.
        if let socketIdentity, UnixSocket.identity(of: socketPath) == socketIdentity {
            unlink(socketPath)
        }
        socketLock?.release()
    }

    /// Gives connected readers what the app published up to now and its final counters, so a
    /// monitor's totals match the app's, waiting at most a moment for slow readers.
    ///
    /// A reader still behind when most of that moment has passed would otherwise lose the end
    /// of the stream in silence, its last snapshot with it: it is given, after the line it is
    /// reading, a `dropped` line that counts everything it will not get, then the last snapshot
    /// (``cutBacklog(of:)``).
    func sendLastRecords() {
        guard !clients.isEmpty else { return }
        pumpRecords(with: snapshotLine())
        let deadline = MonotonicClock.now() + Self.closingGrace
        let cutTime = deadline - Self.closingAccountingTime
        var cut = false
        // A reader behind in the history takes the rest of it, then the last snapshot.
        while clients.contains(where: { $0.pendingBytes > 0 || $0.cursor.position < history.end }) {
            if !cut, MonotonicClock.now() >= cutTime {
                cut = true
                for client in clients where client.pendingBytes > 0 || client.cursor.position < history.end {
                    cutBacklog(of: client)
                }
            }
            pumpHistory()
            flush()
            let remaining = (cut ? deadline : cutTime) - MonotonicClock.now()
            guard remaining > 0 || !cut, !clients.isEmpty else { break }
            var descriptors = clients.filter { $0.pendingBytes > 0 }.map {
                pollfd(fd: $0.descriptor, events: Int16(POLLOUT), revents: 0)
            }
            // A reader that took all its output while behind gets more at once.
            guard !descriptors.isEmpty else { continue }
            _ = poll(&descriptors, nfds_t(descriptors.count), Int32(max(1, remaining * 1000)))
        }
    }

    /// How long closing the tap waits for readers to take the last records.
    static let closingGrace = 0.5
    /// The end of ``closingGrace`` kept for a reader still behind to take the count of what it
    /// will not get, and the last snapshot.
    static let closingAccountingTime = 0.2

    // MARK: - Readers

    func acceptClients() {
        acceptPausedUntil = System.acceptWaitingConnections(listenDescriptor) { descriptor in
            if clients.count < maximumClients { add(descriptor) } else { refuse(descriptor) }
        }
    }

    /// Serves a new reader: its hello and a snapshot, then every record from now on.
    func add(_ descriptor: Int32) {
        if clients.isEmpty { startCapturing() } else { collect() }
        let next = inbox?.nextSequences() ?? (event: 1, lifecycle: 1)
        let client = Client(
            descriptor: descriptor,
            cursor: TapHistory.Cursor(
                position: history.end, nextEvent: next.event, nextLifecycle: next.lifecycle))
        var writer = JSONLineWriter()
        writer.write(
            FeedHello(pid: Int(getpid()), process: processName, bus: bus.name, time: WallClock.now()))
        clients.append(client)
        connectedCount.withLock { $0 = clients.count }
        writer.writeSnapshot(time: WallClock.now(), takeSnapshot(), tap: counters, redacting: redaction)
        client.output = writer.bytes
    }

    /// Tells a reader beyond the limit why it is turned away, then closes its connection. The
    /// line is short and the connection new, so it fits the socket's buffer at once.
    func refuse(_ descriptor: Int32) {
        refusedCount += 1
        var writer = JSONLineWriter()
        let monitors = maximumClients == 1 ? "1 monitor" : "\(maximumClients) monitors"
        writer.write(FeedRefusal(time: WallClock.now(), reason: "\(monitors) attached"))
        _ = System.sendAvailable(descriptor, writer.bytes, from: 0)
        // Read what the reader sent first: closing a Unix socket with unread input would turn
        // the reader's end of file into ECONNRESET, and it might miss the line.
        _ = System.discardInput(descriptor)
        close(descriptor)
    }

    /// The tap's own counters, sent with every snapshot.
    var counters: FeedTapCounters {
        FeedTapCounters(
            monitors: clients.count, maximumMonitors: maximumClients, refused: refusedCount,
            disconnectedIdle: idleDisconnections)
    }

    func remove(_ gone: [Client]) {
        guard !gone.isEmpty else { return }
        for client in gone {
            close(client.descriptor)
            if client.descriptor == dialer?.streamingDescriptor {
                dialer?.streamingEnded(now: MonotonicClock.now())
            }
        }
        clients.removeAll { client in gone.contains { $0 === client } }
        connectedCount.withLock { $0 = clients.count }
        if clients.isEmpty { stopCapturing() }
    }

    /// Subscribes to the bus; done only while someone watches, so an idle tap costs the app
    /// nothing per event.
    func startCapturing() {
        history.allocate()
        let inbox = RecordInbox(capacity: capacity, whenFull: .dropNewest)
        self.inbox = inbox
        lifecycleToken = bus.observeLifecycle { change in
            inbox.append(change)
        }
        // Through the inbox's gate: past its limit, the bus builds nothing for the tap.
        deliveryToken = bus.observeDeliveries(through: inbox.gate) { delivery in
            inbox.append(delivery)
        }
        nextSnapshot = MonotonicClock.now() + snapshotInterval
    }

    /// Reads what `client` sent: requests, one a line; a line that is none is ignored.
    ///
    /// - Returns: `false` once the reader hung up.
    func receiveRequests(from client: Client) -> Bool {
        let open = System.receiveAvailable(
            client.descriptor, into: &client.input, limit: MonitorRequest.maximumLength + 1)
        applyRequests(of: client)
        return open
    }

    /// Carries out the requests among what `client` sent so far.
    func applyRequests(of client: Client) {
        for request in MonitorRequest.take(from: &client.input) {
            switch request {
            case .traceCalls(let calls):
                if calls && !client.wantsCalls {
                    // Its losses count from now, on from what it was told: calls kept or
                    // dropped before are not its.
                    client.callDropsBefore = droppedCalls + client.callsSkipped - client.droppedCallsTold
                    client.nextCall = callsKept + 1
                }
                client.wantsCalls = calls
            }
        }
    }

    /// Observes the bus's handler calls while a reader asks for them, and only then: each
    /// observed call costs the app two clock readings and a record.
    func observeCallsIfAsked() {
        let asked = clients.contains { $0.wantsCalls }
        if asked, callToken == nil, let inbox {
            callToken = bus.observeHandlerCalls { call in inbox.append(call) }
        } else if !asked, let token = callToken {
            token.cancel()
            callToken = nil
        }
    }

    func stopCapturing() {
        callToken?.cancel()
        callToken = nil
        deliveryToken?.cancel()
        lifecycleToken?.cancel()
        deliveryToken = nil
        lifecycleToken = nil
        inbox = nil
        history.release()
    }
}
