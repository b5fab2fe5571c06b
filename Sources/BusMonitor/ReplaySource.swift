import BusWire
import EventBus

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Plays a recording into a dashboard, with its original timing scaled by a speed.
///
/// The whole file is read and checked when the source is made, so a bad recording fails before
/// any screen is drawn, with the line to blame:
///
/// ```swift
/// do {
///     let replay = try ReplaySource(path: "recording.jsonl", speed: 4)
///     for warning in replay.warnings { print("warning: \(warning)") }
/// } catch {
///     print("error: \(error)")  // error: recording.jsonl:17: missing field "typeName" in an event record
/// }
/// ```
///
/// A last line cut short (no newline at the end, and unreadable), as a crash while recording
/// leaves, is skipped with a warning. Lines of a kind this version does not know are skipped too.
/// Playback starts at the first ``drain()``.
public final class ReplaySource: FiniteSource {
    /// Most records one ``drain()`` returns, so that a fast replay still draws frames.
    public static let maximumRecordsPerDrain = 20_000

    /// The recording's path.
    public let path: String
    /// Problems that did not stop the replay, each naming its line.
    public let warnings: [String]
    /// The first hello in the recording: which app was recorded.
    public let hello: FeedHello?
    /// Seconds from the first record to the last.
    public let duration: Double
    /// Events in the recording.
    public let eventCount: Int

    private let items: [Item]
    private let clock: LockedValue<Clock>

    /// One record ready to hand over, and when (seconds after the first record).
    private enum Item {
        case event(CapturedEvent)
        case lifecycle(CapturedLifecycle)
        case snapshot(BusSnapshot)
        case dropped(Int)
    }

    private struct Clock {
        var speed: Double
        var startedAt: Double?
        /// Recording seconds already played when `startedAt` was taken.
        var playedBefore = 0.0
        var next = 0
        var dropped = 0
    }

    private let offsets: [Double]

