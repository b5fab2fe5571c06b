public import EventBus

/// One line of the tap wire format, which is also the recording format.
///
/// Every record is one JSON object on one line, `\n`-terminated, with a `kind` field that says
/// which case it is. docs/wire-format.md describes every field.
///
/// ```swift
/// let line = FeedRecord.dropped(FeedDrops(time: 1_700_000_000, events: 12)).encodeLine()
/// // {"kind":"dropped","time":1700000000.0,"events":12,"lifecycle":0}\n
/// let again = try FeedRecord.decode(line: line)
/// ```
public enum FeedRecord: Sendable, Hashable {
    /// The first line a tap sends, saying who is talking.
    case hello(FeedHello)
    /// One published event.
    case event(FeedEvent)
    /// A subscriber lifecycle change.
    case lifecycle(FeedLifecycle)
    /// The bus's counters at one moment; exact even when events were dropped.
    case snapshot(FeedSnapshot)
    /// How many records this reader lost so far because it read too slowly (a running total).
    case dropped(FeedDrops)
    /// The tap turned this reader away, and says why, before it closes the connection.
    case refused(FeedRefusal)
    /// One handler call, sent only to a monitor that asked for calls because it writes a trace.
    case call(FeedHandlerCall)
    /// The monitor lost the app it was attached to (the app exited or closed its tap). A tap
    /// never sends it; a monitor writes it into its recordings and headless output, where the
    /// connection ended, so that a replay says the detach when the live monitor did.
    case detached(FeedDetached)

    /// The version of the wire format this library writes.
    ///
    /// Version 2 added observers, leak suspects and observer instances to snapshots, and the
    /// observer's serial, leak and reclaim details to lifecycle records. Version 3 added each
    /// event's number, cause and call site, handler times and failures to snapshots, and the
    /// cascade, failure and slow-handler lifecycle records.
    public static let wireVersion = 3

    /// The versions this library reads: its own, and the earlier ones, whose records are the
    /// later ones' without the fields added since (they read as empty or absent).
    public static let readableWireVersions: ClosedRange<Int> = 1...3

    /// What a reader says about a `hello` it cannot read, such as "tap speaks wire version 3,
    /// this reads versions 1 and 2"; nil when it can.
    ///
    /// - Parameters:
    ///   - version: The hello's version.
    ///   - speaker: Who speaks it, such as "tap" or "recording".
    public static func unreadableVersionMessage(_ version: Int, speaker: String) -> String? {
        guard !readableWireVersions.contains(version) else { return nil }
        let (lowest, highest) = (readableWireVersions.lowerBound, readableWireVersions.upperBound)
        let readable =
            lowest == highest
            ? "version \(lowest)" : "versions \(lowest) \(highest == lowest + 1 ? "and" : "to") \(highest)"
        return "\(speaker) speaks wire version \(version), this reads \(readable)"
    }

    /// The longest duration the wire carries, in seconds: about 31 years. Below it every
    /// duration in microseconds is a whole number a `Double` holds exactly, so durations read
    /// and written again come out the same; writers clamp longer ones to it.
    package static let maximumDurationSeconds = 1e9

    /// The latest time the wire carries, in seconds since 1970: 2^32, early in 2106. Times are
    /// read from 0 up to it, so that a reader may count in whole nanoseconds (it is below
    /// 2^62 of them) and add a duration or subtract two times without overflow; a record from
    /// a stranger with a time beyond it is refused as malformed, not shown as a crash.
    package static let latestTime = 4_294_967_296.0

    /// ``latestTime`` in nanoseconds, the largest time stamp in nanoseconds a record carries.
    package static let latestNanoseconds = 4_294_967_296 * 1_000_000_000

    /// ``maximumDurationSeconds`` in nanoseconds, the longest a call's nanosecond fields say.
    package static let maximumDurationNanoseconds = 1_000_000_000 * 1_000_000_000

    /// The longest line, in bytes without the newline, that readers accept: 1 MiB.
    ///
    /// Writers keep lines far shorter by truncating payloads (see ``FeedPayload/maximumLength``).
    public static let maximumLineLength = 1 << 20

