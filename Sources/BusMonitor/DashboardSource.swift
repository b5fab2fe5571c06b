package import BusWire
internal import EventBus

/// What a source of bus activity has gathered since the monitor last asked.
package struct SourceBatch: Sendable {
    /// What the bus did since the last batch, in the order the source received it: `event`,
    /// `lifecycle` and `snapshot` records of the wire format, each naming its app (``FeedOrigin``)
    /// when the source watches several. Every source hands the same records, so whatever reads
    /// them (the dashboard, a recording, headless output, a graph) sees every field the wire
    /// carries, however the app is connected. A source that watches one app at a time (an
    /// attached tap, a replay of its recording) also hands over a `hello` where a process came
    /// and a `detached` note where it went, among the records, for a recording to keep in
    /// place. Other kinds are not part of a batch.
    package var records: [FeedRecord]
    /// Events the source had to drop so far because the monitor fell behind (a running total).
    package var droppedEvents: Int
    /// Handler calls lost so far on the way from the app, while they are traced (a running
    /// total): the app's buffer or the source's was full.
    package var droppedCalls = 0
    /// Lifecycle changes lost so far on the way from the app (a running total): the app's tap
    /// or the source's buffer was full. Rarer than dropped events, and worse: a subscribe, a
    /// reclaim or a leak report that never reaches the log.
    package var droppedLifecycle = 0
    /// Events, lifecycle changes and handler calls a fleet source dropped so far because they came from apps past the
    /// most it lists at once (``FleetState/maximumMembers``), a running total kept apart from
    /// the counts above: nobody was too slow, the fleet was too large.
    package var droppedFromAppsPastTheLimit = 0
    /// When the drop counts above changed, in the records' time, for a batch that a replay's
    /// `dropped` line ended, so that a recording or headless output of the replay writes that
    /// line where and when it was; `nil` otherwise (a live source's counts are as of now).
    package var droppedAt: Double?
    /// A short state to show in the header, such as "attached", "detached", "replay 00:03.0 / 00:10.0 [###-------]".
    package var status: String?
    /// ``status`` in fewer words, for a header short of room (a replay's `replay 00:03.0
    /// paused`, without its length and bar); `nil` when the status is brief already.
    package var briefStatus: String?
    /// What stopped working on the monitor's own side, in every batch while it lasts, such as
    /// `recording to session.jsonl stopped: No space left on device`: a file busmon writes that
    /// will not be whole. The batch that first carries one also has it as a warning notice.
    package var problems: [SourceProblem] = []
    /// What happened to the source itself since the last batch, oldest first, for the log: an
    /// attach, a detach, a new process behind the socket, a recording's cut-off last line.
    package var notices: [SourceNotice]
    /// Whether the counters start over with this batch: the source now watches a new process
    /// (or a replay started), so totals from before are a baseline, not a rate.
    package var countersRestarted: Bool
    /// The processes of a fleet as they are now, for a source that watches several (NATS, apps
    /// that dialled in); `nil` for a source that watches one app. Sent whole whenever anything
    /// in it changed.
    package var fleet: [FleetMember]?
    /// Whether what the dashboard shows is to be forgotten before this batch: a replay's cursor
    /// moved back or jumped, and the records from a minute before the new place follow.
    package var replacesState = false
    /// What the source's clock reads now, when the source knows it better than its records'
    /// time stamps do: a replay's cursor, in the recording's time, which stands still while the
    /// replay is paused. `nil` for a live source, whose clock is the records'.
    package var sourceClock: Double?

    /// Creates a batch.
    package init(
        records: [FeedRecord] = [], droppedEvents: Int = 0, status: String? = nil,
        notices: [SourceNotice] = [], countersRestarted: Bool = false, fleet: [FleetMember]? = nil
    ) {
        self.records = records
        self.fleet = fleet
        self.droppedEvents = droppedEvents
        self.status = status
        self.notices = notices
        self.countersRestarted = countersRestarted
    }

    /// The events among ``records``, in order.
    package var events: [FeedEvent] { records.events }

    /// The lifecycle changes among ``records``, in order.
    package var lifecycle: [FeedLifecycle] { records.lifecycleChanges }

    /// The newest snapshot among ``records``.
    package var newestSnapshot: FeedSnapshot? { records.newestSnapshot }

    /// Whether the batch holds any record.
    package var hasRecords: Bool { !records.isEmpty }
    /// The earliest time stamped on the records, or `nil` when none has one.
    var earliestTime: Double? { records.lazy.compactMap(\.time).filter(\.isFinite).min() }
}

/// Something that stopped working on the monitor's own side: a file it writes that will not be
/// whole.
package struct SourceProblem: Sendable, Hashable {
    /// A few words for a narrow header, such as `recording stopped`.
    package var brief: String
    /// The whole of it, such as `recording to session.jsonl stopped: No space left on device`.
    package var text: String

    /// Creates a problem.
    package init(brief: String, text: String) {
        self.brief = brief
        self.text = text
    }
}

/// Something that happened to a source itself rather than on the bus, such as
/// "detached from simapp (pid 12943)".
package struct SourceNotice: Sendable, Hashable {
    /// Seconds since 1970 when it happened.
    package var time: Double
    /// One line for the log.
    package var text: String
    /// Whether it is a problem the person should see (shown as a warning), not just news.
    package var isWarning: Bool

    /// Creates a notice.
    package init(time: Double, text: String, isWarning: Bool = false) {
        self.time = time
        self.text = text
        self.isWarning = isWarning
    }
}

