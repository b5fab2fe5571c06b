package import BusWire
internal import Dispatch
internal import EventBus
package import Foundation

#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Watches another process through its ``BusTap`` socket.
///
/// A background thread connects, reads and decodes lines into a bounded buffer that
/// ``drain()`` empties on the monitor's thread. When the buffer is full the thread stops reading,
/// so the tap, not this process, drops the excess, and the counts arrive as
/// ``SourceBatch/droppedEvents``. When the app goes away the source says `detached`, keeps what
/// it showed, and tries to reattach every `retryInterval` until the socket answers again.
///
/// Each attach and detach is also a ``SourceNotice`` for the log, such as `attached to simapp
/// (pid 12943)`, `detached from simapp (pid 12943)`, `attached again to simapp (pid 12943)`, or
/// `attached to simapp (pid 13377): a new process, counters restart`; the batch that carries a
/// new process's first snapshot has ``SourceBatch/countersRestarted`` set. A tap that serves as
/// many monitors as it allows refuses with a reason, which becomes the status (`refused by the
/// tap: 64 monitors attached`) and a warning; the source then retries once a second.
///
/// ```swift
/// let source = AttachSource(socketPath: "/tmp/myapp.sock")
/// // each frame:
/// let batch = source.drain()   // batch.status is "attached", "detached", or why it waits
/// ```
package final class AttachSource: DashboardSource {
    /// Why a socket file must not be connected to, or `nil`: one that belongs to another user.
    ///
    /// A tap makes its socket as the user its app runs as, mode 0600. In a shared folder such as
    /// `/tmp` anyone may take a path first; a socket there owned by another user (root aside,
    /// whose files nobody else can make) is someone else's, who could feed busmon anything.
    package static func ownerProblem(of status: stat) -> String? {
        let owner = status.st_uid
        guard owner != geteuid(), owner != 0 else { return nil }
        return "the socket belongs to another user (uid \(owner)), not to this one (uid \(geteuid()))"
    }

    /// Where the source stands with the app.
    package enum State: Sendable, Hashable {
        /// Not attached yet; trying.
        case connecting
        /// Connected, and the tap said hello.
        case attached
        /// Was attached and lost the app; retrying.
        case detached
    }

    /// The socket path this source attaches to.
    package let socketPath: String
    private let shared: LockedValue<AttachState>
    private let reader: AttachReader

    /// Starts trying to attach at once, on a background thread.
    ///
    /// - Parameters:
    ///   - socketPath: The path the app gave its ``BusTap``.
    ///   - retryInterval: Seconds between attempts to (re)attach.
    ///   - bufferCapacity: Records held for the monitor between drains; beyond it reading
    ///     pauses and the tap counts drops.
    ///   - quietAfter: Seconds without a line from the attached tap (and at least three of its
    ///     snapshots' intervals) after which the app is said to be quiet, and back when a line
    ///     comes.
    package init(
        socketPath: String, retryInterval: Double = 0.25, bufferCapacity: Int = 10_000,
        quietAfter: Double = FleetPresenceTimes().quietAfter
    ) {
        self.socketPath = socketPath
        self.quietAfter = quietAfter.isFinite ? max(0.01, quietAfter) : FleetPresenceTimes().quietAfter
        waitingTitle = "tap at \(socketPath)"
        shared = LockedValue(AttachState())
        reader = AttachReader(
            socketPath: socketPath, retryInterval: retryInterval.isFinite ? max(0.01, retryInterval) : 0.25,
            capacity: max(1, bufferCapacity), shared: shared)
        reader.start()
    }

    deinit {
        reader.stop()
    }

    /// Stops reading and disconnects; the source keeps what it has and drains no more.
    package func close() {
        reader.stop()
    }

    /// What is being watched: the app's process name, pid and bus once it said hello.
    package var title: String {
        shared.withLock { $0.title } ?? waitingTitle
    }

    /// The title before any app said hello.
    private let waitingTitle: String
    /// Seconds without a line from an attached tap after which the app is said to be quiet.
    private let quietAfter: Double

    /// Whether the source is attached now.
    package var state: State { shared.withLock(\.state) }

    /// The hello of the app most recently attached to.
    package var hello: FeedHello? { shared.withLock(\.hello) }

    /// The tap's own counters from its newest snapshot: monitors attached, refused, and
    /// disconnected for reading nothing.
    package var tapCounters: FeedTapCounters? { shared.withLock(\.tapCounters) }

    /// Lines that could not be read, skipped so far.
    package var malformedLineCount: Int { shared.withLock(\.malformedLines) }
    /// Pauses the reader took between reads so far, for an app that trickled (``ReadPacing``).
    package var readPauses: Int { shared.withLock(\.readPauses) }

    /// Everything read since the previous call, the newest counters, drops, notices of attaches
    /// and detaches, and the state: `attached`, `detached`, before the first attach why it still
    /// waits (such as `waiting for /tmp/app.sock to appear (no such file)`), or why the tap
    /// refused (`refused by the tap: 64 monitors attached`), with a count of malformed lines when
    /// there are any.
    package func drain() -> SourceBatch {
        drain(sayingEveryMalformedLine: false)
    }

    /// What ``drain()`` gives, with the malformed lines not said yet said now.
    package func drainLast() -> SourceBatch {
        drain(sayingEveryMalformedLine: true)
    }

    private func drain(sayingEveryMalformedLine: Bool) -> SourceBatch {
        shared.withLock { state in
            state.noteSilence(quietAfter: quietAfter, now: MonotonicClock.now())
            var batch = SourceBatch(
                records: state.records, droppedEvents: state.droppedBefore.clampedAdding(state.droppedNow),
                status: state.statusText, notices: state.notices, countersRestarted: state.countersRestarted)
            batch.droppedCalls = state.droppedCallsBefore.clampedAdding(state.droppedCallsNow)
            batch.droppedLifecycle = state.droppedLifecycleBefore.clampedAdding(state.droppedLifecycleNow)
            // Fresh arrays rather than removeAll: the batch now owns the old storage.
            // Said once a second at most, as --listen says it of an app: on stderr when headless.
            if let lines = state.malformedNotices.take(
                now: MonotonicClock.now(), atOnce: sayingEveryMalformedLine)
            {
                batch.notices.append(
                    SourceNotice(time: WallClock.now(), text: lines.notice + " from the tap", isWarning: true)
                )
            }
            state.records = []
            state.recordBytes = 0
            state.notices = []
            state.countersRestarted = false
            return batch
        }
    }

    /// Asks the tap for every handler call, now and on every later connection.
    package func requestHandlerCalls() {
        reader.wantsCalls.withLock { $0 = true }
    }

    /// Commands do not apply to another process.
    ///
    /// - Returns: A message saying so.
    package func perform(_ command: SourceCommand) -> String? {
        "attached: the app controls its rate"
    }
}