    /// The value of the record's `kind` field.
    public var kind: String {
        switch self {
        case .hello: return "hello"
        case .event: return "event"
        case .lifecycle: return "lifecycle"
        case .snapshot: return "snapshot"
        case .dropped: return "dropped"
        case .refused: return "refused"
        case .call: return "call"
        case .detached: return "detached"
        }
    }
}

/// Who a tap is: sent once, as the first line of every connection and recording.
public struct FeedHello: Sendable, Hashable {
    /// The wire format version the writer speaks, ``FeedRecord/wireVersion`` for this library.
    public var version: Int
    /// The process id of the app.
    public var pid: Int
    /// The app's process name, such as `simapp`.
    public var process: String
    /// The name of the bus being tapped, such as `shared`.
    public var bus: String
    /// Seconds since 1970 when the line was written.
    public var time: Double

    /// Creates a hello.
    public init(version: Int = FeedRecord.wireVersion, pid: Int, process: String, bus: String, time: Double) {
        self.version = version
        self.pid = pid
        self.process = process
        self.bus = bus
        self.time = time
    }
}

/// A monitor's note that the app it was attached to went away: the app's `hello` fields, and
/// when the connection ended.
public struct FeedDetached: Sendable, Hashable {
    /// Seconds since 1970 when the monitor saw the connection end.
    public var time: Double
    /// The process id of the app, from its hello.
    public var pid: Int
    /// The app's process name, from its hello.
    public var process: String
    /// The name of the bus that was tapped, from its hello.
    public var bus: String

    /// Creates a note of a detach.
    public init(time: Double, pid: Int, process: String, bus: String) {
        self.time = time
        self.pid = pid
        self.process = process
        self.bus = bus
    }

    /// The detach from the app that said `hello`, at `time`.
    public init(from hello: FeedHello, at time: Double) {
        self.init(time: time, pid: hello.pid, process: hello.process, bus: hello.bus)
    }

}

/// A payload as it travels: the fields of an `Encodable` event, or the description of another;
/// in the process that published it, the event itself, formatted only when something reads it.
public enum FeedPayload: Sendable, Hashable {
    /// The compact JSON text of an `Encodable` event's fields (an object, or an array), embedded
    /// in the line as JSON rather than as a string.
    case fields(json: String)
    /// The description of an event that is not `Encodable`, sent as a JSON string.
    case description(String)
    /// The event itself, as a monitor in the publishing process keeps it: storing it costs the
    /// publisher no formatting, and ``formatted`` makes the text (with the default redaction)
    /// when a record is shown or written. Never decoded: a line always holds one of the others.
    case value(any Event)

    /// Payload text longer than this many bytes is cut and sent as a description ending in `…`,
    /// so that one huge event cannot make a line that readers refuse: 64 KiB.
    public static let maximumLength = 64 << 10

    /// Payload text longer than this many bytes is cut where a monitor reads it, to a
    /// description ending in `…`: 4 KiB, more than a screen of details shows.
    ///
    /// A monitor holds thousands of events at once (its log, the batches between frames); with
    /// whole payloads, whatever an app chose to send (a megabyte each, a stranger's flood)
    /// would decide its memory. Cut when read, no event costs more than this, and recordings
    /// made by a monitor keep what it kept.
    public static let maximumReadLength = 4 << 10

    /// The text a monitor shows: the JSON of the fields, or the description.
    public var text: String {
        switch self {
        case .fields(let json): return json
        case .description(let text): return text
        case .value(let event): return PayloadFormatter.format(event)
        }
    }

    /// The payload as a line carries it: an event held as ``value(_:)`` formatted (with the
    /// default redaction, cut to ``maximumLength``); the others as they are.
    public var formatted: FeedPayload {
        guard case .value(let event) = self else { return self }
        return FeedPayload(formatted: PayloadFormatter.format(event))
    }