/// A request from the person at the monitor to the thing being watched, by name.
///
/// The monitor knows only the two every source may take, ``increaseRate`` and
/// ``decreaseRate``; a source defines its own, offers them with keys in
/// ``DashboardSource/supportedCommands``, and answers them in ``DashboardSource/perform(_:)``:
///
/// ```swift
/// extension SourceCommand {
///     static let destroyScreens = SourceCommand("destroy-screens")
/// }
/// ```
package struct SourceCommand: Sendable, Hashable, CustomStringConvertible {
    /// The command's name, such as `destroy-screens`.
    package let name: String
    /// What the person typed for a command that asks for it (see
    /// ``SourceCommandDescription/Keys/asks``), such as `01:12` for ``goTo``; `nil` otherwise.
    package let value: String?

    /// A command called `name`, with the `value` typed for it, if any.
    package init(_ name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// The same command with `value`.
    package func with(value: String) -> SourceCommand {
        SourceCommand(name, value: value)
    }

    /// The name, and the value typed for it.
    package var description: String { value.map { "\(name) \($0)" } ?? name }

    /// Faster: publish faster (a simulated app), or play faster (a replay).
    package static let increaseRate = SourceCommand("increase-rate")
    /// Slower: publish slower (a simulated app), or play slower (a replay).
    package static let decreaseRate = SourceCommand("decrease-rate")
    /// Pause a replay where it is, or play on from there.
    package static let togglePlayback = SourceCommand("toggle-playback")
    /// Move a replay's cursor past the next event, and pause.
    package static let stepForward = SourceCommand("step-forward")
    /// Move a replay's cursor back before the last event shown, and pause.
    package static let stepBack = SourceCommand("step-back")
    /// Move a replay's cursor ten seconds on.
    package static let jumpForward = SourceCommand("jump-forward")
    /// Move a replay's cursor ten seconds back.
    package static let jumpBack = SourceCommand("jump-back")
    /// Move a replay's cursor to the time typed as its value: `mm:ss`, `h:mm:ss` or seconds.
    package static let goTo = SourceCommand("go-to")
    /// Move a replay's cursor to the next log line the dashboard's filter shows (see
    /// ``SearchableSource``).
    package static let findNext = SourceCommand("find-next")
    /// Move a replay's cursor back to the previous log line the dashboard's filter shows.
    package static let findPrevious = SourceCommand("find-previous")
}

/// Where a monitor's data comes from: an in-process simulation, a tap socket, a recording.
///
/// The monitor's UI thread calls ``drain()`` once a frame; sources gather data on their own
/// threads in bounded buffers and hand it over there.
///
/// A source says which commands it takes in ``supportedCommands``; the monitor offers those
/// keys, in its key bar and help, and no others.
package protocol DashboardSource: AnyObject, Sendable {
    /// What is being watched, for the header, such as "simulated app (seed 7)".
    var title: String { get }
    /// The commands this source takes now, with their keys and how the monitor names them.
    /// The monitor sends ``perform(_:)`` only these. A source that takes none need not
    /// implement it: the default is empty.
    var supportedCommands: [SourceCommandDescription] { get }
    /// Whether the dashboard drains this source at a trickle's pace (``ReadPacing``) rather
    /// than at every frame: a source whose records arrive as a network client delivers them,
    /// with no reader of its own that pauses between reads. The default is `false`.
    var wantsPacedDrains: Bool { get }
    /// Everything gathered since the previous call.
    func drain() -> SourceBatch
    /// What ``drain()`` gives, as batches to apply in order: a replay whose cursor moved hands
    /// the records up to it one batch per second of recording. The default is ``drain()``.
    func drainBatches() -> [SourceBatch]
    /// Everything gathered since the previous call, once whatever feeds the source has stopped:
    /// with the newest counters, so that a recording ends with exact totals. The default is
    /// ``drain()``.
    func drainLast() -> SourceBatch
    /// Asks the app (or apps) for every handler call from now on, which a trace needs: each
    /// costs the app two clock readings and a record, so a source asks only when told to. The
    /// default does nothing: a replay has the calls that were recorded, if any.
    func requestHandlerCalls()
    /// Carries out a command, or ignores it when the source cannot (a replay cannot cull).
    ///
    /// - Returns: A short message to show, such as "rate 2000/s", or `nil`.
    func perform(_ command: SourceCommand) -> String?
}

/// A source whose records can be searched for a line, as a replay's can: the dashboard sends
/// ``SourceCommand/findNext`` and ``SourceCommand/findPrevious`` here, with its filter.
package protocol SearchableSource: DashboardSource {
    /// Moves to the next (or previous) log line that `matching` accepts.
    ///
    /// - Returns: A short message to show, such as `found at 01:12.4` or `no later line matches`.
    func find(forward: Bool, matching: @escaping @Sendable (FeedRecord) -> Bool) -> String?
}

extension DashboardSource {
    /// No commands.
    package var supportedCommands: [SourceCommandDescription] { [] }

    /// Drained at every frame: the source's records come at its own pace, or as time passes.
    package var wantsPacedDrains: Bool { false }

    /// What ``drain()`` gives: the source has nothing more to add at the end.
    package func drainLast() -> SourceBatch { drain() }

    /// One batch: what ``drain()`` gives.
    package func drainBatches() -> [SourceBatch] { [drain()] }

    /// Nothing: the source has no app to ask.
    package func requestHandlerCalls() {}
}
