internal import BusWire
internal import Dispatch
internal import EventBus
package import Foundation

/// Drains a source without a screen and writes JSON Lines, for scripts and CI.
///
/// Every `drainInterval` (at once again, for a ``FiniteSource`` such as a replay that delivered
/// records, since more may be due) it writes the drained records in the order the source
/// received them: `event`, `lifecycle` and `snapshot` lines of the wire format, each with its
/// app's `app`, `host` and `pid` when the source watches a fleet, and a `dropped` line when the
/// drop count grows. These are exactly the lines `--record` writes to its file. Every
/// `summaryInterval` a `summary` line follows:
///
/// ```json
/// {"kind":"summary","time":1712345678.5,"elapsed":3.0,"status":"attached","events":1200,
///  "lifecycle":4,"dropped":0,"lifecycleDropped":0,"published":1200,"leakSuspects":1,
///  "types":{"TickEvent":1200}}
/// ```
///
/// (one line in the output). `published` is the bus's own total from the newest snapshot (of
/// each app, summed, those gone included), and `leakSuspects` the number of suspects in it
/// (those of apps not gone), or null before a snapshot arrived.
///
/// For a source that watches a fleet, each summary is led by a `fleet` line:
///
/// ```json
/// {"kind":"fleet","time":1712345678.5,"members":[{"app":"checkout","host":"web-3","pid":4242,
///  "presence":"active","lastSeen":1712345678.4,"events":1200,"bridgeState":"connected","bridgeDropped":0}]}
/// ```
///
/// It stops when the duration has passed, when a ``FiniteSource`` is
/// finished, when ``stop()`` is called, when the reader closes the output, or when the output
/// cannot be written, and writes a final summary first (except in the last two cases). A
/// reader that stopped reading does not hold it past a stop or the duration by more than a
/// second; what it then could not write is counted in ``unwrittenOutput``.
///
/// ```swift
/// let runner = HeadlessRunner(source: try ReplaySource(path: "session.jsonl", speed: 0))
/// let outcome = runner.run()
/// ```
package final class HeadlessRunner: Sendable {
    /// Why ``run()`` returned.
    package enum Outcome: Sendable, Hashable {
        /// The duration passed.
        case durationElapsed
        /// The source is a ``FiniteSource`` and it finished.
        case sourceFinished
        /// ``stop()`` was called.
        case stopped
        /// The reader closed the output (as `head` does once it has its lines): a normal end
        /// for a command-line filter.
        case outputClosed
        /// The output could not be written (a full disk, say); the reason, as `strerror` gives it.
        case outputFailed(String)
    }

    private let source: any DashboardSource
    private let output: HeadlessOutput
    private let duration: Double?
    private let drainInterval: Double
    private let summaryInterval: Double
    private let onNotice: @Sendable (SourceNotice) -> Void
    private let stopPublishing: @Sendable () -> Void
    private let wake = DispatchSemaphore(value: 0)
    private let stopRequested = LockedValue(false)
    private let lossesSeen = LockedValue(RecordLosses())

    /// What the source counted as lost on the way, as of the last lines written: said again
    /// when the run ends, since the `dropped` lines may have gone where nobody looks.
    package var losses: RecordLosses { lossesSeen.current }

    /// Lines and bytes of output given up on at the end, because the output's reader had
    /// stopped reading when the run was asked to end (see ``HeadlessOutput``); zero otherwise.
    package var unwrittenOutput: (lines: Int, bytes: Int) { output.unwritten }

    /// Prepares a run; nothing happens until ``run()``.
    ///
    /// - Parameters:
    ///   - source: What to drain.
    ///   - output: Where lines go; standard output by default.
    ///   - duration: Seconds to run, or nil to run until the source finishes or ``stop()``.
    ///   - drainInterval: Seconds between drains.
    ///   - summaryInterval: Seconds between `summary` lines.
    ///   - onNotice: Called with each of the source's notices (an attach, a detach, a warning
    ///     about the recording), which are not part of the output; busmon writes them to stderr.
    ///   - stopPublishing: Called when the duration has passed or ``stop()`` was called, before
    ///     one last drain: an app in this process stops there, so that the output ends with
    ///     everything it published.
    package init(
        source: any DashboardSource, output: FileHandle = .standardOutput, duration: Double? = nil,
        drainInterval: Double = 0.1, summaryInterval: Double = 1,
        onNotice: @escaping @Sendable (SourceNotice) -> Void = { _ in },
        stopPublishing: @escaping @Sendable () -> Void = {}
    ) {
        self.onNotice = onNotice
        self.stopPublishing = stopPublishing
        self.source = source
        self.output = HeadlessOutput(output)
        self.duration = duration
        self.drainInterval = drainInterval.isFinite ? max(0.001, drainInterval) : 0.1
        self.summaryInterval = summaryInterval.isFinite ? max(0.01, summaryInterval) : 1
    }

    /// Makes ``run()`` return soon, from any thread.
    package func stop() {
        stopRequested.withLock { $0 = true }
        wake.signal()
    }

    /// Drains and writes until one of the stop conditions; blocks the calling thread.
    ///
    /// - Returns: Why it stopped.
    package func run() -> Outcome {
        let start = MonotonicClock.now()
        var totals = Totals()
        // Written as a recording writes it, so that this output replays as one, restarts included.
        let hello = WatchedHello(of: source)
        var nextSummary = start + summaryInterval
        while true {
            // Batch by batch (a replay's, one a second of its clock): each has its own drop
            // counts, so a `dropped` line is written where the source's stood.
            let batches = source.drainBatches()
            var writer = JSONLineWriter(
                reservingCapacity: 256 * (batches.reduce(0) { $0 + $1.records.count } + 2))
            for batch in batches {
                batch.notices.forEach(onNotice)
                _ = hello.write(before: batch, into: &writer)
                totals.add(batch, into: &writer)
            }
            let hasRecords = batches.contains { $0.hasRecords }
            let now = MonotonicClock.now()
            let finished = (source as? any FiniteSource)?.isFinished ?? false
            let timeUp = duration.map { now - start >= $0 } ?? false
            let stopping = stopRequested.current
            let outcome: Outcome? =
                stopping ? .stopped : finished ? .sourceFinished : timeUp ? .durationElapsed : nil
            if outcome == .stopped || outcome == .durationElapsed {
                stopPublishing()
                let last = source.drainLast()
                last.notices.forEach(onNotice)
                _ = hello.write(before: last, into: &writer)
                totals.add(last, into: &writer)
            }
            if now >= nextSummary || outcome != nil {
                totals.writeFleet(into: &writer)
                totals.writeSummary(elapsed: now - start, into: &writer)
                nextSummary = now + summaryInterval
            }
            let losses = totals.losses
            lossesSeen.withLock { $0 = losses }
            // A reader that stopped reading holds this write only until the run is asked to end.
            let isEnding = { [duration, stopRequested] in
                stopRequested.current || duration.map { MonotonicClock.now() - start >= $0 } ?? false
            }
            switch output.write(writer.bytes, givingUpWhen: isEnding) {
            case .written, .abandoned: break
            case .failed(EPIPE): return .outputClosed
            case .failed(let code):
                return .outputFailed(code == 0 ? "nothing written" : String(cString: strerror(code)))
            }
            if let outcome { return outcome }
            // A replay may have more due at once (a batch is capped): drain again without waiting.
            if source is any FiniteSource, hasRecords { continue }
            var wait = drainInterval
            if let duration { wait = min(wait, max(0, start + duration - now)) }
            _ = self.wake.wait(timeout: .now() + wait)
        }
    }

    /// What the run has seen, for summaries, and the lines of its records.
    private struct Totals {
        /// Type names a summary lists: names come from the apps watched, and a stranger can
        /// make up any number of them.
        static let maximumTypes = 1_000

        var lines = RecordLines()
        var events = 0
        var lifecycle = 0
        var dropped = 0
        var lifecycleDropped = 0
        /// Handler calls lost on the way, as the newest batch counted them.
        var callsDropped = 0
        var perType: [String: Int] = [:]
        /// Events of the types past the first ``maximumTypes`` names, which are not listed.
        var otherTypeEvents = 0
        /// Each app's newest snapshot; the key is `nil` for a source that watches one app.
        var snapshots: [EventOrigin?: BusSnapshot] = [:]
        /// Snapshots of apps past ``FleetState/maximumMembers``, not kept, so far.
        var snapshotsNotCounted = 0
        var droppedPastTheLimit = 0
        var status: String?
        /// What stopped on busmon's side, as the newest batch said it.
        var problems: [SourceProblem] = []
        /// The fleet's members as the source last sent them, for a source that watches several
        /// processes; `nil` for one app.
        var fleet: [FleetMember]?
        /// The source's own clock as its newest batch set it (a replay's), in seconds since 1970.
        var sourceClock: Double?
        /// The hellos among the records of a source that watches one app.
        var hellos = HelloSequence()
        /// The totals of the processes watched before the current one behind the same socket,
        /// summed: a new process's counters start over, and the summary counts every process's
        /// publishes as it counts every process's events.
        var earlierProcesses: BusSnapshot?

        mutating func add(_ batch: SourceBatch, into writer: inout JSONLineWriter) {
            if let fleet = batch.fleet {
                self.fleet = fleet
                // Members the source no longer lists need no memory of their snapshots; forgotten
                // before this batch's snapshots are kept, so that their slots are free.
                let listed = Set(fleet.map(\.origin))
                snapshots = snapshots.filter { $0.key.map(listed.contains) ?? true }
            }
            for record in batch.records {
                switch record {
                case .event(let event):
                    events += 1
                    if let count = perType[event.typeName] {
                        perType[event.typeName] = count + 1
                    } else if perType.count < Self.maximumTypes {
                        perType[event.typeName] = 1
                    } else {
                        otherTypeEvents += 1
                    }
                case .lifecycle:
                    lifecycle += 1
                case .snapshot(let snapshot):
                    // Origins come from the records: at most a fleet's apps are kept.
                    if snapshots[snapshot.origin] == nil, snapshots.count >= FleetState.maximumMembers {
                        snapshotsNotCounted.clampedAdd(1)
                    } else {
                        snapshots[snapshot.origin] = snapshot.snapshot
                    }
                case .hello(let hello):
                    if hellos.startsNewProcess(hello), let last = snapshots[nil] {
                        earlierProcesses = BusSnapshot.merged(
                            [earlierProcesses, last.retired].compactMap { $0 })
                        snapshots[nil] = nil
                    }
                case .detached(let detached):
                    // The one app watched went away: its totals stay, what it had live went
                    // with it, as of a fleet's gone app (its next snapshot, if it comes back,
                    // takes the place of this). A note of another process says nothing of it.
                    if detached.pid == hellos.current?.pid, let last = snapshots[nil] {
                        snapshots[nil] = last.retired
                    }
                case .dropped, .refused, .call:
                    break
                }
            }
            _ = lines.write(batch, into: &writer)
            dropped = batch.droppedEvents
            lifecycleDropped = batch.droppedLifecycle
            callsDropped = batch.droppedCalls
            droppedPastTheLimit = batch.droppedFromAppsPastTheLimit
            // A file that stopped is said after the source's state, as one status.
            if let status = batch.status { self.status = status }
            problems = batch.problems
            if let clock = batch.sourceClock { sourceClock = clock }
        }

        /// What the newest batch counted as lost.
        var losses: RecordLosses {
            RecordLosses(
                events: dropped, lifecycleChanges: lifecycleDropped,
                fromAppsPastTheLimit: droppedPastTheLimit,
                handlerCalls: callsDropped)
        }

        /// The newest snapshot of each app, a gone app's retired (``BusSnapshot/retired``): its
        /// totals stay in the sums, what it had live does not.
        private var countedSnapshots: [BusSnapshot] {
            let gone = Set((fleet ?? []).filter { $0.presence == .gone }.map(\.origin))
            let current = snapshots.map { origin, snapshot in
                origin.map(gone.contains) == true ? snapshot.retired : snapshot
            }
            return current + [earlierProcesses].compactMap { $0 }
        }

        /// For a fleet: a `fleet` line listing the members.
        mutating func writeFleet(into writer: inout JSONLineWriter) {
            // Nobody yet (busmon listening, no app dialled in): nothing to say, as a recording
            // says nothing; once an app came, an empty list says they all went.
            guard let fleet, !fleet.isEmpty || lines.wroteFleetLine else { return }
            // A replay's on its clock, among the records it stands with; never before the line
            // written last (a replay's clock reads a little behind where it stopped).
            lines.writeFleetLine(fleet, at: sourceClock ?? WallClock.now(), into: &writer)
        }

        func writeSummary(elapsed: Double, into writer: inout JSONLineWriter) {
            let counted = snapshots.isEmpty && earlierProcesses == nil ? nil : countedSnapshots
            writer.beginRecord("summary")
            writer.field("time", WallClock.now())
            writer.field("elapsed", (elapsed * 1000).rounded() / 1000)
            writer.field("status", SourceBatch.statusLine(status, problems))
            writer.field("events", events)
            writer.field("lifecycle", lifecycle)
            writer.field("dropped", dropped)
            writer.field("lifecycleDropped", lifecycleDropped)
            if let counted {
                writer.field("published", counted.clampedSum(\.totalPublished))
            } else {
                writer.rawField("published", "null")
            }
            writer.field("leakSuspects", counted.map { $0.reduce(0) { $0 + $1.leakSuspects.count } })
            writer.beginObject("types")
            for (name, count) in perType.sorted(by: { $0.key < $1.key }) {
                writer.field(named: name, count)
            }
            writer.endObject()
            if otherTypeEvents > 0 { writer.field("otherTypeEvents", otherTypeEvents) }
            if snapshotsNotCounted > 0 { writer.field("snapshotsNotCounted", snapshotsNotCounted) }
            if droppedPastTheLimit > 0 { writer.field("droppedFromAppsPastTheLimit", droppedPastTheLimit) }
            writer.endRecord()
        }
    }
}
