import BusWire
import Dispatch
import EventBus
public import Foundation

/// Drains a source without a screen and writes JSON Lines, for scripts and CI.
///
/// Every `drainInterval` (at once again, for a ``FiniteSource`` such as a replay that delivered
/// records, since more may be due) it writes the drained events and lifecycle changes as `event` and
/// `lifecycle` lines (the wire format, leak suspicions included), a `dropped` line when the drop
/// count grows, and every `summaryInterval` the newest `snapshot` (when a new one arrived since
/// the last summary: observers, leak suspects and instances as well as the counters) and a
/// `summary` line:
///
/// ```json
/// {"kind":"summary","time":1712345678.5,"elapsed":3.0,"status":"attached","events":1200,
///  "lifecycle":4,"dropped":0,"published":1200,"leakSuspects":1,"types":{"TickEvent":1200}}
/// ```
///
/// (one line in the output). `published` is the bus's own total from the newest snapshot, and
/// `leakSuspects` the number of suspects in it, or null before one arrived.
///
/// For a source that watches a fleet (NATS), events and lifecycle lines carry their process's
/// `app`, `host` and `pid`, and each summary is led by every member's newest `snapshot` (with its
/// origin) and a `fleet` line:
///
/// ```json
/// {"kind":"fleet","time":1712345678.5,"members":[{"app":"checkout","host":"web-3","pid":4242,
///  "presence":"active","lastSeen":1712345678.4,"events":1200,"bridgeState":"connected","bridgeDropped":0}]}
/// ```
///
/// It stops when the duration has passed, when a ``FiniteSource`` is
/// finished, when ``stop()`` is called, when the reader closes the output, or when the output
/// cannot be written, and writes a final summary first (except in the last two cases).
///
/// ```swift
/// let runner = HeadlessRunner(source: try ReplaySource(path: "session.jsonl", speed: 0))
/// let outcome = runner.run()
/// ```
public final class HeadlessRunner: Sendable {
    /// Why ``run()`` returned.
    public enum Outcome: Sendable, Hashable {
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
    private let output: FileHandle
    private let duration: Double?
    private let drainInterval: Double
    private let summaryInterval: Double
    private let onNotice: @Sendable (SourceNotice) -> Void
    private let stopPublishing: @Sendable () -> Void
    private let wake = DispatchSemaphore(value: 0)
    private let stopRequested = LockedValue(false)

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
    public init(
        source: any DashboardSource, output: FileHandle = .standardOutput, duration: Double? = nil,
        drainInterval: Double = 0.1, summaryInterval: Double = 1,
        onNotice: @escaping @Sendable (SourceNotice) -> Void = { _ in },
        stopPublishing: @escaping @Sendable () -> Void = {}
    ) {
        self.onNotice = onNotice
        self.stopPublishing = stopPublishing
        self.source = source
        self.output = output
        self.duration = duration
        self.drainInterval = drainInterval.isFinite ? max(0.001, drainInterval) : 0.1
        self.summaryInterval = summaryInterval.isFinite ? max(0.01, summaryInterval) : 1
    }

    /// Makes ``run()`` return soon, from any thread.
    public func stop() {
        stopRequested.withLock { $0 = true }
        wake.signal()
    }

    /// Drains and writes until one of the stop conditions; blocks the calling thread.
    ///
    /// - Returns: Why it stopped.
    public func run() -> Outcome {
        let start = MonotonicClock.now()
        var totals = Totals()
        var nextSummary = start + summaryInterval
        while true {
            let batch = source.drain()
            batch.notices.forEach(onNotice)
            var writer = JSONLineWriter(reservingCapacity: 256 * (batch.events.count + 2))
            totals.add(batch, into: &writer)
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
                totals.add(last, into: &writer)
            }
            if now >= nextSummary || outcome != nil {
                totals.writeNewestSnapshot(into: &writer)
                totals.writeFleet(into: &writer)
                totals.writeSummary(elapsed: now - start, into: &writer)
                nextSummary = now + summaryInterval
            }
            if let failure = Self.write(writer.bytes, to: output.fileDescriptor) { return failure }
            if let outcome { return outcome }
            // A replay may have more due at once (a batch is capped): drain again without waiting.
            if source is any FiniteSource, !batch.events.isEmpty || !batch.lifecycle.isEmpty { continue }
            var wait = drainInterval
            if let duration { wait = min(wait, max(0, start + duration - now)) }
            // Run on the main thread, this loop is the app's: what waits for the main actor (a
            // simulated app's main-actor handlers) runs here between drains.
            if Thread.isMainThread { RunLoop.main.run(until: Date()) }
            _ = self.wake.wait(timeout: .now() + wait)
        }
    }

