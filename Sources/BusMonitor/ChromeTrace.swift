internal import BusWire
internal import EventBus

/// Turns the records a monitor receives into the Chrome Trace Event format (JSON), which
/// Perfetto's UI and chrome://tracing open: one process per app, one track per thread.
///
/// What each record becomes:
/// - a handler call (`call`) is a complete slice (`"ph":"X"`) on its thread's track, named by
///   its observer's class and the event's type; a delivery that waited on a queue or an actor
///   also gets a `waited to start` slice on an async track, from the publish to the call;
/// - an event is an instant (`"ph":"i"`, scope thread) named `publish <Type>` on the thread that
///   published it, at the moment `publish` was called; the handler calls it made inside the
///   `publish` nest in a `deliver <Type>` slice around them, on the same thread;
/// - flow arrows (`"ph":"s"`/`"f"`) go from the delivery to each of its handler calls (those
///   made inside the `publish` also nest in its slice; those that ran on a queue or an actor are
///   elsewhere), and from the handler that published an event to its `publish` instant (the
///   cause chain);
/// - a lifecycle change is a process-scoped instant (`"s":"p"`) such as `reclaimed
///   HomeViewController`;
/// - snapshots make counter tracks (`"ph":"C"`): events per second and live subscribers, per
///   type.
///
/// Flow events bind to slices as Perfetto's importer binds them: a flow start to the top of its
/// thread's slice stack (where a finished slice stays until the next one begins), an end
/// without `"bp":"e"` to the next slice that begins on its thread. So an arrow starts a
/// nanosecond after its slice began, and ends a nanosecond before its target begins, which the
/// trace's nanosecond time stamps (microseconds with three decimals) allow; no slice begins at
/// the time of an instant, so that no binding depends on the order of equal times.
///
/// Events wait a second of record time before they are written (``holdBack``), for the calls
/// made in their publish, which a fleet's bridge sends apart and later.
///
/// Events carry their thread and the time of their `publish` only while the app reports handler
/// calls (``DashboardSource/requestHandlerCalls()``); an event without them (a recording made
/// without a trace) is an instant on its app's `publishes` track, at the time it was captured.
///
/// Memory is bounded: what waits for a record still to come (a delivery's calls before its event,
/// an event before its queued calls, a handler's call after what it published) is kept for the
/// newest ``pendingLimit`` events of each kind, at most ``arrowsPerDelivery`` arrows each, and
/// forgotten beyond; apps and threads are capped, and what is left out is counted.
struct ChromeTrace: Sendable {
    /// Events whose delivery slice or queued calls are remembered at most, per kind.
    static let pendingLimit = 65_536
    /// Arrows from one delivery to the calls made in its publish, at most; the calls beyond
    /// still nest in the delivery's slice.
    static let arrowsPerDelivery = 1_000
    /// The track of the events whose thread is unknown.
    static let unknownThread: UInt64 = 0x7FFF_FFFF

    /// Who an app of a trace is, for its process's name.
    struct AppName: Sendable {
        var name: String
        var pid: Int
    }

    /// An event of one app.
    private struct EventKey: Hashable {
        var process: Int
        var eventID: UInt64
    }

    /// The handler calls made inside one event's `publish` (the first start and last end), or
    /// one call's extent.
    private struct InlineCalls {
        var thread: UInt64
        var start: Int
        var end: Int
        /// Each call's start, for the arrows from the delivery to them.
        var starts: [Int] = []

        /// Whether `place` is on this thread, within the calls.
        func encloses(_ place: TrackPoint) -> Bool {
            place.thread == thread && start <= place.time && place.time < end
        }
    }

    /// A place on a thread's track where an arrow starts or ends: a thread and a time.
    private struct TrackPoint {
        var thread: UInt64
        var time: Int
    }

    private struct ThreadKey: Hashable {
        var process: Int
        var thread: UInt64
    }

    /// An app's previous snapshot, for events per second.
    private struct Counts {
        var time: Double
        var published: [String: Int]
    }

