package import BusWire
internal import EventBus

#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Plays a recording into a dashboard, with its original timing scaled by a speed.
///
/// The whole file is checked when the source is made, so a bad recording fails before any
/// screen is drawn, with the line to blame:
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
/// The file is streamed, not loaded: the check reads it once, a chunk at a time, keeping only
/// counts, and playback reads it again, decoding each record when the replay clock reaches it.
/// Memory stays the same whatever the size of the recording. Input that cannot be read twice
/// (`cat rec | busmon --replay /dev/stdin`, a FIFO, `<(…)`) is read once, into a temporary
/// file that playback reads.
///
/// A last line cut short (no newline at the end, and unreadable), as a crash while recording
/// leaves, is skipped with a warning. Lines of a kind this version does not know are skipped too.
/// Recordings in wire versions 1 and 2 replay (a version-1 recording has no observers, leak
/// suspects or instances in its snapshots); a `hello` of another version is an error.
/// The warnings also arrive as ``SourceNotice``s in the first batch, and a replay that skipped a
/// cut-off line ends with the status `replay finished (last line cut off)`. A recording with no
/// records at all is ``isEmpty``, and says `recording is empty`. The batch with the first
/// snapshot, and with the first after each later hello (the recording monitor reattached to a
/// new process), has ``SourceBatch/countersRestarted`` set. Playback starts at the first
/// ``drain()``.
package final class ReplaySource: FiniteSource {
    /// Most records one ``drain()`` returns, so that a fast replay still draws frames.
    package static let maximumRecordsPerDrain = 20_000
    /// Most bytes of recording one ``drain()`` returns (one record more if a single record is
    /// larger), so that a batch of large records stays small too: 4 MiB.
    package static let maximumBytesPerDrain = 4 << 20

    /// The recording's path.
    package let path: String
    /// Problems that did not stop the replay, each naming its line.
    package let warnings: [String]
    /// The first hello in the recording: which app was recorded.
    package let hello: FeedHello?
    /// Seconds from the first record to the last.
    package let duration: Double
    /// Events in the recording.
    package let eventCount: Int
    /// Whether the recording holds no records at all (an empty file, blank lines, or only a
    /// cut-off line).
    package let isEmpty: Bool

    /// Whether the last line was cut short and skipped.
    private let lastLineCutOff: Bool
    /// Records that play (all but hellos and unknown kinds).
    private let itemCount: Int
    /// The time of the first record that plays: offset zero.
    private let firstTime: Double
    private let clock: LockedValue<Clock>

    /// One record ready to hand over, and whether the counters start over with it: the first
    /// snapshot of the replay, or the first after a hello (the monitor that recorded reattached
    /// to a new process).
    private struct Item {
        var record: FeedRecord
        var restartsCounters = false
    }

    // `@unchecked Sendable`: the reader (a file and its buffer) is reached only under the
    // lock that guards the whole clock.
    private struct Clock: @unchecked Sendable {
        var speed: Double
        var startedAt: Double?
        /// Recording seconds already played when `startedAt` was taken.
        var playedBefore = 0.0
        /// The file, read again for playback; nil once it has ended.
        var reader: RecordingLineReader?
        /// The next record, decoded but not yet due, its offset, and its length in the file.
        var pending: (item: Item, offset: Double, length: Int)?
        /// The offset of the latest record read, so offsets never go back.
        var latest = 0.0
        /// Records handed over so far.
        var delivered = 0
        var dropped = 0
        /// Whether the next snapshot's counters start over: true at the start, and after a hello.
        var countersStartOver = true
        /// Notices for the first batch; emptied by it.
        var notices: [SourceNotice] = []
    }

    /// Reads and checks a recording.
    ///
    /// - Parameters:
    ///   - path: A file of records, one JSON object per line, as ``RecordingWriter`` writes.
    ///   - speed: 1 plays in real time, 2 twice as fast; 0, infinity, or anything above a million
    ///     plays as fast as the monitor drains.
    /// - Throws: ``RecordingError`` when the file cannot be read, a line is malformed, a `hello`
    ///   names a wire version this reader does not read, or the speed is negative.
    /// - Complexity: O(*n*) in the size of the file, in time; memory does not grow with it.
    package init(path: String, speed: Double = 1) throws(RecordingError) {
        guard !speed.isNaN, speed >= 0 else { throw .invalidSpeed(speed) }
        self.path = path
        let reader = try RecordingLineReader(path: path)

        var warnings: [String] = []
        var hello: FeedHello?
        var unknownKinds = 0
        var records = 0
        var items = 0
        var events = 0
        var firstTime: Double?
        var latestTime = -Double.infinity
        var cutOff = false
        while let line = try reader.next() {
            let record: FeedRecord
            do throws(FeedDecodingError) {
                guard let bytes = line.bytes else {
                    throw .lineTooLong(length: line.length, limit: FeedRecord.maximumLineLength)
                }
                if Self.isBlank(bytes) { continue }
                record = try FeedRecord.decode(line: bytes)
            } catch {
                if case .unknownKind = error {
                    records += 1
                    unknownKinds += 1
                    continue
                }
                if !line.endsWithNewline {
                    warnings.append(
                        "\(path):\(line.number): the last line is incomplete (no newline at the end) and was skipped: \(error)"
                    )
                    cutOff = true
                    continue
                }
                throw .malformedLine(path: path, line: line.number, error: error)
            }
            records += 1
            // Unknown fields would be skipped silently, so a newer version could replay as
            // something it is not; better to say so, as a monitor attached to a newer tap does.
            if case .hello(let found) = record, !FeedRecord.readableWireVersions.contains(found.version) {
                throw .unreadableVersion(path: path, line: line.number, version: found.version)
            }
            guard let time = record.time else {
                if case .hello(let found) = record, hello == nil { hello = found }
                continue
            }
            items += 1
            if case .event = record { events += 1 }
            if firstTime == nil { firstTime = time }
            latestTime = max(latestTime, time)
        }
        if unknownKinds > 0 {
            warnings.append("\(path): skipped \(unknownKinds) lines of a kind this version does not know")
        }
        self.warnings = warnings
        self.hello = hello
        self.isEmpty = records == 0
        self.lastLineCutOff = cutOff
        self.itemCount = items
        self.eventCount = events
        self.firstTime = firstTime ?? 0
        // Offsets never go back (records that several threads stamped slightly out of order
        // still play in file order), so the last is the latest time after the first.
        self.duration = firstTime.map { max(0, latestTime - $0) } ?? 0

        var notices = warnings.map { SourceNotice(time: WallClock.now(), text: $0, isWarning: true) }
        if records == 0 {
            notices.append(
                SourceNotice(time: WallClock.now(), text: "\(path): the recording is empty", isWarning: true))
        }
        // Playback reads the file again from the start (or the copy of a pipe's input).
        let playback = items > 0 ? try reader.reread() : nil
        self.clock = LockedValue(Clock(speed: speed, reader: playback, notices: notices))
    }

    /// The time of a record that plays, or nil for one that does not (a hello).
    private static func isBlank(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }

    /// The next record that plays, with its offset, read from the file; nil at the end.
    private func readItem(_ clock: inout Clock) -> (item: Item, offset: Double, length: Int)? {
        guard let reader = clock.reader else { return nil }
        while true {
            let line: RecordingLineReader.Line?
            do {
                line = try reader.next()
            } catch {
                clock.notices.append(SourceNotice(time: WallClock.now(), text: "\(error)", isWarning: true))
                line = nil
            }
            guard let line else {
                clock.reader = nil
                return nil
            }
            // Lines the check skipped (or that changed since) are skipped here too.
            guard let bytes = line.bytes, let record = try? FeedRecord.decode(line: bytes) else { continue }
            guard let time = record.time else {
                if case .hello = record { clock.countersStartOver = true }
                continue
            }
            clock.latest = max(clock.latest, time - firstTime)
            var item = Item(record: record)
            if case .snapshot = record {
                item.restartsCounters = clock.countersStartOver
                clock.countersStartOver = false
            }
            return (item, clock.latest, line.length)
        }
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
    package var title: String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        if let hello { return "replay of \(hello.process) (pid \(hello.pid)) from \(file)" }
        return "replay of \(file)"
    }

    /// Whether the last record has been drained.
    package var isFinished: Bool {
        clock.withLock { Self.isFinished($0, itemCount: itemCount) }
    }

    private static func isFinished(_ clock: Clock, itemCount: Int) -> Bool {
        clock.pending == nil && (clock.delivered >= itemCount || clock.reader == nil)
    }

    /// The records now due, at most ``maximumRecordsPerDrain`` and about
    /// ``maximumBytesPerDrain``, and a status such as
    /// `replay 12.3/60.0 s`, `replay finished`, `replay finished (last line cut off)` or
    /// `recording is empty`. The first batch also carries the warnings as notices.
    package func drain() -> SourceBatch {
        clock.withLock { clock in
            let now = MonotonicClock.now()
            if clock.startedAt == nil { clock.startedAt = now }
            let played = position(clock, now: now)
            var batch = SourceBatch()
            var taken = 0
            var bytes = 0
            while clock.delivered < itemCount, taken < Self.maximumRecordsPerDrain,
                bytes < Self.maximumBytesPerDrain
            {
                if clock.pending == nil { clock.pending = readItem(&clock) }
                guard let pending = clock.pending, pending.offset <= played else { break }
                bytes += pending.length
                if case .dropped(let drops) = pending.item.record {
                    clock.dropped = drops.events
                } else {
                    batch.records.append(pending.item.record)
                }
                if pending.item.restartsCounters { batch.countersRestarted = true }
                clock.pending = nil
                clock.delivered += 1
                taken += 1
            }
            // Close the file once everything has played.
            if clock.delivered >= itemCount { clock.reader = nil }
            batch.notices = clock.notices
            clock.notices = []
            batch.droppedEvents = clock.dropped
            if isEmpty {
                batch.status = "recording is empty"
            } else if Self.isFinished(clock, itemCount: itemCount) {
                batch.status = lastLineCutOff ? "replay finished (last line cut off)" : "replay finished"
            } else {
                let next = clock.pending?.offset ?? clock.latest
                let shown = Self.isAsFastAsPossible(clock.speed) ? next : min(played, duration)
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
    package var supportedCommands: [SourceCommandDescription] {
        clock.withLock { Self.isAsFastAsPossible($0.speed) } ? [] : [.replaySpeed]
    }

    /// `increaseRate` doubles the speed and `decreaseRate` halves it; other commands do not
    /// apply to a recording.
    ///
    /// - Returns: The new speed, or a message saying the command does not apply.
    package func perform(_ command: SourceCommand) -> String? {
        clock.withLock { clock in
            guard !Self.isAsFastAsPossible(clock.speed) else { return "replay: already at full speed" }
            let factor: Double
            switch command {
            case .increaseRate: factor = 2
            case .decreaseRate: factor = 0.5
            default: return "replay: commands do not apply to a recording"
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
