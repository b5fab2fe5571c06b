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
/// Flow events bind to slices: a flow start binds to the slice open on its track at its time,
/// and an end, without `"bp":"e"`, to the next slice that begins on its track. Each arrow's ends
/// are placed a nanosecond before the slice they are meant for, which the trace's nanosecond
/// time stamps (microseconds with three decimals) allow.
///
/// Events carry their thread and the time of their `publish` only while the app reports handler
/// calls (``DashboardSource/requestHandlerCalls()``); an event without them (a recording made
/// without a trace) is an instant on its app's `publishes` track, at the time it was captured.
///
/// Memory is bounded: what waits for a record still to come (a delivery's calls before its event,
/// an event before its queued calls) is kept for the newest ``pendingLimit`` events of each kind
/// and forgotten beyond.
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
        func encloses(_ place: FlowEnd) -> Bool {
            place.thread == thread && start <= place.time && place.time < end
        }
    }

    /// Where arrows to an event's queued calls start: a thread and a time within the delivery.
    private struct FlowSource {
        var thread: UInt64
        var time: Int
    }

    /// A queued call whose event has not arrived yet: where its arrow ends.
    private struct FlowEnd {
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
    /// The trace's zero, in nanoseconds since 1970: the first record's time.
    private var zero: Int?
    /// The trace process id of each app, by origin (`nil` for the one app of a single source).
    private var processes: [FeedOrigin?: Int] = [:]
    private var namedThreads: Set<ThreadKey> = []
    private var inlineCalls: [EventKey: InlineCalls] = [:]
    private var flowSources: [EventKey: FlowSource] = [:]
    private var flowSourceOrder: [EventKey] = []
    private var earlyFlowEnds: [EventKey: [FlowEnd]] = [:]
    /// Handler calls written lately, by event: where an event their handler published can find
    /// the slice its arrow starts from.
    private var recentCalls: [EventKey: [InlineCalls]] = [:]
    private var recentCallOrder: [EventKey] = []
    /// Events published by a handler whose call has not arrived yet (it ends after the publish):
    /// the place of the arrow's ends, by the cause's event.
    private var pendingCauses: [EventKey: [FlowEnd]] = [:]
    private var nextFlowID = 1
    private var counts: [Int: Counts] = [:]
    /// The name of the app of a source that watches one.
    private let singleApp: @Sendable () -> AppName

    /// Events, calls and other trace entries written so far.
    private(set) var entriesWritten = 0
    /// Handler calls lost on the way, as the source last counted them.
    private(set) var droppedCalls = 0

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

    /// The last bytes of the trace: a note of the calls lost, if any, and the array's end.
    mutating func finish() -> [UInt8] {
        if droppedCalls > 0, let process = processes.values.min() {
            begin("i", name: "\(droppedCalls) handler calls lost on the way", category: "monitor")
            writer.field("s", "g")
            field(process: process, thread: nil, time: zero ?? 0)
            end()
        }
        writer.appendRaw("]\n")
        return take()
    }

    /// Adds what `batch` holds.
    mutating func add(_ batch: SourceBatch) {
        droppedCalls = max(droppedCalls, batch.droppedCalls)
        for record in batch.records {
            switch record {
            case .call(let call): add(call)
            case .event(let event): add(event)
            case .lifecycle(let change): add(change)
            case .snapshot(let snapshot): add(snapshot)
            case .hello, .dropped, .refused: break
            }
        }
    }

    // MARK: - Records

    private mutating func add(_ call: FeedHandlerCall) {
        let process = self.process(for: call.origin, at: call.startNanoseconds)
        let thread = call.thread.id
        nameThread(call.thread, in: process)
        let start = call.startNanoseconds
        let duration = max(1, call.durationNanoseconds)
        let handler = "\(call.observerTypeName ?? "closure") \(call.eventTypeName)"
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
                        writer.field("handler", handler)
                        writer.field("event", Int(clamping: call.eventID))
                        writer.field("waited_us", Double(waited) / 1000)
                        writer.endObject()
                    }
                    end()
                }
            }
            let flowEnd = FlowEnd(thread: thread, time: start - 1)
            if let source = flowSources[key] {
                arrow(in: process, from: source, to: flowEnd)
            } else if call.eventID != 0 {
                if earlyFlowEnds.count >= Self.pendingLimit { earlyFlowEnds.removeAll() }
                earlyFlowEnds[key, default: []].append(flowEnd)
            }
        } else if call.eventID != 0 {
            var calls = inlineCalls[key] ?? InlineCalls(thread: thread, start: start, end: start + duration)
            calls.start = min(calls.start, start)
            calls.end = max(calls.end, start + duration)
            if calls.thread == thread && calls.starts.count < Self.arrowsPerDelivery {
                calls.starts.append(start)
            }
            if inlineCalls.count >= Self.pendingLimit && inlineCalls[key] == nil { inlineCalls.removeAll() }
            inlineCalls[key] = calls
        }
        begin("X", name: handler, category: "handler")
        field(process: process, thread: thread, time: start)
        writer.key("dur")
        appendMicroseconds(duration)
        writer.beginObject("args")
        writer.field("event", Int(clamping: call.eventID))
        writer.field("type", call.eventTypeName)
        if let observer = call.observerTypeName { writer.field("observer", observer) }
        if let id = call.observerID { writer.field("observer_id", Int(clamping: id)) }
        if let waited = call.waitedNanoseconds { writer.field("waited_us", Double(waited) / 1000) }
        writer.endObject()
        end()
        guard call.eventID != 0 else { return }
        let extent = InlineCalls(thread: thread, start: start, end: start + duration)
        if var waiting = pendingCauses[key] {
            waiting.removeAll { place in
                guard extent.encloses(place) else { return false }
                arrow(in: process, from: FlowSource(thread: place.thread, time: place.time), to: place)
                return true
            }
            pendingCauses[key] = waiting.isEmpty ? nil : waiting
        }
        recentCalls[key, default: []].append(extent)
        recentCallOrder.append(key)
        if recentCallOrder.count > Self.pendingLimit {
            let forgotten = recentCallOrder.prefix(recentCallOrder.count / 2)
            for old in forgotten { recentCalls[old] = nil }
            recentCallOrder.removeFirst(forgotten.count)
        }
    }

    private mutating func add(_ event: FeedEvent) {
        let trace = event.trace
        let published = trace.publishedAtNanoseconds ?? Self.nanoseconds(event.time)
        let process = self.process(for: event.origin, at: published)
        let key = EventKey(process: process, eventID: trace.eventID)
        let thread: UInt64
        if let traced = trace.thread {
            thread = traced.id
            nameThread(traced, in: process)
        } else {
            thread = Self.unknownThread
            nameUnknownThread(in: process)
        }
        let known = trace.thread != nil && trace.publishedAtNanoseconds != nil
        // The handler that published it, to its `publish`: the arrow starts in the handler's
        // slice, open just before, and ends at the next slice to begin, the instant below. Only
        // once that handler's call is known to be in the trace (it usually ends, and arrives,
        // after the publish).
        if known, let cause = trace.causeID, cause != 0 {
            let place = FlowEnd(thread: thread, time: published - 1)
            let causeKey = EventKey(process: process, eventID: cause)
            if recentCalls[causeKey]?.contains(where: { $0.encloses(place) }) == true {
                arrow(in: process, from: FlowSource(thread: thread, time: place.time), to: place)
            } else {
                if pendingCauses.count >= Self.pendingLimit { pendingCauses.removeAll() }
                pendingCauses[causeKey, default: []].append(place)
            }
        }
        begin("i", name: "publish \(event.typeName)", category: "publish")
        writer.field("s", "t")
        field(process: process, thread: thread, time: published)
        writer.beginObject("args")
        if trace.eventID != 0 { writer.field("event", Int(clamping: trace.eventID)) }
        if let cause = trace.causeID { writer.field("cause", Int(clamping: cause)) }
        if let site = trace.site { writer.field("site", site.description) }
        writer.field("receivers", event.receivers)
        writer.endObject()
        end()
        guard known, trace.eventID != 0 else { return }

        // The calls made inside the publish, in a slice of their own. Without them the slice
        // lasts two nanoseconds after the publish, for arrows to start from: it then fits in
        // whatever slice the publish was made in (a publish takes longer than that to return).
        // A publish made in a handler of the same bus is delivered after that handler returns,
        // so its slice starts with its calls, not at the publish.
        let slice: (start: Int, end: Int)
        var inlineStarts: [Int] = []
        if let calls = inlineCalls.removeValue(forKey: key), calls.thread == thread {
            let start = trace.causeID == nil ? min(published, calls.start - 2) : calls.start - 2
            slice = (start, calls.end + 2)
            inlineStarts = calls.starts
        } else {
            // Just after the instant, so that an arrow to the publish ends at the instant.
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
        let source = FlowSource(thread: thread, time: slice.start + 1)
        // To the calls made in the publish, nested in the slice: each arrow ends just before its
        // call begins.
        for start in inlineStarts {
            arrow(in: process, from: source, to: FlowEnd(thread: thread, time: start - 1))
        }
        for flowEnd in earlyFlowEnds.removeValue(forKey: key) ?? [] {
            arrow(in: process, from: source, to: flowEnd)
        }
        flowSources[key] = source
        flowSourceOrder.append(key)
        if flowSourceOrder.count > Self.pendingLimit {
            let forgotten = flowSourceOrder.prefix(flowSourceOrder.count / 2)
            for old in forgotten { flowSources[old] = nil }
            flowSourceOrder.removeFirst(forgotten.count)
        }
    }

    private mutating func add(_ record: FeedLifecycle) {
        let change = record.change
        let time = Self.nanoseconds(record.time)
        let process = self.process(for: record.origin, at: time)
        let subject = change.observerTypeName ?? change.eventTypeName
        begin("i", name: "\(change.kind.rawValue) \(subject)", category: "lifecycle")
        writer.field("s", "p")
        field(process: process, thread: nil, time: time)
        writer.beginObject("args")
        writer.field("change", change.description)
        writer.endObject()
        end()
    }

    private mutating func add(_ record: FeedSnapshot) {
        let time = Self.nanoseconds(record.time)
        let process = self.process(for: record.origin, at: time)
        let types = record.snapshot.eventTypes
        guard !types.isEmpty else { return }
        begin("C", name: "live subscribers", category: "counters")
        field(process: process, thread: nil, time: time)
        writer.beginObject("args")
        for type in types { writer.field(named: type.typeName, type.liveSubscribers) }
        writer.endObject()
        end()
        let published = Dictionary(types.map { ($0.typeName, $0.published) }, uniquingKeysWith: max)
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
            let count = max(0, type.published - (previous.published[type.typeName] ?? 0))
            writer.field(named: type.typeName, (Double(count) / seconds * 10).rounded() / 10)
        }
        writer.endObject()
        end()
    }

    // MARK: - Processes and threads

    /// The trace process id of the app `origin` names (or the single app), announcing it with
    /// its name the first time.
    private mutating func process(for origin: FeedOrigin?, at time: Int) -> Int {
        if zero == nil { zero = time - 1_000 }
        if let known = processes[origin] { return known }
        let app: AppName
        if let origin {
            app = AppName(name: "\(origin.app) on \(origin.host) (pid \(origin.pid))", pid: origin.pid)
        } else {
            let single = singleApp()
            app = AppName(name: "\(single.name) (pid \(single.pid))", pid: single.pid)
        }
        // Two apps of a fleet may have the same pid on different hosts.
        var id = max(1, app.pid)
        while processes.values.contains(id) { id += 1_000_000 }
        processes[origin] = id
        metadata("process_name", process: id, thread: nil, name: app.name)
        metadata("process_sort_index", process: id, thread: nil, sortIndex: processes.count)
        return id
    }

    private mutating func nameThread(_ thread: TraceThread, in process: Int) {
        guard namedThreads.insert(ThreadKey(process: process, thread: thread.id)).inserted else { return }
        metadata(
            "thread_name", process: process, thread: thread.id,
            name: thread.isMain ? "main thread" : "thread \(thread.id)")
        if thread.isMain { metadata("thread_sort_index", process: process, thread: thread.id, sortIndex: -1) }
    }

    private mutating func nameUnknownThread(in process: Int) {
        guard namedThreads.insert(ThreadKey(process: process, thread: Self.unknownThread)).inserted else {
            return
        }
        metadata(
            "thread_name", process: process, thread: Self.unknownThread,
            name: "publishes (thread not recorded)")
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
        if let name { writer.field("name", name) }
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
    private mutating func arrow(in process: Int, from source: FlowSource, to target: FlowEnd) {
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
        writer.field("name", name)
        writer.field("cat", String(describing: category))
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
        appendMicroseconds(time - (zero ?? time))
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