    /// The lines written so far, waiting to be taken by ``take()``.
    private var writer = JSONLineWriter(reservingCapacity: 64 << 10)
    /// The trace's zero, in nanoseconds since 1970: a minute before the first record, so that
    /// what came a little earlier (a wait before its call, an app whose clock is behind) still
    /// has a time Perfetto keeps (it drops negative ones).
    private var zero: Int?
    /// The trace process id of each app, by origin (`nil` for the one app of a single source).
    private var processes: [FeedOrigin?: Int] = [:]
    private var usedProcessIDs: Set<Int> = []
    private var namedThreads: Set<ThreadKey> = []
    private var inlineCalls = BoundedMap<EventKey, InlineCalls>(limit: ChromeTrace.pendingLimit)
    private var flowSources = BoundedMap<EventKey, TrackPoint>(limit: ChromeTrace.pendingLimit)
    private var earlyFlowEnds = BoundedMap<EventKey, [TrackPoint]>(limit: ChromeTrace.pendingLimit)
    /// Handler calls written lately, by event: where an event their handler published can find
    /// the slice its arrow starts from.
    private var recentCalls = BoundedMap<EventKey, [InlineCalls]>(limit: ChromeTrace.pendingLimit)
    /// Events published by a handler whose call has not arrived yet (it ends after the publish):
    /// the place of the arrow's end, by the cause's event.
    private var pendingCauses = BoundedMap<EventKey, [TrackPoint]>(limit: ChromeTrace.pendingLimit)
    /// Events waiting for the calls made in their publish, which a fleet's bridge sends apart
    /// and later: written once records a ``holdBack`` newer have arrived, or at the end.
    private var heldEvents: [(event: FeedEvent, process: Int)] = []
    private var heldStart = 0
    /// The newest record time seen, in nanoseconds since 1970.
    private var newest = Int.min
    private var nextFlowID = 1
    private var counts: [Int: Counts] = [:]
    /// The name of the app of a source that watches one, until a hello names it.
    private let singleApp: @Sendable () -> AppName
    /// The hellos among the records: the newest names the single app from there on.
    private var hellos = HelloSequence()
    /// The pid the single app's records were given, once one was.
    private var singleProcessPID: Int?

    /// Events, calls and other trace entries written so far.
    private(set) var entriesWritten = 0
    /// Handler calls lost on the way, as the source last counted them.
    private(set) var droppedCalls = 0
    /// Events, and lifecycle changes, lost on the way, as the source last counted them: the
    /// trace holds no publish of those, and says so.
    private(set) var droppedEvents = 0
    private(set) var droppedLifecycle = 0
    /// Times before the trace's zero, written as its zero.
    private(set) var timesMoved = 0
    /// Records of apps or threads beyond ``maximumProcesses`` or ``maximumThreads``, left out.
    private(set) var recordsLeftOut = 0

    /// How long an event waits for the calls made in its publish, in nanoseconds of record time.
    static let holdBack = 1_000_000_000
    /// Events held at most, waiting for ``holdBack``; beyond, the oldest is written at once.
    static let maximumHeldEvents = 100_000
    /// Apps a trace names at most; records of more are left out and counted.
    static let maximumProcesses = 4_096
    /// Threads a trace names at most.
    static let maximumThreads = 65_536

    /// A trace whose single app (records without an origin) is named by `singleApp`, asked when
    /// the first of its records arrives.
    init(singleApp: @escaping @Sendable () -> AppName) {
        self.singleApp = singleApp
        writer.appendRaw("[\n")
    }

    /// The bytes written since the last call.
    mutating func take() -> [UInt8] {
        defer { writer.bytes.removeAll(keepingCapacity: true) }
        return writer.bytes
    }

