package import BusMonitor
internal import BusWire
internal import EventBus
package import EventBusNATS

#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Watches every bridged app of a fleet through a NATS server: `busmon --attach nats://…`.
///
/// It subscribes to `eventbus.>` and takes what ``NATSBridge``s publish there: events (with the
/// app, host and pid of each, in ``CapturedEvent/origin``), subscriber lifecycle changes, each
/// app's bus snapshots (in ``FleetMember/snapshot``, and summed over the apps that are not gone
/// into the batch's snapshot, `fleet (2 apps)`), and each bridge's state and drops. Apps that
/// fall silent turn quiet, then gone (``FleetPresenceTimes``); their coming and going, and this
/// monitor's own connection to the server, are notices for the log.
///
/// Like the other sources it buffers what nats.c's threads deliver, up to `bufferCapacity`
/// events and as many lifecycle changes between two drains; what comes beyond is counted in
/// ``SourceBatch/droppedEvents``.
///
/// With `since`, the history a JetStream stream kept (``NATSStreamOptions``) is replayed first,
/// then live messages follow without a duplicate at the seam (see ``NATSFleetFeed``). When there
/// is no stream, a warning says so and the source goes live.
///
/// ```swift
/// let source = try NATSFleetSource(url: "nats://127.0.0.1:4222", since: 600)
/// let batch = source.drain()   // batch.fleet lists the apps
/// ```
///
/// Built without the package's `NATS` trait, the initializer throws
/// ``NATSBridgeError/builtWithoutNATS``.
package final class NATSFleetSource: DashboardSource {
    /// The server watched.
    package let url: String
    /// Seconds of history replayed first, if any.
    package let since: Double?
    private let shared: LockedValue<Shared>
    #if NATS
        private let feed: NATSFleetFeed
    #endif

    /// Whether this build can watch a fleet: it was built with the `NATS` trait.
    package static var isAvailable: Bool {
        #if NATS
            true
        #else
            false
        #endif
    }

    private struct Shared: Sendable {
        var state: FleetState
        var replaying: Bool
        /// Connections seen by the last drain; 0 before the first.
        var connectionsSeen = 0
        /// Whether the loss of the current connection was told.
        var disconnectionTold = false
        /// Whether the connection was up at the last drain.
        var isConnected = true
        var unreadable = 0
        var unattributed = 0
        /// Messages shed unread, and those nats.c dropped, as the last notices said them.
        var shedSaid = FleetMessageCounts()
        var droppedByClientSaid = 0
        var shedNotices = FleetState.NoticePace()
        var clientDropNotices = FleetState.NoticePace()
        /// Messages skipped unread (unreadable, or naming no app) as the last notice said them.
        var skippedSaid = 0
        var skippedNotices = FleetState.NoticePace()
        var replayed = 0
        var closed = false
        /// Whether the reason nats.c stopped trying was told.
        var problemTold = false
        /// Each app's records, put back in the order of their times.
        var reordering = RecordReordering()
        /// Whether the history's replay ended since the last drain: the apps heard only from it
        /// have sent all they will, and their records leave with the notice that says so.
        var historyEnded = false
        /// Whether handler calls were asked for, and when the request was last repeated
        /// (monotonic seconds).
        var callsRequested = false
        var callsRequestedAt = -Double.infinity
    }

    /// Connects, keeping trying while the server is away, and subscribes at once.
    ///
    /// - Parameters:
    ///   - url: The server, `nats://host:port`.
    ///   - since: Seconds of history to replay from the JetStream stream first, or `nil`.
    ///   - presence: When silent apps become quiet, then gone.
    ///   - bufferCapacity: Events (and lifecycle changes) held between two drains.
    /// - Throws: ``NATSBridgeError/invalidURL(_:reason:)`` for a bad URL, or
    ///   ``NATSBridgeError/builtWithoutNATS``.
    package init(
        url: String, since: Double? = nil, presence: FleetPresenceTimes = FleetPresenceTimes(),
        bufferCapacity: Int = 10_000
    ) throws(NATSBridgeError) {
        self.url = url
        self.since = since
        var state = FleetState(times: presence, capacity: bufferCapacity)
        state.holdsPresence = since != nil
        // A bridge numbers the events it sends: a gap is events the server did not hand over.
        state.countsNumberingGaps = true
        let shared = LockedValue(Shared(state: state, replaying: since != nil))
        self.shared = shared
        #if NATS
            feed = try NATSFleetFeed(
                url: url, since: since,
                deliver: { bytes, replayed in Self.receive(bytes, replayed: replayed, into: shared) },
                replayEnded: { outcome, heldDrops in
                    shared.withLock { shared in
                        shared.replaying = false
                        shared.historyEnded = true
                        shared.state.holdsPresence = !shared.isConnected
                        let now = WallClock.now()
                        switch outcome {
                        case .finished(let messages):
                            shared.state.note(
                                "replayed \(messages) \(messages == 1 ? "message" : "messages") from history; now live",
                                now: now)
                        case .stalled(let messages):
                            shared.state.note(
                                "replayed \(messages) \(messages == 1 ? "message" : "messages") from history, then "
                                    + "nothing more came for \(Int(NATSFleetFeed.stallTimeout)) s; now live "
                                    + "(the rest of the history may be missing)",
                                isWarning: true, now: now)
                        case .unavailable(let reason):
                            shared.state.note(
                                "cannot replay history: \(reason); showing live messages only",
                                isWarning: true, now: now)
                        }
                        let reports = heldDrops[.report].clampedAdding(heldDrops[.other])
                        if reports > 0 {
                            // Lost lifecycle changes and calls are counted with the others; a
                            // lost snapshot or bridge report has no count of its own.
                            shared.state.note(
                                "\(reports) snapshots, bridge reports and other messages that came live while history replayed were dropped: too many were held; totals catch up with each app's next snapshot",
                                isWarning: true, now: now)
                        }
                    }
                })
        #else
            throw .builtWithoutNATS
        #endif
    }

    deinit {
        close()
    }

    /// Unsubscribes and disconnects; the source keeps what it has and gathers no more.
    package func close() {
        #if NATS
            shared.withLock { $0.closed = true }
            feed.close()
        #endif
    }

    /// `fleet at nats://127.0.0.1:4222`.
    package var title: String { "fleet at \(shownURL)" }

    /// ``url`` as busmon shows it, without its password or token.
    package var shownURL: String { NATSServerURL.redacted(url) }

    /// Whether the source has reached the server at least once.
    package var hasConnected: Bool { shared.withLock { $0.connectionsSeen > 0 } || connections > 0 }

    /// Why the server was not reached, when nats.c gave up on it for good (it refused the
    /// connection: no TLS where `tls://` asked for it, or wrong credentials).
    package var connectionProblem: String? {
        #if NATS
            feed.connectionProblem
        #else
            nil
        #endif
    }

    private var connections: Int {
        #if NATS
            feed.connections
        #else
            0
        #endif
    }

    /// Asks every app's bridge for its handler calls, now and every second from now on (a
    /// bridge's answer lapses without it).
    package func requestHandlerCalls() {
        shared.withLock { $0.callsRequested = true }
        askForCallsIfDue()
    }

    /// Repeats the request for handler calls once a second, while they are wanted.
    private func askForCallsIfDue() {
        let now = MonotonicClock.now()
        let due = shared.withLock { shared -> Bool in
            guard shared.callsRequested, now - shared.callsRequestedAt >= 1 else { return false }
            shared.callsRequestedAt = now
            return true
        }
        #if NATS
            if due { feed.requestHandlerCalls() }
        #endif
    }

    /// Commands do not apply to other processes.
    ///
    /// - Returns: A message saying so.
    package func perform(_ command: SourceCommand) -> String? {
        "fleet: each app controls its own rate"
    }

    /// Drained at a trickle's pace: apps' events arrive as the server delivers them, with no
    /// read that could pause, and each drain that brought any would be a frame's news.
    package var wantsPacedDrains: Bool { true }

    /// Everything gathered since the previous call, the fleet's members when they changed, the
    /// merged counters when they changed, notices, and the status: `connecting to …`,
    /// `disconnected from …, retrying`, `replaying history (N messages)`, or how many apps
    /// there are, such as `2 apps (1 quiet)`.
    package func drain() -> SourceBatch {
        drain(last: false)
    }

    private func drain(last: Bool) -> SourceBatch {
        askForCallsIfDue()
        #if NATS
            let state = feed.state
            let connections = feed.connections
            let heldDrops = feed.heldDrops
            let (heldLifecycle, heldCalls) = (heldDrops[.lifecycle], heldDrops[.call])
            let droppedByClient = feed.droppedByClient
            let shed = feed.shed
        #else
            let state = NATSBridgeState.closed
            let connections = 0
            let (heldLifecycle, heldCalls) = (0, 0)
            let droppedByClient = 0
            let shed = FleetMessageCounts()
        #endif
        let problem = connectionProblem
        let url = shownURL
        return shared.withLock { shared in
            let now = WallClock.now()
            if connections > shared.connectionsSeen {
                if shared.connectionsSeen == 0 {
                    shared.state.note("connected to \(url)", now: now)
                } else {
                    if !shared.disconnectionTold {
                        shared.state.note("disconnected from \(url)", isWarning: true, now: now)
                    }
                    shared.state.note("reconnected to \(url)", now: now)
                    // Nothing was heard from any app while busmon itself was away, which says
                    // nothing of them: each has its full time again to be heard from.
                    shared.state.restartSilences(at: now)
                }
                shared.connectionsSeen = connections
                shared.disconnectionTold = false
            }
            // While busmon's own connection is away, the apps' silence is its own: presence
            // waits, as it does while history replays.
            shared.isConnected = state == .connected
            shared.state.holdsPresence = shared.replaying || !shared.isConnected
            if state != .connected, shared.connectionsSeen > 0, !shared.disconnectionTold, !shared.closed {
                shared.state.note("disconnected from \(url), retrying", isWarning: true, now: now)
                shared.disconnectionTold = true
            }
            if let problem, !shared.problemTold {
                // nats.c tries no more: said now, not only when busmon ends.
                shared.problemTold = true
                shared.state.note("gave up on \(url): \(problem)", isWarning: true, now: now)
            }
            // Said as an app's losses are, every few seconds at most, and when busmon ends.
            if shed.total > shared.shedSaid.total, shared.shedNotices.takeTurn(now: now, atOnce: last) {
                let more = shed.total - shared.shedSaid.total
                let gaps =
                    shed[.event] > 0
                    ? "; the events show as gaps in their apps' numbering, counted as lost" : ""
                shared.state.note(
                    "busmon shed \(more) more messages unread while far behind (\(shed[.event]) events, \(shed[.call]) handler calls and \(shed.total - shed[.event] - shed[.call]) others so far)\(gaps)",
                    isWarning: true, now: now)
                shared.shedSaid = shed
            }
            // Said as well as shown in the status, which a headless run writes only in its
            // summaries: on stderr, a stranger's junk on the subjects is heard of as it comes.
            let skipped = shared.unreadable.clampedAdding(shared.unattributed)
            if skipped > shared.skippedSaid, shared.skippedNotices.takeTurn(now: now, atOnce: last) {
                shared.state.note(
                    "skipped \(skipped - shared.skippedSaid) more messages on \(NATSSubject.root).> that busmon could not read or place (\(shared.unreadable) unreadable, \(shared.unattributed) naming no app so far)",
                    isWarning: true, now: now)
                shared.skippedSaid = skipped
            }
            if droppedByClient > shared.droppedByClientSaid,
                shared.clientDropNotices.takeTurn(now: now, atOnce: last)
            {
                // Unread, they may have been anything: said, not counted as events.
                shared.state.note(
                    "the NATS client dropped \(droppedByClient - shared.droppedByClientSaid) more messages unread, its queue for busmon full (\(droppedByClient) so far); apps' events among them show as gaps in their numbering",
                    isWarning: true, now: now)
                shared.droppedByClientSaid = droppedByClient
            }
            var batch = shared.state.takeBatch(now: now)
            batch.records = shared.reordering.pass(batch.records, now: MonotonicClock.now())
            // An app that left sends nothing more: its last records come before it is gone.
            let gone = Set((batch.fleet ?? []).filter { $0.presence == .gone }.map(\.origin))
            // Once the history ended, the apps heard only from it have nothing more to come
            // either; those live go on in order across the seam.
            let quietSince = shared.historyEnded ? now - RecordReordering.holdBack : -.infinity
            shared.historyEnded = false
            batch.records += shared.reordering.flush(appsQuietSince: quietSince, gone: gone)
            batch.droppedLifecycle = batch.droppedLifecycle.clampedAdding(heldLifecycle)
            // A handler call has no number to leave a gap in: one shed is counted here.
            batch.droppedCalls = batch.droppedCalls.clampedAdding(heldCalls).clampedAdding(shed[.call])
            batch.status =
                problem != nil
                ? "gave up on \(url)" : Self.status(shared, connected: state == .connected, url: url)
            return batch
        }
    }

    /// What ``drain()`` gives, with every record still waiting to be put in order.
    package func drainLast() -> SourceBatch {
        var batch = drain(last: true)
        shared.withLock { batch.records += $0.reordering.flush() }
        return batch
    }

    private static func status(_ shared: Shared, connected: Bool, url: String) -> String {
        var text: String
        if shared.connectionsSeen == 0 && !connected {
            text = "connecting to \(url)"
        } else if !connected {
            text = "disconnected from \(url), retrying"
        } else if shared.replaying {
            text = "replaying history (\(shared.replayed) messages)"
        } else {
            // The dashboard's header counts the apps from the fleet itself.
            text = "live"
        }
        if shared.unreadable > 0 { text += " (\(shared.unreadable) unreadable messages skipped)" }
        if shared.unattributed > 0 { text += " (\(shared.unattributed) messages without an app skipped)" }
        return text
    }

    /// Seconds a replayed message waits at most for the monitor to drain room for it before it
    /// is dropped, so a monitor that stopped draining cannot hold the replay for ever.
    private static let replayPatience = 1.0

    /// Decodes one message on a nats.c thread and takes it in.
    private static func receive(
        _ bytes: UnsafeRawBufferPointer, replayed: Bool, into shared: LockedValue<Shared>
    ) {
        let decoded = FleetMessage.decode(bytes)
        if replayed, case .success(.event) = decoded {
            // History comes as fast as the server sends it: wait for room rather than drop it.
            let deadline = MonotonicClock.now() + replayPatience
            while shared.withLock({ $0.state.bufferedEvents >= $0.state.capacity && !$0.closed }),
                MonotonicClock.now() < deadline
            {
                usleep(2_000)
            }
        }
        shared.withLock { shared in
            switch decoded {
            case .success(let message):
                if replayed { shared.replayed += 1 }
                shared.state.receive(message, now: WallClock.now(), replayed: replayed)
            case .failure(.unreadable): shared.unreadable += 1
            case .failure(.noOrigin): shared.unattributed += 1
            case .failure(.ignored): break
            }
        }
    }
}