/// What the reader thread hands to the monitor's thread.
struct AttachState {
    /// Events, lifecycle changes and snapshots, in the order they were read.
    var records: [FeedRecord] = []
    /// Bytes of the lines `records` were read from: with the count, what bounds them, since a
    /// line may be as long as ``FeedRecord/maximumLineLength``.
    var recordBytes = 0
    /// Lines that could not be read and were not said yet; a drain says them, once a second
    /// at most.
    var malformedNotices = MalformedLineNotices()
    var hello: FeedHello?
    /// The app's process name, pid and bus from its hello, as the dashboard's title.
    var title: String?
    var state = AttachSource.State.connecting
    /// Drops the tap reported on connections that have ended.
    var droppedBefore = 0
    /// Drops the tap reported on the current connection.
    var droppedNow = 0
    /// Handler calls the taps lost, on connections that have ended and on the current one.
    var droppedCallsBefore = 0
    var droppedCallsNow = 0
    /// Lifecycle changes the taps lost, on connections that have ended and on the current one.
    var droppedLifecycleBefore = 0
    var droppedLifecycleNow = 0
    var malformedLines = 0
    /// See ``AttachSource/readPauses``.
    var readPauses = 0
    var problem: String?
    /// Why the source is still waiting, before it first attaches, such as
    /// "waiting for /tmp/app.sock to appear (no such file)".
    var waitingReason: String?
    /// Why the tap turned the source away, such as "refused by the tap: 64 monitors attached",
    /// until it attaches or the socket stops answering.
    var refusal: String?
    /// Notices not drained yet.
    var notices: [SourceNotice] = []
    /// Whether a new process's first snapshot arrived since the last drain.
    var countersRestarted = false
    /// Whether the process attached to last has not sent its first snapshot yet.
    var awaitingFirstSnapshot = false
    /// The tap's own counters from its newest snapshot.
    var tapCounters: FeedTapCounters?
    /// When the tap last sent anything, on the monotonic clock: it sends snapshots at its own
    /// pace (twice a second unless the app chose otherwise) even while its app publishes
    /// nothing, so a silence of several of those is an app that stopped (suspended, or stuck in
    /// a debugger), said as a fleet says it of a quiet app.
    var lastHeard: Double?
    /// When the newest snapshot came, and the longest time between two so far: silence is
    /// judged only once the tap's pace is known, and against it.
    var lastSnapshotAt: Double?
    var longestSnapshotGap: Double?
    /// Whether the silence was said, so that the tap's next line says the app is back.
    var saidQuiet = false