    /// The last bytes of the trace: the events still held, notes of what was lost or moved, if
    /// anything was, and the array's end.
    mutating func finish() -> [UInt8] {
        releaseHeldEvents(all: true)
        if let process = processes.values.min() {
            for (count, what) in [
                (droppedEvents, "events lost on the way, not in this trace"),
                (droppedLifecycle, "lifecycle changes lost on the way, not in this trace"),
                (droppedCalls, "handler calls lost on the way"),
                (timesMoved, "times before the trace's start moved to it"),
                (recordsLeftOut, "records of apps or threads beyond the trace's limits left out"),
            ] where count > 0 {
                begin("i", name: "\(count) \(what)", category: "monitor")
                writer.field("s", "g")
                // At the end, where the reader of the trace looks for what it misses.
                field(process: process, thread: nil, time: newest != Int.min ? newest : zero ?? 0)
                end()
            }
        }
        writer.appendRaw("]\n")
        return take()
    }

    /// Adds what `batch` holds.
    mutating func add(_ batch: SourceBatch) {
        droppedCalls = max(droppedCalls, batch.droppedCalls)
        droppedEvents = max(droppedEvents, batch.droppedEvents)
        droppedLifecycle = max(droppedLifecycle, batch.droppedLifecycle)
        for record in batch.records {
            if let time = record.time { newest = max(newest, Self.nanoseconds(time)) }
            switch record {
            case .hello(let hello):
                // Where the records say so, not where the batch starts: a batch (a replay played
                // fast, a reader that fell behind) may hold the end of one process and the start
                // of the next. Records before any hello were named by the source: a first hello
                // of another pid than they were given starts a new process too.
                let isFirst = hellos.current == nil
                let isNewProcess =
                    hellos.startsNewProcess(hello) || (isFirst && singleProcessPID != hello.pid)
                if isNewProcess, processes[nil] != nil { startOverForANewProcess() }
            case .call(let call): add(call)
            case .event(let event):
                guard let process = process(for: event.origin, at: Self.nanoseconds(event.time)) else {
                    continue
                }
                heldEvents.append((event, process))
            case .lifecycle(let change): add(change)
            case .snapshot(let snapshot): add(snapshot)
            case .dropped, .refused, .detached: break
            }
        }
        releaseHeldEvents(all: false)
    }

    /// The source watches a new process (an app restarted behind the same socket, as a hello
    /// says): its event numbers start again, so nothing pending may match them, and it is a
    /// process of its own.
    private mutating func startOverForANewProcess() {
        releaseHeldEvents(all: true)
        processes[nil] = nil
        inlineCalls.removeAll()
        flowSources.removeAll()
        earlyFlowEnds.removeAll()
        recentCalls.removeAll()
        pendingCauses.removeAll()
    }

    private mutating func releaseHeldEvents(all: Bool) {
        while heldStart < heldEvents.count {
            let (event, process) = heldEvents[heldStart]
            // Past ``maximumHeldEvents`` the oldest goes out at once: an event stamped far ahead
            // of the others (its time comes from the app) would otherwise hold back every later
            // one, without end.
            let isOverfull = heldEvents.count - heldStart > Self.maximumHeldEvents
            guard all || isOverfull || Self.nanoseconds(event.time) <= newest - Self.holdBack else { break }
            heldStart += 1
            add(event, in: process)
        }
        if heldStart > 1024 && heldStart * 2 > heldEvents.count {
            heldEvents.removeFirst(heldStart)
            heldStart = 0
        }
    }

    // MARK: - Records