    /// Payloads are equal when they read the same once formatted.
    public static func == (lhs: FeedPayload, rhs: FeedPayload) -> Bool {
        switch (lhs, rhs) {
        case (.fields(let a), .fields(let b)): return a == b
        case (.description(let a), .description(let b)): return a == b
        case (.value, _), (_, .value): return lhs.formatted == rhs.formatted
        default: return false
        }
    }

    /// Hashes the formatted payload, as ``==(_:_:)`` compares it.
    public func hash(into hasher: inout Hasher) {
        switch formatted {
        case .fields(let json):
            hasher.combine(0)
            hasher.combine(json)
        case .description(let text):
            hasher.combine(1)
            hasher.combine(text)
        case .value:
            break  // `formatted` is never one
        }
    }

    /// Classifies text that ``PayloadFormatter`` made: JSON objects and arrays on one line become
    /// ``fields(json:)``, anything else a ``description(_:)``.
    ///
    /// - Parameter text: A formatted payload, such as the `payloadText` of a monitor's captured event.
    /// - Returns: The payload to send, cut to ``maximumLength`` bytes when longer.
    public init(formatted text: String) {
        if text.utf8.count > Self.maximumLength {
            self = .description(Self.truncated(text))
        } else if JSONParser.isSingleLineContainer(text) {
            self = .fields(json: text)
        } else {
            self = .description(text)
        }
    }

    /// `text` cut to fewer than `limit` bytes (``maximumLength`` unless given) at a character
    /// boundary, plus `…`.
    package static func truncated(_ text: String, limit: Int = maximumLength) -> String {
        let scalars = text.unicodeScalars
        let budget = limit - 3  // "…" takes three bytes
        var bytes = 0
        var end = scalars.startIndex
        while end < scalars.endIndex {
            let width = UTF8.width(scalars[end])
            if bytes + width > budget { break }
            bytes += width
            end = scalars.index(after: end)
        }
        return String(scalars[..<end]) + "…"
    }
}

/// One published event on the wire.
public struct FeedEvent: Sendable, Hashable {
    /// The event's number in the writer's stream, starting at 1; a gap means events were lost.
    public var sequence: Int
    /// Seconds since 1970 when the event was published.
    public var time: Double
    /// The readable name of the event's type.
    public var typeName: String
    /// The event's payload.
    public var payload: FeedPayload
    /// How many typed subscribers received the event.
    public var receivers: Int
    /// The process that published it, when the record names one (it came through NATS).
    public var origin: FeedOrigin?
    /// The event's number on its bus, its cause's and its call site; empty in recordings made
    /// before wire version 3.
    public var trace: PublishTrace

    /// Creates an event record.
    public init(
        sequence: Int, time: Double, typeName: String, payload: FeedPayload, receivers: Int,
        origin: FeedOrigin? = nil, trace: PublishTrace = PublishTrace()
    ) {
        self.trace = trace
        self.sequence = sequence
        self.time = time
        self.typeName = typeName
        self.payload = payload
        self.receivers = receivers
        self.origin = origin
    }

}

/// A subscriber lifecycle change on the wire.
public struct FeedLifecycle: Sendable, Hashable {
    /// Seconds since 1970 when the change happened.
    public var time: Double
    /// The change.
    public var change: SubscriberLifecycleEvent
    /// The process whose bus it happened on, when the record names one (it came through NATS).
    public var origin: FeedOrigin?

    /// Creates a lifecycle record.
    public init(time: Double, change: SubscriberLifecycleEvent, origin: FeedOrigin? = nil) {
        self.time = time
        self.change = change
        self.origin = origin
    }

}