    /// Notes a snapshot's arrival, for the tap's pace.
    mutating func heardSnapshot() {
        let now = lastHeard ?? MonotonicClock.now()
        if let lastSnapshotAt { longestSnapshotGap = max(longestSnapshotGap ?? 0, now - lastSnapshotAt) }
        lastSnapshotAt = now
    }

    /// Notes that the tap sent something now; says the app is back after a silence.
    mutating func heard() {
        lastHeard = MonotonicClock.now()
        guard saidQuiet else { return }
        saidQuiet = false
        if state == .attached, let hello { note("\(hello.processName) is back") }
    }

    /// Says once that the attached app has sent nothing for `quietAfter` seconds as of `now`.
    mutating func noteSilence(quietAfter: Double, now: Double) {
        guard state == .attached, !saidQuiet, let lastHeard, let hello, let gap = longestSnapshotGap else {
            return
        }
        // Three of the tap's snapshots missed, and never less than a fleet waits.
        let threshold = max(quietAfter, 3 * gap)
        guard now - lastHeard >= threshold else { return }
        saidQuiet = true
        // Whole seconds past a fleet's wait: the tap's pace is measured, not set.
        let said = threshold > quietAfter ? threshold.rounded(.up) : threshold
        note("\(hello.processName) is quiet: nothing from it for \(FleetState.format(said))")
    }

    var statusText: String {
        var text: String
        switch state {
        case .connecting: text = refusal ?? waitingReason ?? "connecting"
        // Quiet is said in the log once; the header keeps saying it while it lasts.
        case .attached: text = saidQuiet ? "attached, quiet" : "attached"
        case .detached: text = refusal.map { "detached (\($0))" } ?? "detached"
        }
        if let problem { text += " (\(problem))" }
        if malformedLines > 0 {
            text += " (\(malformedLines) malformed \(malformedLines == 1 ? "line" : "lines") skipped)"
        }
        return text
    }
}

extension AttachState {
    /// Records a notice for the log, stamped now.
    mutating func note(_ text: String, isWarning: Bool = false) {
        notices.append(SourceNotice(time: WallClock.now(), text: text, isWarning: isWarning))
    }

    /// The tap said hello: a first attach, the same process again, or a new one whose counters
    /// start over.
    mutating func attach(_ hello: FeedHello) {
        saidQuiet = false
        lastSnapshotAt = nil
        longestSnapshotGap = nil
        let notice = hello.attachNotice(after: self.hello)
        note(notice.text)
        // Among the records, where it came: a recording and headless output write it there, so
        // that records read before it are never taken for the new process's.
        records.append(.hello(hello))
        if notice.restartsCounters {
            awaitingFirstSnapshot = true
            tapCounters = nil
        }
        self.hello = hello
        title = "\(hello.process) (pid \(hello.pid), bus \(hello.bus))"
        state = .attached
        problem = nil
        refusal = nil
    }

    /// Keeps the tap's newest counters, and notes monitors it disconnected since the last ones.
    mutating func noteTapCounters(_ counters: FeedTapCounters) {
        if let previous = tapCounters, counters.disconnectedIdle > previous.disconnectedIdle {
            let count = counters.disconnectedIdle - previous.disconnectedIdle
            note(
                "the tap disconnected \(count) \(count == 1 ? "monitor" : "monitors") that read nothing",
                isWarning: true)
        }
        tapCounters = counters
    }
}