    private mutating func add(_ call: FeedHandlerCall) {
        guard let process = self.process(for: call.origin, at: call.startNanoseconds),
            let thread = nameThread(call.thread, in: process)
        else { return }
        let start = call.startNanoseconds
        let duration = max(1, call.durationNanoseconds)
        let handler = "\(call.observerTypeName ?? "token") \(call.eventTypeName)"
        let key = EventKey(process: process, eventID: call.eventID)
        if let waited = call.waitedNanoseconds {
            // Waited on a queue or an actor: the gap before the slice, and an arrow from the
            // delivery, or from where it will be once its event arrives.
            if waited > 0 {
                let id = takeFlowID()
                for (phase, time) in [("b" as StaticString, start - waited), ("e", start)] {
                    begin(phase, name: "waited to start", category: "wait")
                    writer.field("id", id)
                    field(process: process, thread: thread, time: time)
                    if time != start {
                        writer.beginObject("args")
                        text("handler", handler)
                        writer.field("event", Int(clamping: call.eventID))
                        writer.field("waited_us", Double(waited) / 1000)
                        writer.endObject()
                    }
                    end()
                }
            }
            let flowEnd = TrackPoint(thread: thread, time: start - 1)
            if let source = flowSources[key] {
                arrow(in: process, from: source, to: flowEnd)
            } else if call.eventID != 0 {
                earlyFlowEnds.append(flowEnd, to: key, atMost: Self.arrowsPerDelivery)
            }
        } else if call.eventID != 0 {
            var calls = inlineCalls[key] ?? InlineCalls(thread: thread, start: start, end: start + duration)
            calls.start = min(calls.start, start)
            calls.end = max(calls.end, start + duration)
            if calls.thread == thread && calls.starts.count < Self.arrowsPerDelivery {
                calls.starts.append(start)
            }
            inlineCalls[key] = calls
        }
        begin("X", name: handler, category: "handler")
        field(process: process, thread: thread, time: start)
        writer.key("dur")
        appendMicroseconds(duration)
        writer.beginObject("args")
        writer.field("event", Int(clamping: call.eventID))
        text("type", call.eventTypeName)
        if let observer = call.observerTypeName { text("observer", observer) }
        if let id = call.observerID { writer.field("observer_id", Int(clamping: id)) }
        if let waited = call.waitedNanoseconds { writer.field("waited_us", Double(waited) / 1000) }
        writer.endObject()
        end()
        guard call.eventID != 0 else { return }
        // Events this handler published, waiting for it: their arrows start just after it
        // began, where it is the innermost slice of its thread (Perfetto binds a flow's start
        // to the top of the thread's slice stack, where a finished slice stays until the next
        // one begins).
        let extent = InlineCalls(thread: thread, start: start, end: start + duration)
        if var waiting = pendingCauses[key] {
            waiting.removeAll { place in
                guard extent.encloses(place) else { return false }
                arrow(in: process, from: TrackPoint(thread: thread, time: start + 1), to: place)
                return true
            }
            pendingCauses[key] = waiting.isEmpty ? nil : waiting
        }
        recentCalls.append(extent, to: key, atMost: Self.arrowsPerDelivery)
    }