    /// Reads and checks a recording.
    ///
    /// - Parameters:
    ///   - path: A file of records, one JSON object per line, as ``RecordingWriter`` writes.
    ///   - speed: 1 plays in real time, 2 twice as fast; 0, infinity, or anything above a million
    ///     plays as fast as the monitor drains.
    /// - Throws: ``RecordingError`` when the file cannot be read, a line is malformed, or the
    ///   speed is negative.
    public init(path: String, speed: Double = 1) throws(RecordingError) {
        guard !speed.isNaN, speed >= 0 else { throw .invalidSpeed(speed) }
        self.path = path
        let bytes = try Self.readFile(path)

        var items: [Item] = []
        var times: [Double] = []
        var warnings: [String] = []
        var hello: FeedHello?
        var unknownKinds = 0
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            lineNumber += 1
            let newline = bytes[start...].firstIndex(of: 0x0A)
            let end = newline ?? bytes.count
            let line = bytes[start..<end]
            start = end + 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            let record: FeedRecord
            do throws(FeedDecodingError) {
                record = try FeedRecord.decode(line: line)
            } catch {
                if case .unknownKind = error {
                    unknownKinds += 1
                    continue
                }
                if newline == nil {
                    warnings.append(
                        "\(path):\(lineNumber): the last line is incomplete (no newline at the end) and was skipped: \(error)"
                    )
                    continue
                }
                throw .malformedLine(path: path, line: lineNumber, error: error)
            }
            switch record {
            case .hello(let found):
                if hello == nil { hello = found }
            case .event(let event):
                items.append(.event(event.captured))
                times.append(event.time)
            case .lifecycle(let lifecycle):
                items.append(.lifecycle(lifecycle.captured))
                times.append(lifecycle.time)
            case .snapshot(let snapshot):
                items.append(.snapshot(snapshot.snapshot))
                times.append(snapshot.time)
            case .dropped(let drops):
                items.append(.dropped(drops.events))
                times.append(drops.time)
            case .refused:
                continue
            }
        }
        if unknownKinds > 0 {
            warnings.append("\(path): skipped \(unknownKinds) lines of a kind this version does not know")
        }
        // Offsets from the first record; never earlier than the previous one, so records that
        // several threads stamped slightly out of order still play in file order.
        var offsets: [Double] = []
        offsets.reserveCapacity(times.count)
        var latest = 0.0
        for time in times {
            latest = max(latest, time - (times.first ?? 0))
            offsets.append(latest)
        }
        self.items = items
        self.offsets = offsets
        self.warnings = warnings
        self.hello = hello
        self.duration = offsets.last ?? 0
        self.eventCount = items.reduce(0) { count, item in
            if case .event = item { return count + 1 }
            return count
        }
        self.clock = LockedValue(Clock(speed: speed))
    }

    /// The whole of the file at `path`, for readers of recordings and wire input.
    package static func readFile(_ path: String) throws(RecordingError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(path: path, reason: UnixSocket.errorText(errno)) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, reason: UnixSocket.errorText(errno))
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// "replay of simapp (pid 4242) from recording.jsonl".
    public var title: String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        if let hello { return "replay of \(hello.process) (pid \(hello.pid)) from \(file)" }
        return "replay of \(file)"
    }

    /// Whether the last record has been drained.
    public var isFinished: Bool {
        clock.withLock { $0.next >= items.count }
    }

    /// The records now due, at most ``maximumRecordsPerDrain``, and a status such as
    /// `replay 12.3/60.0 s` or `replay finished`.
    public func drain() -> SourceBatch {
        clock.withLock { clock in
            let now = MonotonicClock.now()
            if clock.startedAt == nil { clock.startedAt = now }
            let played = position(clock, now: now)
            var batch = SourceBatch()
            var taken = 0
            while clock.next < items.count, offsets[clock.next] <= played, taken < Self.maximumRecordsPerDrain
            {
                switch items[clock.next] {
                case .event(let event): batch.events.append(event)
                case .lifecycle(let change): batch.lifecycle.append(change)
                case .snapshot(let snapshot): batch.snapshot = snapshot
                case .dropped(let count): clock.dropped = count
                }
                clock.next += 1
                taken += 1
            }
            batch.droppedEvents = clock.dropped
            if clock.next >= items.count {
                batch.status = "replay finished"
            } else {
                let shown = Self.isAsFastAsPossible(clock.speed) ? offsets[clock.next] : min(played, duration)
                var status = "replay \(Self.format(shown))/\(Self.format(duration)) s"
                if clock.speed != 1 {
                    status +=
                        Self.isAsFastAsPossible(clock.speed)
                        ? " at full speed" : " at \(Self.format(clock.speed))x"
                }
                batch.status = status
            }
            return batch
        }
    }

    /// `+` and `-` for the speed, unless the replay plays at full speed.
    public var supportedCommands: [SourceCommandDescription] {
        clock.withLock { Self.isAsFastAsPossible($0.speed) } ? [] : [.replaySpeed]
    }

    /// `increaseRate` doubles the speed and `decreaseRate` halves it; other commands do not
    /// apply to a recording.
    ///
    /// - Returns: The new speed, or a message saying the command does not apply.
    public func perform(_ command: SourceCommand) -> String? {
        clock.withLock { clock in
            guard !Self.isAsFastAsPossible(clock.speed) else { return "replay: already at full speed" }
            let factor: Double
            switch command {
            case .increaseRate: factor = 2
            case .decreaseRate: factor = 0.5
            case .destroyScreens: return "replay: commands do not apply to a recording"
            }
            let now = MonotonicClock.now()
            clock.playedBefore = position(clock, now: now)
            clock.startedAt = clock.startedAt == nil ? nil : now
            clock.speed = min(max(clock.speed * factor, 1.0 / 64), 1024)
            return "replay speed \(Self.format(clock.speed))x"
        }
    }

    /// Recording seconds played by `now`.
    private func position(_ clock: Clock, now: Double) -> Double {
        if Self.isAsFastAsPossible(clock.speed) { return .infinity }
        guard let startedAt = clock.startedAt else { return clock.playedBefore }
        return clock.playedBefore + (now - startedAt) * clock.speed
    }

    private static func isAsFastAsPossible(_ speed: Double) -> Bool {
        speed == 0 || speed > 1_000_000
    }

    private static func format(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        guard tenths.isFinite, abs(tenths) < 1e15 else { return "\(value)" }
        let whole = Int(tenths) / 10
        let fraction = abs(Int(tenths) % 10)
        return "\(whole).\(fraction)"
    }
}