/// The background thread of an ``AttachSource``.
final class AttachReader: @unchecked Sendable {
    private let socketPath: String
    private let retryInterval: Double
    private let capacity: Int
    private let shared: LockedValue<AttachState>
    private let thread = StoppableThread()
    /// Whether to ask each tap connected to for handler calls.
    let wantsCalls = LockedValue(false)

    init(socketPath: String, retryInterval: Double, capacity: Int, shared: LockedValue<AttachState>) {
        self.socketPath = socketPath
        self.retryInterval = retryInterval
        self.capacity = capacity
        self.shared = shared
    }

    func start() {
        thread.start(name: "AttachSource \(socketPath)") { [self] in run() }
    }

    func stop() {
        thread.stop()
    }

    private var isStopping: Bool { thread.isStopRequested }

    private func run() {
        System.lowerThreadPriority()
        while !isStopping {
            var status = stat()
            if lstat(socketPath, &status) == 0, let problem = AttachSource.ownerProblem(of: status) {
                // Whoever made the socket could feed busmon anything: not connected to.
                shared.withLock { state in
                    if state.state == .connecting {
                        state.waitingReason = "waiting for \(socketPath) (\(problem))"
                    }
                }
                thread.sleep(seconds: retryInterval)
                continue
            }
            switch UnixSocket.connect(to: socketPath) {
            case .connected(let descriptor):
                shared.withLock { state in
                    // What listens there has said nothing yet: a tap says who it is at once.
                    if state.state == .connecting {
                        state.waitingReason =
                            "connected to \(socketPath), waiting for the app to say who it is"
                    }
                }
                let delay = serve(descriptor)
                close(descriptor)
                // Closed by busmon itself (it quits): the app did not go away, and a recording
                // must not say it did.
                let stopping = isStopping
                shared.withLock { state in
                    if state.state == .attached, !stopping {
                        state.state = .detached
                        if let hello = state.hello {
                            let detach = FeedDetached(from: hello, at: WallClock.now())
                            state.note(detach.notice)
                            // After the connection's last records, for a recording to replay.
                            state.records.append(.detached(detach))
                        }
                    }
                    state.droppedBefore.clampedAdd(state.droppedNow)
                    state.droppedNow = 0
                    state.droppedCallsBefore.clampedAdd(state.droppedCallsNow)
                    state.droppedCallsNow = 0
                    state.droppedLifecycleBefore.clampedAdd(state.droppedLifecycleNow)
                    state.droppedLifecycleNow = 0
                }
                thread.sleep(seconds: delay)
            case .failed(let code):
                let reason = Self.waitingReason(for: socketPath, errno: code)
                shared.withLock { state in
                    if state.state == .connecting { state.waitingReason = reason }
                    state.refusal = nil
                }
                thread.sleep(seconds: retryInterval)
            }
        }
    }

    /// Bytes read and not yet drained past which reading pauses, as it does at the buffer's
    /// count of records: 10,000 lines of a stranger's megabyte each would be 10 GB. Far above
    /// what a real app sends in a frame (at 100,000 events a second, about 1 MB).
    static let byteCapacity = 32 << 20

    /// Seconds between attempts while the tap refuses, so as not to keep a full tap busy.
    static let refusedRetryInterval = 1.0

    /// What a person should read while no app can be reached at `path`.
    static func waitingReason(for path: String, errno code: Int32) -> String {
        switch code {
        case ENOENT: return "waiting for \(path) to appear (no such file)"
        case ECONNREFUSED: return "waiting for an app to listen at \(path) (connection refused)"
        default: return "waiting for \(path) (\(UnixSocket.errorText(code)))"
        }
    }