    private mutating func add(_ event: FeedEvent, in process: Int) {
        let trace = event.trace
        let published = trace.publishedAtNanoseconds ?? Self.nanoseconds(event.time)
        let key = EventKey(process: process, eventID: trace.eventID)
        let known = trace.thread != nil && trace.publishedAtNanoseconds != nil
        guard let thread = known ? nameThread(trace.thread!, in: process) : nameUnknownThread(in: process)
        else {
            return
        }
        // The handler that published it, to its `publish`: the arrow starts just after the
        // handler began, and ends at the next slice to begin on this thread after the moment
        // before the publish, the instant below. Only once that handler's call is known to be
        // in the trace (in a tap's stream it ends, and arrives, after the publish).
        if known, let cause = trace.causeID, cause != 0 {
            let place = TrackPoint(thread: thread, time: published - 1)
            let causeKey = EventKey(process: process, eventID: cause)
            if let handler = recentCalls[causeKey]?.last(where: { $0.encloses(place) }) {
                arrow(in: process, from: TrackPoint(thread: thread, time: handler.start + 1), to: place)
            } else {
                pendingCauses.append(place, to: causeKey, atMost: Self.arrowsPerDelivery)
            }
        }
        begin("i", name: "publish \(event.typeName)", category: "publish")
        writer.field("s", "t")
        field(process: process, thread: thread, time: published)
        writer.beginObject("args")
        if trace.eventID != 0 { writer.field("event", Int(clamping: trace.eventID)) }
        if let cause = trace.causeID { writer.field("cause", Int(clamping: cause)) }
        if let site = trace.site { text("site", site.description) }
        writer.field("receivers", event.receivers)
        writer.endObject()
        end()
        guard known, trace.eventID != 0 else { return }

        // The calls made inside the publish, in a slice of their own, which begins after the
        // instant (never with it, so that nothing is ambiguous about which slice is on top).
        // Without them the slice lasts two nanoseconds, for arrows to start from: it then fits
        // in whatever slice the publish was made in (a publish takes longer than that to
        // return). A publish made in a handler of the same bus is delivered after that handler
        // returns, so its slice starts with its calls, not at the publish.
        let slice: (start: Int, end: Int)
        var inlineStarts: [Int] = []
        if let calls = inlineCalls.removeValue(forKey: key), calls.thread == thread {
            let start = trace.causeID == nil ? min(published + 1, calls.start - 2) : calls.start - 2
            slice = (start, calls.end + 2)
            inlineStarts = calls.starts
        } else {
            slice = (published + 1, published + 3)
        }
        begin("X", name: "deliver \(event.typeName)", category: "delivery")
        field(process: process, thread: thread, time: slice.start)
        writer.key("dur")
        appendMicroseconds(slice.end - slice.start)
        writer.beginObject("args")
        writer.field("event", Int(clamping: trace.eventID))
        writer.endObject()
        end()
        // Just after it began, the delivery is the innermost slice of its thread.
        let source = TrackPoint(thread: thread, time: slice.start + 1)
        // To the calls made in the publish, nested in the slice: each arrow ends just before its
        // call begins.
        for start in inlineStarts {
            arrow(in: process, from: source, to: TrackPoint(thread: thread, time: start - 1))
        }
        for flowEnd in earlyFlowEnds.removeValue(forKey: key) ?? [] {
            arrow(in: process, from: source, to: flowEnd)
        }
        flowSources[key] = source
    }

    private mutating func add(_ record: FeedLifecycle) {
        let change = record.change
        let time = Self.nanoseconds(record.time)
        guard let process = self.process(for: record.origin, at: time) else { return }
        let subject = change.observerTypeName ?? change.eventTypeName
        begin("i", name: "\(change.kind.words) \(subject)", category: "lifecycle")
        writer.field("s", "p")
        field(process: process, thread: nil, time: time)
        writer.beginObject("args")
        text("change", change.description)
        writer.endObject()
        end()
    }

    private mutating func add(_ record: FeedSnapshot) {
        let time = Self.nanoseconds(record.time)
        guard let process = self.process(for: record.origin, at: time) else { return }
        let types = record.snapshot.eventTypes
        guard !types.isEmpty else { return }
        begin("C", name: "live subscribers", category: "counters")
        field(process: process, thread: nil, time: time)
        writer.beginObject("args")
        for type in types { writer.field(named: UntrustedText.escaped(type.typeName), type.liveSubscribers) }
        writer.endObject()
        end()
        // A protocol's row (`any AuthEvent`) publishes nothing of its own: its rate is of the
        // deliveries to its subscribers, as the dashboard shows it.
        let published = Dictionary(
            types.map { ($0.typeName, $0.typeName.hasPrefix("any ") ? $0.delivered : $0.published) },
            uniquingKeysWith: max)
        // A rate over at least a second, however often snapshots come.
        guard let previous = counts[process], record.time - previous.time >= 1 else {
            if counts[process] == nil || record.time < counts[process]!.time {
                counts[process] = Counts(time: record.time, published: published)
            }
            return
        }
        counts[process] = Counts(time: record.time, published: published)
        let seconds = record.time - previous.time
        begin("C", name: "events per second", category: "counters")
        field(process: process, thread: nil, time: time)
        writer.beginObject("args")
        for type in types {
            let count = max(0, (published[type.typeName] ?? 0) - (previous.published[type.typeName] ?? 0))
            writer.field(
                named: UntrustedText.escaped(type.typeName), (Double(count) / seconds * 10).rounded() / 10)
        }
        writer.endObject()
        end()
    }

    // MARK: - Processes and threads