/// The bus's counters at one moment, on the wire.
public struct FeedSnapshot: Sendable, Hashable {
    /// Seconds since 1970 when the snapshot was taken.
    public var time: Double
    /// The counters, every field of ``BusSnapshot`` and ``EventTypeStatistics``.
    public var snapshot: BusSnapshot
    /// The tap's own counters, in the `tap` field, when a tap wrote the snapshot; a recording
    /// made with `--attach` keeps them, as the tap sent them.
    public var tap: FeedTapCounters?
    /// Leak suspects the writer left out of ``BusSnapshot/leakSuspects`` to keep the line short
    /// (the least overdue ones); 0 almost always.
    public var omittedLeakSuspects: Int
    /// Observer instances the writer left out of ``BusSnapshot/instances`` to keep the line
    /// short; 0 almost always.
    public var omittedInstances: Int
    /// The process whose bus the counters are, when the record names one (it came through NATS).
    public var origin: FeedOrigin?

    /// How many observer objects of each class taps and in-process monitors ask the bus to list
    /// (``EventBus/snapshot(instancesPerClass:)``): enough for a person to follow the objects of
    /// a screen class, few enough that a snapshot stays a small line.
    public static let instancesPerClass = 50

    /// The most bytes a snapshot line may take before its leak suspects and instances are cut
    /// (fewer instances per class first, then the last ones), so it stays far below
    /// ``FeedRecord/maximumLineLength``: 512 KiB.
    public static let listBudget = 512 << 10

    /// Creates a snapshot record.
    public init(
        time: Double, snapshot: BusSnapshot, tap: FeedTapCounters? = nil, omittedLeakSuspects: Int = 0,
        omittedInstances: Int = 0, origin: FeedOrigin? = nil
    ) {
        self.origin = origin
        self.time = time
        self.snapshot = snapshot
        self.tap = tap
        self.omittedLeakSuspects = omittedLeakSuspects
        self.omittedInstances = omittedInstances
    }
}

/// What a tap counts about its monitors, sent with every snapshot as its `tap` field.
///
/// ```json
/// "tap":{"monitors":3,"maximumMonitors":64,"refused":0,"disconnectedIdle":1}
/// ```
public struct FeedTapCounters: Sendable, Hashable {
    /// Monitors connected now, this one included.
    public var monitors: Int
    /// The most monitors the tap serves at once; more are refused.
    public var maximumMonitors: Int
    /// Connections refused so far because ``maximumMonitors`` were attached.
    public var refused: Int
    /// Monitors disconnected so far because they read nothing for a while with output waiting.
    public var disconnectedIdle: Int

    /// Creates the counters.
    public init(monitors: Int, maximumMonitors: Int, refused: Int = 0, disconnectedIdle: Int = 0) {
        self.monitors = monitors
        self.maximumMonitors = maximumMonitors
        self.refused = refused
        self.disconnectedIdle = disconnectedIdle
    }
}

/// Why a tap turned a reader away: the last line the reader gets before the tap closes it.
///
/// ```json
/// {"kind":"refused","time":1712345680.0,"reason":"64 monitors attached"}
/// ```
public struct FeedRefusal: Sendable, Hashable {
    /// Seconds since 1970 when the line was written.
    public var time: Double
    /// Why, for people, such as `64 monitors attached`.
    public var reason: String

    /// Creates a refusal record.
    public init(time: Double, reason: String) {
        self.time = time
        self.reason = reason
    }
}

/// What a reader lost so far because it read too slowly: running totals, not increments.
public struct FeedDrops: Sendable, Hashable {
    /// Seconds since 1970 when the line was written.
    public var time: Double
    /// Events lost so far.
    public var events: Int
    /// Lifecycle changes lost so far.
    public var lifecycle: Int
    /// Handler calls lost so far, while the reader asked for them (see ``MonitorRequest``).
    public var calls: Int
    /// Events, lifecycle changes and handler calls a fleet monitor dropped so far because they came from apps past the
    /// most it lists at once, not because anyone read too slowly; not in the other counts.
    public var fromAppsPastTheLimit: Int

    /// Creates a drops record.
    public init(time: Double, events: Int, lifecycle: Int = 0, calls: Int = 0, fromAppsPastTheLimit: Int = 0)
    {
        self.time = time
        self.events = events
        self.lifecycle = lifecycle
        self.calls = calls
        self.fromAppsPastTheLimit = fromAppsPastTheLimit
    }
}
