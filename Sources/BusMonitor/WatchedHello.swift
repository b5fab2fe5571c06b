internal import BusWire
internal import EventBus
internal import Foundation

/// Who a source watches, as the `hello` line that a recording and headless output begin with,
/// for a source whose batches carry no hellos of their own (a simulated app, a fleet): this
/// process under the source's title. Both write the same line, so that either can be replayed.
/// An attached tap's batches, and a replay's, hold the app's hellos (and `detached` notes)
/// among their records, where they came, restarts included.
final class WatchedHello: Sendable {
    private let source: any DashboardSource
    /// The hello made up for a source that has none, fixed once made.
    private let madeUp = LockedValue<FeedHello?>(nil)
    /// The hello last written, and whether anything was.
    private let written = LockedValue<(hello: FeedHello?, anything: Bool)>((nil, false))

    /// The bus a hello names for a source that watches a fleet: its pid is the watcher's own,
    /// not an app's.
    static let fleetBusName = "fleet"

    /// Follows `source`, or the source it wraps, through any number of wrappers.
    init(of source: any DashboardSource) {
        self.source = source
    }

    /// This process under the source's title, for a source whose batches have no hellos; `nil`
    /// for an attached tap and a replay, whose batches hold the app's hellos (and the recording's)
    /// where they came.
    ///
    /// - Parameter notAfter: The earliest time among the lines the hello goes before, if any:
    ///   a hello made now would be stamped after them when they were gathered earlier (an app
    ///   that dials in sends what it kept from before), and a recording's first line would then
    ///   stand later than the lines that follow it.
    func current(busName: String?, notAfter earliest: @autoclosure () -> Double? = nil) -> FeedHello? {
        var innermost = source
        while let wrapping = innermost as? any WrappingSource {
            // A recording on the way made its hello already: output and recording say the same.
            if let recording = wrapping as? RecordingSource, recording.hello !== self {
                return recording.hello.current(busName: busName, notAfter: earliest())
            }
            innermost = wrapping.wrapped
        }
        // Their batches hand over their hellos where they came.
        if innermost is AttachSource || innermost is ReplaySource { return nil }
        return madeUp.withLock { hello in
            if let hello { return hello }
            let made = FeedHello(
                pid: Int(ProcessInfo.processInfo.processIdentifier), process: source.title,
                bus: busName ?? "unknown", time: min(WallClock.now(), earliest() ?? .infinity))
            hello = made
            return made
        }
    }

    /// Whether `batch` makes lines of a recording before anything else did: records, or a fleet
    /// with members (busmon listening with no app yet makes none).
    static func writesLines(_ batch: SourceBatch) -> Bool {
        batch.hasRecords || !(batch.fleet ?? []).isEmpty
    }

    /// Writes the hello before `batch`'s lines when it is the first or another than the last
    /// written; nothing before the first batch with lines. Returns the lines written.
    func write(before batch: SourceBatch, into writer: inout JSONLineWriter) -> Int {
        // Made up from the first batch with lines, whenever that comes, so that headless output
        // and a recording made with the dashboard say the same: a fleet's bus is the fleet
        // (as the header names it), not whichever app sent the first snapshot.
        guard Self.writesLines(batch) || written.withLock({ $0.anything }) else { return 0 }
        let busName = batch.fleet != nil ? Self.fleetBusName : batch.newestSnapshot?.snapshot.busName
        guard let hello = current(busName: busName, notAfter: batch.earliestTime) else { return 0 }
        return written.withLock { written in
            written.anything = true
            guard written.hello != hello else { return 0 }
            written.hello = hello
            writer.write(hello)
            return 1
        }
    }
}

extension FeedDetached {
    /// `detached from simapp (pid 4242)`: what a monitor says when the app goes away, live
    /// and in a replay of its recording alike.
    var notice: String { "detached from \(process) (pid \(pid))" }

    /// Whether it is the app that said `hello` that went away.
    func isDetach(from hello: FeedHello) -> Bool {
        pid == hello.pid && process == hello.process && bus == hello.bus
    }
}

extension FeedHello {
    /// `simapp (pid 4242)`, as notices name the process.
    var processName: String { "\(process) (pid \(pid))" }

    /// What a monitor says when the process it watches says this hello after `previous`: a
    /// first attach, the same bus again (its counters go on), or a new process or bus (its
    /// counters restart). The live monitor and a replay of its recording say it alike.
    func attachNotice(after previous: FeedHello?) -> (text: String, restartsCounters: Bool) {
        guard let previous else { return ("attached to \(processName)", true) }
        if previous.pid == pid, previous.bus == bus { return ("attached again to \(processName)", false) }
        let what = previous.pid == pid ? "a new bus" : "a new process"
        return ("attached to \(processName): \(what), counters restart", true)
    }
}

/// The hellos among the records of a source that watches one app, in order: which of them start
/// a new process (its counters and event numbers start over), for whatever keeps counts or
/// events per process (the headless summary, a graph, a trace).
struct HelloSequence {
    /// The newest hello taken.
    private(set) var current: FeedHello?

    /// Takes `hello`; whether it starts another process than the hello before it (a first hello
    /// starts none, and neither does one that attaches again to the same process).
    mutating func startsNewProcess(_ hello: FeedHello) -> Bool {
        defer { current = hello }
        return current.map { hello.attachNotice(after: $0).restartsCounters } ?? false
    }
}