    /// The trace process id of the app `origin` names (or the single app), announcing it with
    /// its name the first time; `nil`, and the record counted as left out, beyond
    /// ``maximumProcesses``.
    private mutating func process(for origin: FeedOrigin?, at time: Int) -> Int? {
        if zero == nil { zero = time - 60_000_000_000 }
        if let known = processes[origin] { return known }
        guard processes.count < Self.maximumProcesses else {
            recordsLeftOut += 1
            return nil
        }
        let app: AppName
        if let origin {
            app = AppName(name: "\(origin.app) on \(origin.host) (pid \(origin.pid))", pid: origin.pid)
        } else {
            let single = hellos.current.map { AppName(name: $0.process, pid: $0.pid) } ?? singleApp()
            app = AppName(name: "\(single.name) (pid \(single.pid))", pid: single.pid)
            singleProcessPID = single.pid
        }
        // Two apps of a fleet may have the same pid on different hosts, and an app restarted
        // behind a socket may get its old pid back. A pid is whatever the app said: one beyond
        // what a trace's pid holds (32 bits) is given a small id instead, and a step past the
        // top starts again from the bottom, one higher, so the search ends at a free id.
        let largest = Int(Int32.max)
        var id = (1...largest).contains(app.pid) ? app.pid : 1
        while usedProcessIDs.contains(id) {
            id = id <= largest - 1_000_000 ? id + 1_000_000 : id % 1_000_000 + 1
        }
        usedProcessIDs.insert(id)
        processes[origin] = id
        metadata("process_name", process: id, thread: nil, name: app.name)
        metadata("process_sort_index", process: id, thread: nil, sortIndex: processes.count)
        return id
    }

    /// The track of `thread` in `process`, named the first time; `nil`, and the record counted
    /// as left out, beyond ``maximumThreads``. A thread the app could not number goes on the
    /// track of unknown threads.
    private mutating func nameThread(_ thread: TraceThread, in process: Int) -> UInt64? {
        guard thread.id != 0 else { return nameUnknownThread(in: process) }
        let key = ThreadKey(process: process, thread: thread.id)
        guard !namedThreads.contains(key) else { return thread.id }
        guard namedThreads.count < Self.maximumThreads else {
            recordsLeftOut += 1
            return nil
        }
        namedThreads.insert(key)
        metadata(
            "thread_name", process: process, thread: thread.id,
            name: thread.isMain ? "main thread" : "thread \(thread.id)")
        if thread.isMain { metadata("thread_sort_index", process: process, thread: thread.id, sortIndex: -1) }
        return thread.id
    }

    private mutating func nameUnknownThread(in process: Int) -> UInt64? {
        let key = ThreadKey(process: process, thread: Self.unknownThread)
        if namedThreads.insert(key).inserted {
            metadata(
                "thread_name", process: process, thread: Self.unknownThread,
                name: "publishes (thread not recorded)")
        }
        return Self.unknownThread
    }

    private mutating func metadata(
        _ kind: StaticString, process: Int, thread: UInt64?, name: String? = nil, sortIndex: Int? = nil
    ) {
        writer.beginObject(nil)
        writer.field("ph", "M")
        writer.field("name", String(describing: kind))
        writer.field("pid", process)
        if let thread { writer.field("tid", Int(clamping: thread)) }
        writer.beginObject("args")
        if let name { text("name", name) }
        if let sortIndex { writer.field("sort_index", sortIndex) }
        writer.endObject()
        writer.endObject()
        writer.appendRaw("\n")
        entriesWritten += 1
    }

    // MARK: - Writing

    private mutating func takeFlowID() -> Int {
        defer { nextFlowID += 1 }
        return nextFlowID
    }

    /// An arrow from the slice open at `source` to the next slice beginning after `target`.
    private mutating func arrow(in process: Int, from source: TrackPoint, to target: TrackPoint) {
        let id = takeFlowID()
        begin("s", name: "caused", category: "flow")
        writer.field("id", id)
        field(process: process, thread: source.thread, time: source.time)
        end()
        begin("f", name: "caused", category: "flow")
        writer.field("id", id)
        field(process: process, thread: target.thread, time: target.time)
        end()
    }