    /// Writes all of `bytes` to `descriptor`; returns why it could not, if it could not.
    ///
    /// Written with `write(2)` rather than `FileHandle`, whose errors are Foundation error dumps
    /// and which cannot tell a closed pipe from any other failure. SIGPIPE must be ignored (busmon
    /// does), so that a closed pipe shows up here as `EPIPE`.
    private static func write(_ bytes: [UInt8], to descriptor: Int32) -> Outcome? {
        switch bytes.withUnsafeBytes({ System.writeAll(descriptor, $0) }) {
        case nil: return nil
        case EPIPE: return .outputClosed
        case let code?: return .outputFailed(code == 0 ? "nothing written" : String(cString: strerror(code)))
        }
    }

    /// What the run has seen, for summaries.
    private struct Totals {
        var events = 0
        var lifecycle = 0
        var dropped = 0
        var perType: [String: Int] = [:]
        var published: Int?
        var leakSuspects: Int?
        var status: String?
        /// The newest snapshot not written yet; snapshots go out once per summary, since a
        /// source may deliver several a second and each can list many observers.
        var unwrittenSnapshot: BusSnapshot?
        /// The fleet's members as the source last sent them, for a source that watches several
        /// processes; `nil` for one app.
        var fleet: [FleetMember]?
        /// Each member's snapshot as last written, so that a summary writes only new ones.
        var writtenMemberSnapshots: [EventOrigin: BusSnapshot] = [:]

        mutating func add(_ batch: SourceBatch, into writer: inout JSONLineWriter) {
            for event in batch.events {
                events += 1
                perType[event.typeName, default: 0] += 1
                writer.write(.event(FeedEvent(event, sequence: events)))
            }
            for change in batch.lifecycle {
                lifecycle += 1
                writer.writeLifecycle(
                    time: change.time, change: change.change, origin: change.origin)
            }
            if let fleet = batch.fleet { self.fleet = fleet }
            if batch.droppedEvents != dropped {
                dropped = batch.droppedEvents
                writer.write(FeedDrops(time: WallClock.now(), events: dropped))
            }
            if let snapshot = batch.snapshot {
                published = snapshot.totalPublished
                leakSuspects = snapshot.leakSuspects.count
                unwrittenSnapshot = snapshot
            }
            if let status = batch.status { self.status = status }
        }

        mutating func writeNewestSnapshot(into writer: inout JSONLineWriter) {
            guard let snapshot = unwrittenSnapshot else { return }
            writer.writeSnapshot(time: WallClock.now(), snapshot)
            unwrittenSnapshot = nil
        }

        /// For a fleet: each member's newest snapshot, as a `snapshot` line with its origin, when
        /// it changed since the last summary, then a `fleet` line listing the members.
        mutating func writeFleet(into writer: inout JSONLineWriter) {
            guard let fleet else { return }
            let now = WallClock.now()
            for member in fleet {
                guard let snapshot = member.snapshot, writtenMemberSnapshots[member.origin] != snapshot else {
                    continue
                }
                writer.writeSnapshot(time: now, snapshot, origin: member.origin)
                writtenMemberSnapshots[member.origin] = snapshot
            }
            // Members the source no longer lists need no memory of what was written for them.
            if writtenMemberSnapshots.count > fleet.count {
                let listed = Set(fleet.map(\.origin))
                writtenMemberSnapshots = writtenMemberSnapshots.filter { listed.contains($0.key) }
            }
            writer.beginRecord("fleet")
            writer.field("time", now)
            writer.beginArray("members")
            for member in fleet {
                writer.beginObject(nil)
                writer.field(origin: member.origin)
                writer.field("presence", member.presence.rawValue)
                writer.field("lastSeen", member.lastSeen)
                writer.field("events", member.eventsReceived)
                writer.field("bridgeState", member.bridgeState)
                writer.field("bridgeDropped", member.bridgeDropped)
                writer.endObject()
            }
            writer.endArray()
            writer.endRecord()
        }

        func writeSummary(elapsed: Double, into writer: inout JSONLineWriter) {
            writer.beginRecord("summary")
            writer.field("time", WallClock.now())
            writer.field("elapsed", (elapsed * 1000).rounded() / 1000)
            writer.field("status", status)
            writer.field("events", events)
            writer.field("lifecycle", lifecycle)
            writer.field("dropped", dropped)
            if let published {
                writer.field("published", published)
            } else {
                writer.rawField("published", "null")
            }
            writer.field("leakSuspects", leakSuspects)
            writer.beginObject("types")
            for (name, count) in perType.sorted(by: { $0.key < $1.key }) {
                writer.field(named: name, count)
            }
            writer.endObject()
            writer.endRecord()
        }
    }
}
