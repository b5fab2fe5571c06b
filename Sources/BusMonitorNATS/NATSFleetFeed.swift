#if NATS
    internal import BusWire
    internal import Dispatch
    internal import EventBus
    package import EventBusNATS
    internal import Foundation
    internal import NATSClient
    internal import Synchronization

    /// A monitor's view of a whole fleet: every message on `eventbus.>`, optionally preceded by
    /// the history a JetStream stream kept, handed over as bytes.
    ///
    /// ## History, then live, without duplicates
    /// With `since`, the feed subscribes to `eventbus.>` first and holds what arrives live, then
    /// replays the stream from that time (an ordered JetStream consumer). Every message stored
    /// after the live subscription was in place also arrived live, so the replay stops at the
    /// first message it finds among the held ones (or when the consumer says nothing is pending,
    /// or when history stops coming for ``stallTimeout`` seconds); the held messages follow, and
    /// from then on live messages go straight through. Messages are told apart by a hash of their
    /// bytes: every record a bridge sends holds a time to the microsecond and its sender, and an
    /// event its sequence number, so two different messages are never the same bytes.
    ///
    /// Live messages held during the replay are bounded (``heldCapacity``, ``heldByteCapacity``); beyond it they are
    /// counted in ``heldDrops``. Replayed messages are handed over at the pace the receiver
    /// takes them: it may block, which holds the consumer back (JetStream flow control), not the
    /// server.
    package final class NATSFleetFeed: Sendable {
        /// How a replay of the history ended.
        package enum ReplayOutcome: Sendable, Hashable {
            /// Caught up with the live messages after replaying `messages`.
            case finished(messages: Int)
            /// Stopped after `messages` because nothing more came for ``stallTimeout`` seconds
            /// while connected, with nothing pending said: the history may go on past them.
            case stalled(messages: Int)
            /// No replay: why, for people (no stream, no JetStream, a server error).
            case unavailable(String)
        }

        /// Live messages held while history replays, at most.
        package static let heldCapacity = 100_000
        /// Bytes of live messages held while history replays, at most: a message may be as
        /// large as the server allows (a megabyte by default), so a count alone bounds nothing.
        package static let heldByteCapacity = 64 << 20
        /// Seconds without a replayed message after which the replay is taken as finished.
        package static let stallTimeout = 3.0

        private let connection: NATSConnection
        private let core: FleetFeedCore
        private let live: NATSSubscription

        /// What the live subscription sheds while busmon falls behind: events and handler calls,
        /// never snapshots (an app's totals), bridge reports (its losses, and that it closed) or
        /// lifecycle changes. Unshed, a flood filled nats.c's queue, which dropped whatever came
        /// next: an app's last snapshot and the report that it closed went with the events, its
        /// totals came out short, and it was said to be quiet, then gone, rather than to have
        /// left. A shed event shows as a gap in its app's numbering, counted as lost.
        static let shedding = NATSShedding(
            backlog: 20_000,
            keptLastTokens: [NATSSubject.snapshotToken, NATSSubject.bridgeToken, NATSSubject.lifecycleToken])
        private let replayFinished = DispatchSemaphore(value: 0)
        private let closing = Atomic<Bool>(false)
        private let closed = Atomic<Bool>(false)

        /// Connects (keeping trying while the server is away) and subscribes.
        ///
        /// - Parameters:
        ///   - url: The server, `nats://host:port`.
        ///   - since: Seconds of history to replay first, or `nil` for live messages only.
        ///   - deliver: Called with each message's bytes (valid during the call) and whether it
        ///     comes from the history; on nats.c's threads, one message at a time per thread.
        ///   - replayEnded: Called once when a replay asked for ended or could not start, with the
        ///     live messages other than events that could not be held while it ran.
        /// - Throws: ``NATSBridgeError/invalidURL(_:reason:)`` or a client error.
        package init(
            url: String, since: Double?,
            deliver: @escaping @Sendable (UnsafeRawBufferPointer, _ replayed: Bool) -> Void,
            replayEnded: @escaping @Sendable (ReplayOutcome, FleetMessageCounts) -> Void
        ) throws(NATSBridgeError) {
            try NATSServerURL.validate(url)
            let core = FleetFeedCore(replaying: since != nil, deliver: deliver, replayEnded: replayEnded)
            self.core = core
            var options = NATSBridgeOptions(whenUnreachable: .keepTrying, reconnectDelay: 0.1...2)
            options.monitoring = false
            let connection = try NATSConnection.connect(
                url: url, name: "busmon", options: options, events: ConnectionEvents(onConnected: {}))
            self.connection = connection
            do throws(NATSBridgeError) {
                var shedding = Self.shedding
                shedding.onShed = { bytes in core.shed(bytes) }
                live = try connection.subscribeForBridge(NATSSubject.root + ".>", shedding: shedding) {
                    bytes in core.live(bytes)
                }
            } catch {
                // nats.c closes a connection to a server without TLS that tls:// asked for,
                // before the subscription is made or after it (``connectionProblem``).
                let problem = Self.problem(of: connection)
                connection.close()
                if let problem { throw .unreachable(url: url, detail: problem) }
                throw error
            }
            if let since {
                let startTime = WallClock.now() - max(0, since)
                let thread = Thread { [self] in
                    replay(from: startTime)
                    replayFinished.signal()
                }
                thread.name = "busmon replay"
                thread.start()
            } else {
                replayFinished.signal()
            }
        }

        deinit {
            close()
        }

        /// Why the server was not reached, when nats.c will not try again: it refused the
        /// connection for good, for a reason nats.c does not tell (it reports no server
        /// available), so the likely ones are named.
        package var connectionProblem: String? { Self.problem(of: connection) }

        private static func problem(of connection: NATSConnection) -> String? {
            guard connection.gaveUp else { return nil }
            return connection.requiresTLS
                ? "nats.c gave up on it; a tls:// URL needs a server that offers TLS, and the user, password or token must be right"
                : "nats.c gave up on it: the server refused the connection; are the user, password or token right?"
        }

        /// Where the connection stands: `connected`, or `reconnecting` while the server is away.
        package var state: NATSBridgeState { connection.bridgeState }

        /// Live messages nats.c dropped so far, its queue for busmon full despite the shedding:
        /// whatever they were, unread.
        package var droppedByClient: Int { live.droppedByClient }

        /// Live messages shed unread so far, by kind.
        package var shed: FleetMessageCounts { core.shedCounts }

        /// Connections made so far; it grows by one with each reconnection.
        package var connections: Int { connection.events.connections.load(ordering: .relaxed) }

        /// Live messages other than events dropped because the replay held too many (events
        /// dropped so leave a gap in their bridge's numbering, counted where it shows).
        package var heldDrops: FleetMessageCounts { core.heldDrops }

        /// Asks every bridge for its bus's handler calls for the next few seconds (see
        /// ``NATSSubject/traceRequestSubject``); a monitor writing a trace asks every second.
        package func requestHandlerCalls() {
            let line = MonitorRequest.traceCalls(true).encodeLine()
            Array(NATSSubject.traceRequestSubject.utf8CString).withUnsafeBufferPointer { subject in
                line.withUnsafeBufferPointer { bytes in
                    _ = connection.publish(subject: subject.baseAddress!, bytes: bytes)
                }
            }
        }

        /// Stops the replay and the subscription and disconnects; nothing is delivered once it
        /// returns. Calling it again does nothing.
        package func close() {
            guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
            closing.store(true, ordering: .releasing)
            replayFinished.wait()
            live.cancel()
            connection.close()
        }

        // MARK: - The replay thread

        /// Replays the stream from `startTime` (seconds since 1970), then lets live messages
        /// through.
        private func replay(from startTime: Double) {
            // The live subscription must be in place on the server before the consumer starts,
            // so that every message the replay misses arrives live: wait for a connection and a
            // round trip after the subscription.
            while !closing.load(ordering: .acquiring) {
                if state == .connected, connection.flush(timeout: 2) { break }
                usleep(50_000)
            }
            guard !closing.load(ordering: .acquiring) else { return }
            let core = self.core
            let start = { [connection] (after: UInt64?) throws(NATSHistoryUnavailable) -> NATSHistoryReplay in
                try NATSHistoryReplay(
                    connection: connection, subject: NATSSubject.root + ".>", from: startTime, after: after,
                    deliver: { bytes, pending in core.replayed(bytes, pending: pending) })
            }
            var replay: NATSHistoryReplay
            do throws(NATSHistoryUnavailable) {
                replay = try start(nil)
            } catch {
                core.finish(.unavailable(error.description))
                return
            }
            // Nothing at all to replay: the consumer has no message from that time on.
            if replay.wasEmptyAtStart { core.finish(.finished(messages: 0)) }
            var disconnected = false
            while !closing.load(ordering: .acquiring), !core.hasEnded {
                // A server that went away holds the history up: no stall is counted meanwhile.
                // It once ended a replay cut short by a restart of the server as if it had
                // caught up.
                if state != .connected {
                    core.noteReplayActivity()
                    disconnected = true
                }
                if MonotonicClock.now() - core.lastReplayActivity > Self.stallTimeout {
                    // A server that restarted forgot the consumer: a new one goes on after the
                    // last message replayed, read once the old one can hand over no more.
                    if disconnected, state == .connected, replay.lastStreamSequence > 0 {
                        replay.cancel()
                        if let resumed = try? start(replay.lastStreamSequence) {
                            replay = resumed
                            disconnected = false
                            core.noteReplayActivity()
                            if resumed.wasEmptyAtStart {
                                core.finish(.finished(messages: core.replayedCount))
                            }
                            continue
                        }
                    }
                    core.finish(.stalled(messages: core.replayedCount))
                }
                usleep(50_000)
            }
            replay.cancel()
        }
    }

    /// The seam between history and live messages, shared by both subscriptions' threads.
    final class FleetFeedCore: Sendable {
        private let deliver: @Sendable (UnsafeRawBufferPointer, Bool) -> Void
        /// Messages shed unread, by ``FleetMessageCounts/Kind``: counted with no lock and
        /// nothing decoded, since shedding is only worth its while if it is far quicker than
        /// reading.
        private let shedEvents = Atomic<Int>(0)
        private let shedLifecycle = Atomic<Int>(0)
        private let shedCalls = Atomic<Int>(0)
        private let shedReports = Atomic<Int>(0)
        private let shedOthers = Atomic<Int>(0)
        private let replayEnded: @Sendable (NATSFleetFeed.ReplayOutcome, FleetMessageCounts) -> Void
        private let seam: LockedValue<Seam>

        private struct Seam {
            /// Whether live messages are held rather than delivered.
            var replaying: Bool
            /// Set by the one call of ``FleetFeedCore/finish(_:)`` that ends the replay.
            var ending = false
            var held: [[UInt8]] = []
            /// The bytes of ``held``.
            var heldBytes = 0
            var heldHashes: Set<Int> = []
            var heldDrops = FleetMessageCounts()
            var replayed = 0
            var lastActivity = MonotonicClock.now()
        }

        init(
            replaying: Bool, deliver: @escaping @Sendable (UnsafeRawBufferPointer, Bool) -> Void,
            replayEnded: @escaping @Sendable (NATSFleetFeed.ReplayOutcome, FleetMessageCounts) -> Void
        ) {
            self.deliver = deliver
            self.replayEnded = replayEnded
            seam = LockedValue(Seam(replaying: replaying, ending: !replaying))
        }

        var heldDrops: FleetMessageCounts { seam.withLock(\.heldDrops) }
        var replayedCount: Int { seam.withLock(\.replayed) }
        var lastReplayActivity: Double { seam.withLock(\.lastActivity) }

        /// Restarts the stall clock, while there is no server to send history.
        func noteReplayActivity() {
            seam.withLock { $0.lastActivity = MonotonicClock.now() }
        }
        var hasEnded: Bool { seam.withLock(\.ending) }

        private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
            var hasher = Hasher()
            hasher.combine(bytes: bytes)
            return hasher.finalize()
        }

        /// A live message: held while the replay runs, delivered otherwise.
        func live(_ bytes: UnsafeRawBufferPointer) {
            let direct = seam.withLock { seam in
                guard seam.replaying else { return true }
                if seam.held.count < NATSFleetFeed.heldCapacity,
                    seam.heldBytes + bytes.count <= NATSFleetFeed.heldByteCapacity
                {
                    seam.held.append(Array(bytes))
                    seam.heldBytes += bytes.count
                    seam.heldHashes.insert(Self.hash(bytes))
                } else {
                    // An event dropped here leaves a gap in its bridge's numbering, which the
                    // fleet counts as lost when the next one arrives: counted there, once.
                    let kind = FleetMessageCounts.Kind(of: bytes)
                    if kind != .event { seam.heldDrops[kind] += 1 }
                }
                return false
            }
            if direct { deliver(bytes, false) }
        }

        /// Counts a live message shed unread by what it begins as.
        func shed(_ bytes: UnsafeRawBufferPointer) {
            switch FleetMessageCounts.Kind(of: bytes) {
            case .event: shedEvents.add(1, ordering: .relaxed)
            case .lifecycle: shedLifecycle.add(1, ordering: .relaxed)
            case .call: shedCalls.add(1, ordering: .relaxed)
            case .report: shedReports.add(1, ordering: .relaxed)
            case .other: shedOthers.add(1, ordering: .relaxed)
            }
        }

        var shedCounts: FleetMessageCounts {
            var counts = FleetMessageCounts()
            counts[.event] = shedEvents.load(ordering: .relaxed)
            counts[.lifecycle] = shedLifecycle.load(ordering: .relaxed)
            counts[.call] = shedCalls.load(ordering: .relaxed)
            counts[.report] = shedReports.load(ordering: .relaxed)
            counts[.other] = shedOthers.load(ordering: .relaxed)
            return counts
        }

        /// A message of the history; `pending` is how many the consumer has after it.
        func replayed(_ bytes: UnsafeRawBufferPointer, pending: UInt64?) {
            let hash = Self.hash(bytes)
            enum Action { case deliver, reachedLive, ignore }
            let action: Action = seam.withLock { seam in
                guard seam.replaying, !seam.ending else { return .ignore }
                seam.lastActivity = MonotonicClock.now()
                if seam.heldHashes.contains(hash) { return .reachedLive }
                seam.replayed += 1
                return .deliver
            }
            switch action {
            case .ignore: return
            case .reachedLive: finish(.finished(messages: replayedCount))
            case .deliver:
                deliver(bytes, true)
                if pending == 0 { finish(.finished(messages: replayedCount)) }
            }
        }

        /// Ends the replay (once; later calls do nothing): delivers the held live messages in
        /// the order they came, then lets live messages through.
        func finish(_ outcome: NATSFleetFeed.ReplayOutcome) {
            let first = seam.withLock { seam in
                defer { seam.ending = true }
                return !seam.ending
            }
            guard first else { return }
            while true {
                // The live thread keeps holding messages until `replaying` is cleared, which
                // happens under the lock once nothing is held: no message overtakes another.
                let chunk: [[UInt8]]? = seam.withLock { seam in
                    guard !seam.held.isEmpty else {
                        seam.replaying = false
                        seam.heldHashes = []
                        return nil
                    }
                    defer {
                        seam.held = []
                        seam.heldBytes = 0
                    }
                    return seam.held
                }
                guard let chunk else { break }
                for message in chunk {
                    message.withUnsafeBytes { deliver($0, false) }
                }
            }
            replayEnded(outcome, heldDrops)
        }
    }

#endif