/// Messages on a fleet's subjects counted unread, by what they begin as: the monitor's
/// subscription shed them while far behind (``NATSFleetFeed/shedding``), or a history replay's
/// full hold turned them away.
package struct FleetMessageCounts: Sendable, Hashable {
    /// What a message is, by how it begins: a bridge writes its kind first (`{"kind":"event",`).
    package enum Kind: Int, CaseIterable, Sendable {
        /// An event: each leaves a gap in its app's numbering, counted as lost where it shows.
        case event
        /// A subscribe, a cancel, a reclaim or a leak report.
        case lifecycle
        /// A handler call, sent while a monitor traces them.
        case call
        /// A snapshot or a bridge report: an app's totals until its next snapshot, a link's
        /// state until its next report.
        case report
        /// Anything else on the subjects (a stranger's).
        case other

        /// The kind `bytes` begins as.
        package init(of bytes: UnsafeRawBufferPointer) {
            self =
                Self.starts.first { bytes.starts(with: $0.bytes) }?.kind ?? .other
        }

        private static let starts: [(bytes: [UInt8], kind: Kind)] = [
            (Array(#"{"kind":"event","#.utf8), .event), (Array(#"{"kind":"lifecycle","#.utf8), .lifecycle),
            (Array(#"{"kind":"call","#.utf8), .call), (Array(#"{"kind":"snapshot","#.utf8), .report),
            (Array(#"{"kind":"bridge","#.utf8), .report),
        ]
    }

    private var counts = Array(repeating: 0, count: Kind.allCases.count)

    /// Counts of nothing.
    package init() {}

    /// The messages of `kind`.
    package subscript(kind: Kind) -> Int {
        get { counts[kind.rawValue] }
        set { counts[kind.rawValue] = newValue }
    }

    /// All of them.
    package var total: Int { counts.reduce(0) { $0.clampedAdding($1) } }
}