    private mutating func begin(_ phase: StaticString, name: String, category: StaticString) {
        writer.beginObject(nil)
        writer.field("ph", String(describing: phase))
        text("name", name)
        writer.field("cat", String(describing: category))
    }

    /// A field of text that holds names from an app: JSON would escape its control characters
    /// in the file, but a trace is read by people through a viewer, which would show them
    /// decoded (a newline, a right-to-left override that reverses what follows). Shown as
    /// visible escapes instead (`\u{1B}`), as `--graph` writes them.
    private mutating func text(_ key: StaticString, _ value: String) {
        writer.field(key, UntrustedText.escaped(value))
    }

    private mutating func end() {
        writer.endObject()
        writer.appendRaw("\n")
        entriesWritten += 1
    }

    /// The `pid`, `tid` (when on a thread) and `ts` fields.
    private mutating func field(process: Int, thread: UInt64?, time: Int) {
        writer.field("pid", process)
        if let thread { writer.field("tid", Int(clamping: thread)) }
        writer.key("ts")
        let offset = time - (zero ?? time)
        if offset < 0 { timesMoved += 1 }
        appendMicroseconds(max(0, offset))
    }

    /// Nanoseconds as microseconds with three decimals, exactly.
    private mutating func appendMicroseconds(_ nanoseconds: Int) {
        let sign = nanoseconds < 0 ? "-" : ""
        let magnitude = nanoseconds.magnitude
        let fraction = String(magnitude % 1000)
        writer.appendRaw(
            "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)")
    }

    /// Seconds since 1970 as whole nanoseconds.
    static func nanoseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite else { return 0 }
        return Int((seconds * 1e9).rounded())
    }
}

/// A dictionary that keeps at most `limit` keys, forgetting the oldest half when it would hold
/// more: what a trace remembers while it waits for a record that may never come.
struct BoundedMap<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private var values: [Key: Value] = [:]
    private var order: [Key] = []
    let limit: Int

    init(limit: Int) {
        self.limit = max(2, limit)
    }

    subscript(key: Key) -> Value? {
        get { values[key] }
        set {
            if let newValue {
                if values.updateValue(newValue, forKey: key) == nil { remember(key) }
            } else {
                values[key] = nil
            }
        }
    }

    mutating func removeValue(forKey key: Key) -> Value? {
        values.removeValue(forKey: key)
    }

    mutating func removeAll() {
        values = [:]
        order = []
    }

    /// Appends `element` to the array under `key`, unless it holds `atMost` already.
    mutating func append<Element>(_ element: Element, to key: Key, atMost: Int) where Value == [Element] {
        if var list = values[key] {
            guard list.count < atMost else { return }
            values[key] = nil
            list.append(element)
            values[key] = list
        } else {
            values[key] = [element]
            remember(key)
        }
    }

    private mutating func remember(_ key: Key) {
        order.append(key)
        guard order.count > limit else { return }
        // Keys removed since are in the order still: forgetting them again does no harm.
        let forgotten = order.prefix(order.count / 2)
        for old in forgotten { values[old] = nil }
        order.removeFirst(forgotten.count)
    }
}

extension SubscriberLifecycleEvent.Kind {
    /// The change in words, as a trace's instants and the dashboard's details name it:
    /// `leak suspected`, not the wire's `leakSuspected`.
    package var words: String {
        switch self {
        case .subscribed: "subscribed"
        case .duplicateSubscription: "duplicate subscription"
        case .unsubscribed: "unsubscribed"
        case .cancelled: "cancelled"
        case .reclaimed: "reclaimed"
        case .leakSuspected: "leak suspected"
        case .leakCleared: "leak cleared"
        case .cascadeStopped: "cascade stopped"
        case .handlerFailed: "handler failed"
        case .slowHandler: "slow handler"
        case .slowDelivery: "slow delivery"
        }
    }
}