    /// Reads one connection until it ends; returns how long to wait before reconnecting.
    private func serve(_ descriptor: Int32) -> Double {
        var decoder = RecordStreamDecoder()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var records: [FeedRecord] = []
        var malformed = MalformedLines()
        var refused = false
        var askedForCalls = false
        // A tap's first line is its hello: records before it belong to no process busmon knows.
        var saidHello = false
        var pacing = ReadPacing(now: MonotonicClock.now())
        while !isStopping {
            if !askedForCalls, wantsCalls.current {
                // One short line on a fresh connection: it fits the socket's buffer.
                let request = MonitorRequest.traceCalls(true).encodeLine()
                askedForCalls = System.sendAvailable(descriptor, request, from: 0) == request.count
            }
            // Backpressure: while the monitor has not drained, leave bytes in the socket so the
            // tap drops the excess cheaply instead of this thread decoding what it would drop.
            let full = shared.withLock { $0.records.count >= capacity || $0.recordBytes >= Self.byteCapacity }
            if full {
                // Bytes waiting while busmon holds itself back are the app talking: its
                // silence is judged on what it sends, not on what busmon had room to read.
                var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                if poll(&waiting, 1, 0) > 0 { shared.withLock { $0.heard() } }
                thread.sleep(seconds: 0.005)
                continue
            }
            var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            if thread.canWake {
                descriptors.append(pollfd(fd: thread.wakeDescriptor, events: Int16(POLLIN), revents: 0))
            }
            // Woken by the tap's records or by stop(); the timeout only bounds a wait without the
            // wake pipe (the process ran out of descriptors).
            _ = poll(&descriptors, nfds_t(descriptors.count), thread.canWake ? 1000 : 100)
            guard descriptors[0].revents != 0 else { continue }
            let count = recv(descriptor, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { continue }
            // A tap that refused is full: ask again at a slower pace.
            guard count > 0 else {
                var cutShort = MalformedLines()
                decoder.finish(malformed: &cutShort)
                if cutShort.count > 0 {
                    shared.withLock { state in
                        state.malformedLines += cutShort.count
                        state.malformedNotices.add(cutShort)
                    }
                }
                return refused ? max(Self.refusedRetryInterval, retryInterval) : retryInterval
            }

            records.removeAll(keepingCapacity: true)
            malformed = MalformedLines()
            decoder.decode(chunk[0..<count], malformed: &malformed) { records.append($0) }
            var incompatible = false
            shared.withLock { state in
                state.heard()
                state.malformedLines += malformed.count
                state.recordBytes += count
                state.malformedNotices.add(malformed)
                for record in records {
                    if !saidHello, record.isOfAProcess {
                        state.malformedLines += 1
                        state.malformedNotices.add(reason: "a record before the tap's hello")
                        continue
                    }
                    switch record {
                    case .hello(let hello):
                        if let problem = FeedRecord.unreadableVersionMessage(hello.version, speaker: "tap") {
                            // Said once, as a refusal is: what the tap sends from here on is not
                            // read, and a run with its status unread must still hear why.
                            if state.problem != problem {
                                state.note(
                                    "cannot read the tap at \(socketPath): \(problem)", isWarning: true)
                            }
                            state.problem = problem
                            if state.state == .connecting {
                                state.waitingReason = "cannot read the tap at \(socketPath)"
                            }
                            incompatible = true
                            return
                        }
                        saidHello = true
                        state.attach(hello)
                    case .detached:
                        // A monitor's own note, which no tap sends: nothing to believe.
                        break
                    case .event, .lifecycle, .call:
                        state.records.append(record)
                    case .snapshot(let snapshot):
                        state.heardSnapshot()
                        state.records.append(record)
                        if state.awaitingFirstSnapshot {
                            state.awaitingFirstSnapshot = false
                            state.countersRestarted = true
                        }
                        if let counters = snapshot.tap { state.noteTapCounters(counters) }
                    case .dropped(let drops):
                        // Running totals of this connection, which only grow: a line that says
                        // less (a stranger's) does not take back losses said before.
                        state.droppedNow = max(state.droppedNow, drops.events)
                        state.droppedCallsNow = max(state.droppedCallsNow, drops.calls)
                        state.droppedLifecycleNow = max(state.droppedLifecycleNow, drops.lifecycle)
                    case .refused(let refusal):
                        refused = true
                        let text = "refused by the tap: \(refusal.reason)"
                        // Once per refusal, not once per retry.
                        if state.refusal != text { state.note(text, isWarning: true) }
                        state.refusal = text
                    }
                }
            }
            // Retry an incompatible tap slowly, so as not to churn its subscriptions.
            if incompatible { return max(2, retryInterval) }
            // A tap sends every 10 ms while its app publishes: what gathers in a pause costs
            // one wake-up and one frame where there were several (``ReadPacing``). A full chunk
            // left more behind it, which is read at once.
            if pacing.pausesAfter(reading: count, outOf: chunk.count, at: MonotonicClock.now()) {
                shared.withLock { $0.readPauses += 1 }
                thread.sleep(seconds: ReadPacing.pause)
            }
        }
        return 0
    }
}
