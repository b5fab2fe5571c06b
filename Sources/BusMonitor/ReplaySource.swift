package import BusWire
internal import EventBus
internal import Foundation

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
package final class ReplaySource: FiniteSource, SearchableSource {
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
    /// Handler calls the recording holds: a recording made while a trace was written has them.
    package let handlerCallCount: Int
    /// Whether the recording holds no records at all (an empty file, blank lines, or only a
    /// cut-off line).
    package let isEmpty: Bool
    /// Lines that could not be read, skipped (a warning names the first); a headless replay
    /// that skipped any exits 1 once it has played the rest.
    package let malformedLines: Int

    /// Whether the last line was cut short and skipped.
    private let lastLineCutOff: Bool
    /// Whether the recording watched an app's tap (`--attach`): its snapshots carry the tap's
    /// counters, or it says the app went away. A replay then says the first attach as the live
    /// monitor did, not only the later ones.
    private let recordsAnAttach: Bool
    /// Seconds without a line from the attached app after which the log says it is quiet, as
    /// the monitor that recorded said it: ``FleetPresenceTimes/quietAfter``, or three of the
    /// tap's snapshot intervals (their median in the recording) if that is longer.
    private let quietAfter: Double
    /// Records that play (all but hellos and unknown kinds).
    private let itemCount: Int
    /// The time of the first record that plays: offset zero.
    private let firstTime: Double
    /// Places playback can start again from, in file order (see ``seek(to:)``).
    private let checkpoints: [Checkpoint]
    /// What the records before some of the checkpoints said of each app of a fleet, in file
    /// order; empty for a recording of one app.
    private let fleetTallies: [FleetTally]
    private let clock: LockedValue<Clock>
    /// Seconds from an arbitrary start, never jumping, by which playback paces itself.
    private let playbackClock: @Sendable () -> Double

    /// Each app's events and when it was last heard, as the records before a checkpoint tell
    /// them: where a move that reads again from there starts counting, so that the Fleet pane
    /// counts from the recording's start, not from the minute read again.
    private struct FleetTally {
        /// The index of the checkpoint, in ``checkpoints``.
        var checkpoint: Int
        var apps: [EventOrigin: HeardApp]
    }

    /// Seconds of recording between two fleet tallies at least, and records at most: a move
    /// reads again from the tally before its checkpoint, up to this much more (never past
    /// ``maximumWarmUpRecords`` in all: a tally further back is passed over).
    static let fleetTallyInterval = 60.0
    static let fleetTallyRecords = 60_000
    /// Apps counted over all fleet tallies at most (some 100 bytes each): past it every other
    /// tally is dropped and the spacing doubles, so that memory stays bounded however long the
    /// recording and however many its apps. A fleet of ten apps keeps 20,000 tallies (a
    /// fortnight of minutes), one of the most apps a fleet keeps (1,000), 200.
    static let maximumTalliedApps = 200_000

    /// Seconds of recording between two checkpoints at most.
    static let checkpointInterval = 1.0
    /// Records between two checkpoints at most, so that a dense recording has them close.
    static let checkpointRecords = 5_000
    /// Seconds of recording replayed before the cursor when it moves back or jumps: as much as
    /// the sparklines show, so that rates and the log read as they did.
    static let warmUpSeconds = 60.0
    /// Seconds with no record from which a replay says, when it opens the recording, that
    /// playing will wait that long: a recording left running over a quiet night, or a record
    /// stamped decades off, would otherwise stall with nothing but the header's length to show
    /// why.
    static let longPause = 60.0
    /// Seconds a record may be stamped before one above it without the replay saying so:
    /// threads of one app stamp records a little out of order, and play in file order; a
    /// record a second or more earlier means two recordings joined, lines out of order, or apps
    /// whose clocks disagree, and the replay, which plays in file order, shows it later than it
    /// happened.
    static let backStepTolerance = 1.0
    /// Kinds of line that `busmon --headless` writes beside the records it passes on.
    static let headlessOnlyKinds: Set<String> = ["summary", "state"]

    /// Records replayed before the cursor at most when it moves, past ``minimumWarmUpSeconds``:
    /// a dense recording (a burst, or every handler call traced) need not be replayed for a
    /// whole minute; 60,000 records read in about a third of a second.
    static let warmUpRecords = 60_000
    /// Seconds of recording replayed before the cursor when it moves, however many records
    /// they hold: the rates average the last two seconds, and a second more gives the window's
    /// start a reading. With fewer, a jump into a burst showed every rate as 0, or absurd.
    static let minimumWarmUpSeconds = 3.0
    /// Records replayed before the cursor at most, whatever the seconds: three seconds of a
    /// recording of every handler call at full speed could be a million records, seconds of
    /// reading and hundreds of megabytes held in one move.
    static let maximumWarmUpRecords = 200_000

    /// A place playback can start again from: a record's line, with what playback had reached
    /// just before it.
    private struct Checkpoint {
        /// The line of the record.
        var position: RecordingLineReader.Position
        /// The latest offset of the records before it (offsets never go back).
        var latest: Double
        /// Records that play before it.
        var delivered: Int
        /// The index of the last event before it, and of the last line the log shows (an
        /// event or a lifecycle change), where a step back and a search back start after a move
        /// that read again from here.
        var lastEvent: Int?
        var lastLine: Int?
        /// The losses the recording's newest `dropped` line before it counts, which a move that
        /// reads again from here shows until a later one comes.
        var drops = FeedDrops(time: 0, events: 0)
        /// Where the newest hello before it is: who was watched there. A place in the file,
        /// read again when a move starts here, rather than the hello itself: a recording may
        /// hold one before every checkpoint, and checkpoints stay a few words each.
        var helloLine: RecordingLineReader.Position?
        /// Where the newest `fleet` line before it is, if one came, likewise.
        var fleetLine: RecordingLineReader.Position?
        /// Whether the app of that hello had gone away there (a `detached` line came after it).
        var detached = false
        /// The offset of its own record: past ``latest`` by the pause before it, if any.
        var offset = 0.0
    }

    /// Where a move of the cursor ends.
    private enum SeekTarget: Equatable {
        /// Every record up to this offset, in seconds of recording.
        case offset(Double)
        /// The records before the record with this index.
        case record(Int)
        /// The records up to and including the next event.
        case throughNextEvent
    }

    /// What a replay's records said of one app of a fleet.
    private struct HeardApp {
        var lastSeen: Double
        var events = 0
        var snapshot: BusSnapshot?
    }

    /// One record ready to hand over, and whether the counters start over with it: the first
    /// snapshot of the replay, or the first after a hello (the monitor that recorded reattached
    /// to a new process).
    private struct Item {
        var record: FeedRecord
        var restartsCounters = false
    }

    /// What the next line of the file holds for playback: a record that plays, or a line that
    /// says who is watched from its time on (a hello, a fleet line), which plays no record.
    private enum Pending {
        case item(Item)
        case hello(FeedHello)
        case fleet([FleetMember])
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
        /// The file as the check read it, which playback reads again from a checkpoint.
        var file: RecordingLineReader?
        /// The next record, decoded but not yet due, its offset, and its length in the file.
        var pending: (next: Pending, offset: Double, length: Int)?
        /// The offset of the latest record read, so offsets never go back.
        var latest = 0.0
        /// Records handed over so far.
        var delivered = 0
        var dropped = 0
        /// Handler calls the recording says were lost, as its newest `dropped` line counts them.
        var droppedCalls = 0
        /// Lifecycle changes the recording says were lost, as its newest `dropped` line counts
        /// them.
        var droppedLifecycle = 0
        /// Records of apps past a fleet's limit the recording says were dropped, likewise.
        var droppedPastTheLimit = 0
        /// Whether the replay looked, at its end, whether the file grew while it played: once,
        /// not at every drain of a finished replay.
        var checkedGrowth = false
        /// Whether the next snapshot's counters start over: true at the start, and after a hello.
        var countersStartOver = true
        /// The newest hello read: who was watched where the replay reads, which the title names.
        var hello: FeedHello?
        /// Whether the app of ``hello`` went away where the replay reads, as the recording's
        /// `detached` line says: the status says so until the next hello.
        var detached = false
        /// Whether the log said that the attached app fell quiet, and not yet that it is back.
        var saidQuiet = false
        /// The offset of the newest line heard from the attached app, a hello included: its
        /// silence counts from there, as the live monitor's does.
        var lastHeard = 0.0
        /// The fleet as the newest `fleet` line read listed it: each app's presence as the
        /// monitor that recorded saw it (an app that left is gone when it left). `nil` until
        /// one is read; a recording of one app has none.
        var recordedFleet: [FleetMember]?
        /// What the records handed over since playback (re)started said of each app.
        var heard: [EventOrigin: HeardApp] = [:]
        /// Whether the fleet list changed since the last batch handed it over.
        var fleetChanged = false
        /// Notices for the first batch; emptied by it.
        var notices: [SourceNotice] = []
        /// Warnings said apart from the records (those found when the file was opened, and
        /// busmon's own, such as `--at` past the end), handed over after what the next batch's
        /// records say: said before a move is read, ahead of them they would drag its first
        /// lines (an attach) after them to the log's end, out of time order.
        var standingWarnings: [SourceNotice] = []
        /// Whether playback said that the file ended before the records checked at the start.
        var toldCutShort = false
        /// Whether playback is paused: the cursor stays where it is until it moves or plays.
        var isPaused = false
        /// Where the cursor is moving to, while the records up to it are read.
        var seeking: SeekTarget?
        /// Whether the next batch replaces what the dashboard showed: the cursor moved back, or
        /// jumped, and playback restarted from a checkpoint before it.
        var replacing = false
        /// The index of the last event record handed over, for a step back.
        var lastEvent: Int?
        /// Batches of a move carried out before another began, for the next drain.
        var held: [SourceBatch] = []
        /// The index of the last record handed over that the log shows as a line (an event or a
        /// lifecycle change), where a search back starts.
        var lastLine: Int?
        /// The offset of the last record handed over (``latest`` may be a record read ahead).
        var handedOver = 0.0
        /// Where the dashboard took its last reading: the cursor at the end of the last drain.
        var lastReadingOffset: Double?
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
    package convenience init(path: String, speed: Double = 1) throws(RecordingError) {
        try self.init(path: path, speed: speed, playbackClock: { MonotonicClock.now() })
    }

    /// Opens the recording at `path` to play at `speed`, paced by `playbackClock` (seconds from
    /// an arbitrary start, never going back): a test moves it instead of waiting on real time.
    package init(
        path: String, speed: Double, playbackClock: @escaping @Sendable () -> Double
    ) throws(RecordingError) {
        guard !speed.isNaN, speed >= 0 else { throw .invalidSpeed(speed) }
        self.path = path
        self.playbackClock = playbackClock
        let reader = try RecordingLineReader(path: path)

        var warnings: [String] = []
        var hello: FeedHello?
        var unknownKinds = 0
        var records = 0
        var items = 0
        var events = 0
        var calls = 0
        var firstTime: Double?
        var latestTime = -Double.infinity
        /// The newest hello or fleet line: a monitor writes one after the app's last record
        /// (the app went quiet, then gone), and the recording lasts until it.
        var latestSideTime = -Double.infinity
        var cutOff = false
        var checkpoints: [Checkpoint] = []
        var lastEvent: Int?
        var lastLine: Int?
        var drops = FeedDrops(time: 0, events: 0)
        var newestHelloLine: RecordingLineReader.Position?
        var newestFleetLine: RecordingLineReader.Position?
        var detached = false
        var watchedATap = false
        /// The first thousand gaps between the attached app's snapshots, for its pace.
        var snapshotGaps: [Double] = []
        var previousSnapshotTime: Double?
        var newestHello: FeedHello?
        var unreadableFleetLines = 0
        var malformedLines = 0
        var firstMalformed: RecordingError?
        var fleetTallies: [FleetTally] = []
        var heardApps: [EventOrigin: HeardApp] = [:]
        var tallySpacing = (seconds: Self.fleetTallyInterval, records: Self.fleetTallyRecords)
        var longestPause: (after: Double, length: Double, line: Int)?
        var longPauses = 0
        var backSteps = 0
        var firstBackStep: (line: Int, seconds: Double)?
        while let line = try reader.next() {
            let record: FeedRecord
            do throws(FeedDecodingError) {
                if line.overlongLength == nil, Self.isBlank(line.bytes) { continue }
                record = try line.record()
            } catch {
                if case .unknownKind(FleetLine.kind) = error {
                    records += 1
                    if let fleet = FleetLine.decode(line.bytes) {
                        newestFleetLine = line.position
                        latestSideTime = max(latestSideTime, fleet.time)
                    } else {
                        unreadableFleetLines += 1
                    }
                    continue
                }
                if case .unknownKind(let kind) = error {
                    records += 1
                    // `--headless` output is a recording with busmon's own lines among the
                    // records: its summaries and `--at` states are no news to a reader.
                    if !Self.headlessOnlyKinds.contains(kind) { unknownKinds += 1 }
                    continue
                }
                if !line.endsWithNewline {
                    warnings.append(
                        "\(path):\(line.number): the last line is incomplete (no newline at the end) and was skipped: \(error)"
                    )
                    cutOff = true
                    continue
                }
                // A hello that cannot be read (a newer version's, or damaged) would let what
                // follows pass as the process before: the recording is refused, as ever.
                if Self.isHelloLine(line.bytes) {
                    throw .malformedLine(path: path, line: line.number, error: error)
                }
                // One damaged line does not take the rest of the recording with it: the line
                // is skipped, said, and counted (an empty replay says the first one).
                malformedLines += 1
                if firstMalformed == nil {
                    firstMalformed = .malformedLine(path: path, line: line.number, error: error)
                }
                continue
            }
            records += 1
            // Unknown fields would be skipped silently, so a newer version could replay as
            // something it is not; better to say so, as a monitor attached to a newer tap does.
            if case .hello(let found) = record, !FeedRecord.readableWireVersions.contains(found.version) {
                throw .unreadableVersion(path: path, line: line.number, version: found.version)
            }
            guard let time = record.time else {
                if case .hello(let found) = record {
                    if hello == nil { hello = found }
                    latestSideTime = max(latestSideTime, found.time)
                    newestHello = found
                    newestHelloLine = line.position
                    detached = false
                    previousSnapshotTime = nil
                }
                continue
            }
            let latest = firstTime.map { max(0, latestTime - $0) } ?? 0
            let checkpointsBefore = checkpoints.count
            if let last = checkpoints.last {
                if time - (firstTime ?? time) - last.latest >= Self.checkpointInterval
                    || items - last.delivered >= Self.checkpointRecords
                {
                    checkpoints.append(
                        Checkpoint(
                            position: line.position, latest: latest, delivered: items, lastEvent: lastEvent,
                            lastLine: lastLine, drops: drops, helloLine: newestHelloLine,
                            fleetLine: newestFleetLine, detached: detached,
                            offset: max(latest, time - (firstTime ?? time))))
                }
            } else {
                checkpoints.append(
                    Checkpoint(
                        position: line.position, latest: 0, delivered: 0, helloLine: newestHelloLine,
                        fleetLine: newestFleetLine))
            }
            // At a checkpoint just made, before its own record: what a move from there starts with.
            if !heardApps.isEmpty, checkpoints.count > checkpointsBefore {
                let tallied = fleetTallies.last.map { checkpoints[$0.checkpoint] }
                let offset = checkpoints[checkpoints.count - 1].latest
                if tallied.map({
                    offset - $0.latest >= tallySpacing.seconds || items - $0.delivered >= tallySpacing.records
                }) ?? true {
                    fleetTallies.append(FleetTally(checkpoint: checkpoints.count - 1, apps: heardApps))
                    if fleetTallies.count > 2, fleetTallies.count * heardApps.count > Self.maximumTalliedApps
                    {
                        // Every other, the first kept: memory stays bounded, moves read twice as far.
                        fleetTallies = fleetTallies.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
                        tallySpacing = (tallySpacing.seconds * 2, tallySpacing.records * 2)
                    }
                }
            }
            if let origin = record.origin {
                // Before the first app's first record, an empty tally: a move to before it
                // counts from nothing, exactly, and one after it from here at the latest.
                if fleetTallies.isEmpty {
                    fleetTallies.append(FleetTally(checkpoint: checkpoints.count - 1, apps: [:]))
                }
                Self.tally(record, from: origin, at: time, into: &heardApps, keepingSnapshots: false)
            }
            switch record {
            case .event:
                events += 1
                lastEvent = items
                lastLine = items
            case .lifecycle:
                lastLine = items
            case .call:
                calls += 1
            case .dropped(let found):
                drops = found
            case .detached(let detach):
                watchedATap = true
                if let newestHello, detach.isDetach(from: newestHello) { detached = true }
                // The gap to the next process's first snapshot is not the tap's pace.
                previousSnapshotTime = nil
            case .snapshot(let snapshot):
                // An app's snapshot in a fleet (dialled in to `--listen`) names the app and
                // carries its tap's counters too; only one app's, unnamed, is an attach.
                if snapshot.tap != nil, record.origin == nil { watchedATap = true }
                if record.origin == nil {
                    if let previous = previousSnapshotTime, snapshotGaps.count < 1_000, time > previous {
                        snapshotGaps.append(time - previous)
                    }
                    previousSnapshotTime = time
                }
            default:
                break
            }
            items += 1
            if time < latestTime - Self.backStepTolerance {
                backSteps += 1
                if firstBackStep == nil { firstBackStep = (line.number, latestTime - time) }
            }
            if let firstTime, time - latestTime >= Self.longPause {
                longPauses += 1
                if time - latestTime > longestPause?.length ?? 0 {
                    longestPause = (latestTime - firstTime, time - latestTime, line.number)
                }
            }
            if firstTime == nil { firstTime = time }
            latestTime = max(latestTime, time)
        }
        if let longestPause {
            let others = longPauses - 1
            warnings.append(
                "\(path):\(longestPause.line): nothing happens for \(Self.pauseText(longestPause.length)) after "
                    + "\(Self.clockText(longestPause.after)) of the recording, which playing at its pace waits out"
                    + " (in the dashboard t jumps to a time, n to the next line)"
                    + (others > 0
                        ? "; \(others) more \(others == 1 ? "pause" : "pauses") of a minute or longer" : ""))
        }
        if let firstBackStep {
            let others = backSteps - 1
            warnings.append(
                "\(path):\(firstBackStep.line): the records' times go back by \(Self.stepText(firstBackStep.seconds)) "
                    + "here (two recordings joined, lines out of order, or apps whose clocks disagree?); "
                    + "records play in the file's order, so "
                    + (others > 0
                        ? "this one and \(others) more earlier than a record above them show later than stamped"
                        : "this one shows later than stamped"))
        }
        self.checkpoints = checkpoints
        self.fleetTallies = fleetTallies
        if unreadableFleetLines > 0 {
            warnings.append(
                "\(path): skipped \(unreadableFleetLines) `fleet` \(unreadableFleetLines == 1 ? "line" : "lines") "
                    + "that could not be read: apps there show as their records tell")
        }
        if let firstMalformed {
            // Nothing readable at all: not a recording, and the first line says why.
            guard records > 0 else { throw firstMalformed }
            warnings.append(
                "\(firstMalformed)"
                    + (malformedLines == 1
                        ? "; the line was skipped"
                        : "; that line and \(malformedLines - 1) more were skipped"))
        }
        self.malformedLines = malformedLines
        if unknownKinds > 0 {
            warnings.append(
                "\(path): skipped \(unknownKinds) \(unknownKinds == 1 ? "line" : "lines") of a kind this version does not know"
            )
        }
        self.warnings = warnings
        self.hello = hello
        self.isEmpty = records == 0
        self.lastLineCutOff = cutOff
        self.recordsAnAttach = watchedATap
        let pace = snapshotGaps.sorted().dropFirst(snapshotGaps.count / 2).first ?? 0
        // As the live monitor says it: whole seconds past a fleet's wait.
        let threshold = max(FleetPresenceTimes().quietAfter, 3 * pace)
        quietAfter = threshold > FleetPresenceTimes().quietAfter ? threshold.rounded(.up) : threshold
        self.itemCount = items
        self.eventCount = events
        self.handlerCallCount = calls
        // A recording of a hello alone starts, and stays, at the hello's time.
        self.firstTime = firstTime ?? hello?.time ?? 0
        // Offsets never go back (records that several threads stamped slightly out of order
        // still play in file order), so the last is the latest time after the first.
        // A line of the monitor's after the last record extends the recording, by a pause at
        // most: a stamp far ahead (a clock never set) must not make it wait for years.
        let end =
            latestSideTime.isFinite
            ? max(latestTime, min(latestSideTime, latestTime + Self.longPause)) : latestTime
        self.duration = firstTime.map { max(0, end - $0) } ?? 0

        // Stamped with the recording's time at its start, where the cursor stands, as every
        // warning of a replay is stamped with the cursor's time: among the records' times, a
        // wall clock's would read as a moment decades after them.
        let openedAt = firstTime ?? hello?.time ?? WallClock.now()
        var notices = warnings.map { SourceNotice(time: openedAt, text: $0, isWarning: true) }
        if records == 0 {
            notices.append(
                SourceNotice(time: openedAt, text: "\(path): the recording is empty", isWarning: true))
        }
        // Playback reads the file again from the start (or the copy of a pipe's input).
        let playback = items > 0 ? try reader.reread() : nil
        self.clock = LockedValue(
            Clock(speed: speed, reader: playback, file: items > 0 ? reader : nil, standingWarnings: notices))
    }

    /// The time of a record that plays, or nil for one that does not (a hello).
    private static func isBlank(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }

    /// The next line that plays, with its offset, read from the file; nil at the end. A hello
    /// or a fleet line plays at its own time (no earlier than the records before it, no later
    /// than the recording's end), not when it is read ahead of the next record.
    private func readNext(_ clock: inout Clock) -> (next: Pending, offset: Double, length: Int)? {
        guard let reader = clock.reader else { return nil }
        while true {
            let line: RecordingLineReader.Line?
            do {
                line = try reader.next()
            } catch {
                clock.notices.append(
                    SourceNotice(time: firstTime + clock.latest, text: "\(error)", isWarning: true))
                line = nil
            }
            guard let line else {
                clock.reader = nil
                if clock.delivered < itemCount, !clock.toldCutShort {
                    // The file was cut or written over while it played: say so, once.
                    clock.toldCutShort = true
                    clock.notices.append(
                        SourceNotice(
                            time: firstTime + clock.latest,
                            text: "\(path): \(itemCount - clock.delivered) of its \(itemCount) records "
                                + "could not be read again: the file changed while it played", isWarning: true
                        ))
                }
                return nil
            }
            // Lines the check skipped (or that changed since) are skipped here too.
            let record: FeedRecord
            do throws(FeedDecodingError) {
                record = try line.record()
            } catch {
                if case .unknownKind(FleetLine.kind) = error, let fleet = FleetLine.decode(line.bytes) {
                    return (.fleet(fleet.members), sideOffset(fleet.time, clock), line.bytes.count)
                }
                continue
            }
            guard let time = record.time else {
                if case .hello(let found) = record {
                    return (.hello(found), sideOffset(found.time, clock), line.bytes.count)
                }
                continue
            }
            clock.latest = max(clock.latest, time - firstTime)
            var item = Item(record: record)
            if case .snapshot = record {
                item.restartsCounters = clock.countersStartOver
                clock.countersStartOver = false
            }
            return (.item(item), clock.latest, line.bytes.count)
        }
    }

    /// Gives `batch` the drop counts as the recording's lines read so far say them.
    private static func noteDrops(_ clock: Clock, in batch: inout SourceBatch) {
        batch.droppedEvents = clock.dropped
        batch.droppedCalls = clock.droppedCalls
        batch.droppedLifecycle = clock.droppedLifecycle
        batch.droppedFromAppsPastTheLimit = clock.droppedPastTheLimit
    }

    /// Where a hello or a fleet line stamped `time` plays: at its time, but not before the
    /// records read so far (offsets never go back) nor past the recording's end (a line stamped
    /// far off must not hold up the records after it).
    private func sideOffset(_ time: Double, _ clock: Clock) -> Double {
        max(clock.latest, min(time - firstTime, duration))
    }

    /// Plays a hello or a fleet line read by ``readNext(_:)``, at `offset`.
    private func play(_ next: Pending, at offset: Double, _ clock: inout Clock) {
        switch next {
        case .hello(let found): noteAttach(of: found, at: offset, &clock)
        case .fleet(let members):
            let time = firstTime + offset
            // The hello names what recorded: a monitor of NATS bridges, or of apps that dialled in.
            let link = clock.hello?.process.hasPrefix("fleet at ") == true ? "bridge" : "connection"
            clock.notices += Self.presenceNotices(
                from: clock.recordedFleet ?? [], to: members, at: time, link: link)
            clock.recordedFleet = members
            clock.fleetChanged = true
        case .item: break
        }
    }

    /// Whether `line` declares itself a hello (`"kind":"hello"` among its first bytes), however
    /// damaged the rest.
    static func isHelloLine(_ line: ArraySlice<UInt8>) -> Bool {
        let marker = Array(#""kind":"hello""#.utf8)
        let head = line.prefix(64)
        guard head.count >= marker.count else { return false }
        return (head.startIndex...(head.endIndex - marker.count)).contains { start in
            head[start..<(start + marker.count)].elementsEqual(marker)
        }
    }

    /// What the live monitor said as the fleet went from `old` to `new`: who joined, turned
    /// quiet, came back or left. A fleet line carries presence, not the reason, so an app left
    /// if its `link` (a NATS bridge, a connection to `--listen`) was closed and is gone if it
    /// fell silent.
    static func presenceNotices(
        from old: [FleetMember], to new: [FleetMember], at time: Double, link: String = "link"
    ) -> [SourceNotice] {
        let before = Dictionary(old.map { ($0.origin, $0.presence) }, uniquingKeysWith: { _, last in last })
        // As the live monitor counted it, in whole seconds (5 s, 30 s).
        func silence(_ member: FleetMember) -> String {
            FleetState.format(max(0, time - member.lastSeen).rounded())
        }
        return new.compactMap { member in
            let name = member.origin.description
            switch (before[member.origin], member.presence) {
            // One first listed as gone (a monitor that started after it left) said nothing.
            case (nil, .gone): return nil
            case (nil, _): return SourceNotice(time: time, text: "\(name) joined")
            case (.gone?, .active), (.gone?, .quiet), (.quiet?, .active):
                return SourceNotice(time: time, text: "\(name) is back")
            case (.active?, .quiet):
                return SourceNotice(
                    time: time, text: "\(name) is quiet: nothing from it for \(silence(member))")
            case (.active?, .gone), (.quiet?, .gone):
                guard member.bridgeState == FleetLinkReport.closedState else {
                    return SourceNotice(
                        time: time, text: "\(name) is gone: nothing from it for \(silence(member))",
                        isWarning: true)
                }
                return SourceNotice(time: time, text: "\(name) left (its \(link) closed)")
            default: return nil
            }
        }
    }

    /// Says that the recording goes on with `found`, as the live monitor said when it attached:
    /// the first attach (of a recording made with `--attach`), a new process (or bus) whose
    /// counters restart, or the same one again; nothing for the hello already in effect.
    private func noteAttach(of found: FeedHello, at offset: Double, _ clock: inout Clock) {
        defer {
            clock.hello = found
            clock.detached = false
            clock.saidQuiet = false
            clock.lastHeard = max(clock.lastHeard, offset)
        }
        guard let previous = clock.hello else {
            clock.countersStartOver = true
            if recordsAnAttach {
                clock.notices.append(
                    SourceNotice(time: firstTime + offset, text: found.attachNotice(after: nil).text))
            }
            return
        }
        guard previous != found else { return }
        let notice = found.attachNotice(after: previous)
        if notice.restartsCounters { clock.countersStartOver = true }
        clock.notices.append(SourceNotice(time: firstTime + offset, text: notice.text))
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

    /// The hello in effect where the replay reads: who was watched there.
    var currentHello: FeedHello? {
        clock.withLock { $0.hello } ?? hello
    }

    /// "replay of simapp (pid 4242) from recording.jsonl"; a fleet's, which busmon watched,
    /// without busmon's own pid: "replay of listening on 0.0.0.0:7777 from fleet.jsonl".
    package var title: String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        if let hello = currentHello {
            let pid = hello.bus == WatchedHello.fleetBusName ? "" : " (pid \(hello.pid))"
            return "replay of \(hello.process)\(pid) from \(file)"
        }
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
    /// `replay 00:12.3 / 01:00.0 [##--------]`, `replay finished`,
    /// `replay finished (last line cut off)` or `recording is empty`. The first batch also carries
    /// the warnings as notices. After the cursor moved, the batches of ``drainBatches()`` in one.
    package func drain() -> SourceBatch {
        let batches = drainBatches()
        guard batches.count > 1 else { return batches[0] }
        var merged = batches[batches.count - 1]
        merged.records = batches.flatMap(\.records)
        merged.notices = batches.flatMap(\.notices)
        merged.countersRestarted = batches.contains { $0.countersRestarted }
        // The newest fleet list, whichever batch had it: a later one need not.
        merged.fleet = batches.last { $0.fleet != nil }?.fleet
        merged.replacesState = batches[0].replacesState
        return merged
    }

    /// What ``drain()`` gives, one batch per second of the recording's clock and per snapshot
    /// (after the cursor moved, every record up to it), so that rates and sparklines read as
    /// they did when it played.
    package func drainBatches() -> [SourceBatch] {
        clock.withLock { clock in
            var batches = clock.held + take(&clock, now: playbackClock())
            clock.held = []
            // Held batches were taken before the last: the last carries the state of now, and
            // the warnings, after the records a move read (a log holds 5,000 lines, and a
            // warning before those read up to the cursor would be pushed out of it). What the
            // recording itself says (an attach, a detach) goes with the first batch holding a
            // record stamped after it, where the log puts it among the records, as it did
            // while the recording played. Each take hands its notices over with its last batch;
            // a notice moves back only among that take's batches (a second move in one frame
            // starts the dashboard over, and what the first said is said again after it), and
            // never before the batch the notice before it went to, so they stay in order.
            if batches.count > 1 {
                let said = batches.map(\.notices)
                for index in batches.indices { batches[index].notices = [] }
                var earliest = 0
                var takeStart = 0
                for (index, notices) in said.enumerated() {
                    if batches[index].replacesState { takeStart = index }
                    for notice in notices {
                        let from = max(earliest, takeStart)
                        let found =
                            notice.isWarning || from > index
                            ? nil
                            : batches[from...index].firstIndex {
                                ($0.records.last?.time ?? -.infinity) > notice.time
                            }
                        earliest = found ?? (notice.isWarning ? batches.count - 1 : max(index, earliest))
                        batches[earliest].notices.append(notice)
                    }
                }
            }
            return batches
        }
    }

    /// Carries out a move that is still pending before another starts, holding its batches for
    /// the next drain: two keys pressed within a frame (`<` then `.`) move the cursor twice,
    /// the second from where the first left it.
    private func settle(_ clock: inout Clock, now: Double) {
        guard clock.seeking != nil else { return }
        clock.held += take(&clock, now: now)
    }

    /// The records due now (see ``drainBatches()``), taken from the file.
    private func take(_ clock: inout Clock, now: Double) -> [SourceBatch] {
        if clock.startedAt == nil, !clock.isPaused { clock.startedAt = now }
        let seeking = clock.seeking
        let played = position(clock, now: now)
        // Paused, only a move hands records over.
        let holds = clock.isPaused && seeking == nil
        var batches: [SourceBatch] = []
        var batch = SourceBatch()
        /// Where a move reads in tenths again (see ``readingUnit(at:tenthsFrom:)``).
        let tenthsFrom = finelyReadFrom(seeking)
        /// The unit of recording (see ``readingUnit(at:tenthsFrom:)``) the batch being filled
        /// holds.
        var currentUnit: Int?
        /// The unit of the dashboard's last reading, for a drain that goes on from it: a move
        /// that reads on from a cursor in a silence reads the silence's tenths too.
        let startUnit =
            clock.replacing
            ? nil : clock.lastReadingOffset.map { readingUnit(at: $0, tenthsFrom: tenthsFrom) }
        /// Hands `batch` over as one reading, at `offset` on the replay's clock, with the fleet
        /// as that reading left it (so that each app's rate is read as it played, not once at
        /// the end of a move), and starts the next.
        func close(_ batch: inout SourceBatch, readAt offset: Double) {
            Self.noteDrops(clock, in: &batch)
            if clock.recordedFleet != nil, clock.fleetChanged {
                clock.fleetChanged = false
                batch.fleet = Self.fleet(clock)
            }
            batch.sourceClock = firstTime + offset
            batches.append(batch)
            batch = SourceBatch()
        }
        /// Empty readings this drain may still make: a step back whose target lies after a long
        /// pause reads in tenths from well before it (see ``finelyReadFrom(_:)``).
        var emptyReadingsLeft = Self.maximumEmptyReadings
        /// Reads the tenths after `unit` and before `next` that a move reads in tenths and that
        /// held nothing, each at its end, as playing reads them frame by frame: a rate's window
        /// that starts in one then starts there, not at the last record before it. Only the
        /// last three seconds of them: a window ends at the cursor, at or after `next`.
        func readEmptyTenths(after unit: Int, before next: Int) {
            guard !batch.hasRecords, tenthsFrom.isFinite else { return }
            let firstTenth = Int((tenthsFrom * 10).rounded(.down))
            let tenthsKept = Int(Self.tenthsBeforeTheCursor * 10)
            var tenth = max(unit + 1, firstTenth, next - tenthsKept)
            while tenth < next, emptyReadingsLeft > 0 {
                close(&batch, readAt: max(clock.handedOver, readingUnitEnd(tenth) - 0.001))
                emptyReadingsLeft -= 1
                tenth += 1
            }
        }
        /// Starts the unit `unit` holds: the batch of the unit before, if it has records, is
        /// read at that unit's end, and the tenths between them that a move reads are read
        /// empty.
        func enter(_ unit: Int) {
            // Units only move on: the records after a hello stamped ahead of them (its time is
            // the app's own, apart from the records' order) stay in its unit, rather than make
            // a reading earlier than the one before.
            if let currentUnit, unit <= currentUnit { return }
            if let currentUnit, batch.hasRecords {
                // On the replay's clock, read at the end of its own unit (nothing happened after
                // its last record): the dashboard times changes by it and counts them in that
                // second, and a rate's window then starts on a second, as when it played.
                // (A millisecond before the end: the dashboard adds and subtracts the wall
                // clock's seconds since 1970, which a smaller step would not survive.)
                close(&batch, readAt: max(clock.handedOver, readingUnitEnd(currentUnit) - 0.001))
            }
            if let previous = currentUnit ?? startUnit, unit > previous {
                readEmptyTenths(after: previous, before: unit)
            }
            currentUnit = unit
        }
        var taken = 0
        var bytes = 0
        var eventTaken = false
        // A step on reads as far as a move back would at most, however long the next event
        // is in coming: the cursor then stands after what it read.
        while !holds, clock.delivered < itemCount, !(seeking == .throughNextEvent && eventTaken),
            !(seeking == .throughNextEvent && taken >= Self.warmUpRecords),
            seeking != nil || (taken < Self.maximumRecordsPerDrain && bytes < Self.maximumBytesPerDrain)
        {
            if clock.pending == nil { clock.pending = readNext(&clock) }
            guard let (next, offset, length) = clock.pending else { break }
            if Self.isPast(seeking, pending: offset, delivered: clock.delivered, played: played) {
                break
            }
            guard case .item(let item) = next else {
                // A hello goes on in the batch, where it was: a recording or headless output of
                // the replay writes it there.
                if case .hello(let found) = next, clock.hello != found {
                    enter(readingUnit(at: offset, tenthsFrom: tenthsFrom))
                    batch.records.append(.hello(found))
                }
                play(next, at: offset, &clock)
                clock.pending = nil
                continue
            }
            let pending = (item: item, offset: offset, length: length)
            var saysBack = true
            if case .detached = pending.item.record { saysBack = false }
            noteSilence(&clock, endedBy: pending.offset, saysBack: saysBack)
            // One batch a second of the recording's clock (a tenth in the first two seconds,
            // where the first reading is where the rates start from and there would be no
            // other, and in the three before a move's cursor), and one ending at each snapshot, while playing and while a move reads up
            // to its cursor alike: each batch is one reading of the rates, so that a second's
            // records count in that second whichever way the cursor got there, not in the next
            // because a frame's drain ended just past it.
            enter(readingUnit(at: pending.offset, tenthsFrom: tenthsFrom))
            bytes += pending.length
            switch pending.item.record {
            case .dropped(let drops):
                clock.dropped = drops.events
                clock.droppedCalls = drops.calls
                clock.droppedLifecycle = drops.lifecycle
                clock.droppedPastTheLimit = drops.fromAppsPastTheLimit
            case .event:
                clock.lastEvent = clock.delivered
                clock.lastLine = clock.delivered
                eventTaken = true
                batch.records.append(pending.item.record)
            case .lifecycle:
                clock.lastLine = clock.delivered
                batch.records.append(pending.item.record)
            case .detached(let detach):
                // Said when the live monitor said it; the status says so until the next hello.
                // One that names another app than the hello in effect (written by hand, or a
                // stranger's) is passed on but says nothing.
                if let hello = clock.hello, detach.isDetach(from: hello) {
                    clock.detached = true
                    clock.notices.append(SourceNotice(time: firstTime + pending.offset, text: detach.notice))
                }
                batch.records.append(pending.item.record)
            default:
                batch.records.append(pending.item.record)
            }
            if pending.item.restartsCounters { batch.countersRestarted = true }
            Self.hear(pending.item.record, &clock)
            clock.handedOver = pending.offset
            clock.lastHeard = pending.offset
            clock.pending = nil
            clock.delivered += 1
            taken += 1
            // Each snapshot is a reading of its own, at its time: the dashboard notes what the
            // subscribers did between two readings (a drop, a cleanup), and two snapshots in one
            // batch, which a move's second-long batches would make, would add their changes up.
            if case .snapshot = pending.item.record { close(&batch, readAt: pending.offset) }
            // And each `dropped` line ends one, which then carries its counts and its time: a
            // recording or headless output of the replay writes the line there, as it was.
            if case .dropped(let drops) = pending.item.record {
                batch.droppedAt = drops.time
                close(&batch, readAt: pending.offset)
            }
        }
        if let seeking {
            // The cursor stays where it moved to; playing goes on from there.
            clock.seeking = nil
            if case .offset(let target) = seeking {
                clock.playedBefore = min(max(target, 0), duration)
            } else {
                clock.playedBefore = clock.handedOver
            }
            clock.startedAt = clock.isPaused ? nil : now
        }
        // Close the file once everything has played: a hello or a fleet line after the last
        // record (an app that fell silent, then turned gone) plays when the cursor reaches it.
        if clock.delivered >= itemCount {
            while let (next, offset, length) = clock.pending ?? readNext(&clock) {
                if holds || Self.isPast(seeking, pending: offset, delivered: clock.delivered, played: played)
                {
                    clock.pending = (next, offset, length)
                    break
                }
                if case .hello(let found) = next, clock.hello != found { batch.records.append(.hello(found)) }
                play(next, at: offset, &clock)
                clock.pending = nil
            }
            if clock.pending == nil { clock.reader = nil }
        }
        // Records of a unit the cursor has left are read at that unit's end too, not at the
        // cursor: a frame that ends a little past a second would count them in the next one.
        let cursorUnit = readingUnit(at: min(cursor(clock, now: now), duration), tenthsFrom: tenthsFrom)
        if let previous = currentUnit ?? startUnit, cursorUnit > previous {
            if let currentUnit, batch.hasRecords {
                close(&batch, readAt: max(clock.handedOver, readingUnitEnd(currentUnit) - 0.001))
            }
            readEmptyTenths(after: previous, before: cursorUnit)
        }
        batches.append(batch)
        batches[0].replacesState = clock.replacing
        clock.replacing = false
        if !clock.checkedGrowth, Self.isFinished(clock, itemCount: itemCount) {
            clock.checkedGrowth = true
            noteGrowth(&clock)
        }
        noteSilence(&clock, until: min(cursor(clock, now: now), duration))
        batches[batches.count - 1].notices = clock.notices + clock.standingWarnings
        clock.notices = []
        clock.standingWarnings = []
        Self.noteDrops(clock, in: &batches[batches.count - 1])
        let cursor = cursor(clock, now: now)
        batches[batches.count - 1].status = status(clock, played: cursor, brief: false)
        batches[batches.count - 1].briefStatus = status(clock, played: cursor, brief: true)
        // The dashboard's rates and sparklines run on the cursor, and stand still with it.
        // An empty recording too: its header shows where the cursor is, not a clock of its own.
        if cursor.isFinite {
            batches[batches.count - 1].sourceClock = firstTime + min(cursor, duration)
            clock.lastReadingOffset = min(cursor, duration)
        }
        if clock.recordedFleet != nil, clock.fleetChanged {
            clock.fleetChanged = false
            batches[batches.count - 1].fleet = Self.fleet(clock)
        }
        return batches
    }

    /// Says, as the monitor that recorded said it live, that the attached app sent nothing for
    /// ``quietAfter`` seconds, if the cursor at `offset` stands that long after the newest line
    /// heard from it.
    private func noteSilence(_ clock: inout Clock, until offset: Double) {
        // Only between two records: where the recording ends, the monitor stopped watching.
        guard recordsAnAttach, !clock.saidQuiet, clock.delivered > 0, clock.delivered < itemCount,
            let hello = clock.hello, !clock.detached
        else { return }
        let quietAt = clock.lastHeard + quietAfter
        guard offset >= quietAt else { return }
        clock.saidQuiet = true
        clock.notices.append(
            SourceNotice(
                time: firstTime + quietAt,
                text: "\(hello.processName) is quiet: nothing from it for \(FleetState.format(quietAfter))"))
    }

    /// Before the record at `offset` is handed over: says the app fell quiet if it did since the
    /// last record, and, unless the record says it went away (`saysBack` false), that it is back.
    private func noteSilence(_ clock: inout Clock, endedBy offset: Double, saysBack: Bool) {
        noteSilence(&clock, until: offset)
        guard clock.saidQuiet else { return }
        clock.saidQuiet = false
        if saysBack, let hello = clock.hello, !clock.detached {
            clock.notices.append(SourceNotice(time: firstTime + offset, text: "\(hello.processName) is back"))
        }
    }

    /// Says that the file grew since the replay opened it, if it did: a recording still being
    /// written, which the replay ended where it ended then, and which a person watching the end
    /// would otherwise take for the whole.
    private func noteGrowth(_ clock: inout Clock) {
        guard let added = clock.file?.bytesAddedSinceRead() else { return }
        clock.notices.append(
            SourceNotice(
                time: firstTime + clock.latest,
                text: "\(path) grew by \(added) bytes while it played (it is still being "
                    + "written?): the replay ends where the file ended when it was opened; replay it "
                    + "again for the rest", isWarning: true))
    }

    /// What `decode` makes of the line at `position` of `file`, read again; `nil` when it cannot
    /// be read or decoded (the file changed since it was checked).
    private static func readLine<Value>(
        at position: RecordingLineReader.Position, of file: RecordingLineReader,
        _ decode: (ArraySlice<UInt8>) -> Value?
    ) -> Value? {
        guard let reader = try? file.reread(from: position), let line = try? reader.next() else { return nil }
        return decode(line.bytes)
    }

    /// Notes the app `record` came from, for the fleet list: as many apps as a fleet keeps.
    private static func hear(_ record: FeedRecord, _ clock: inout Clock) {
        guard let origin = record.origin, let time = record.time else { return }
        if tally(record, from: origin, at: time, into: &clock.heard) { clock.fleetChanged = true }
    }

    /// Counts `record` for the app it came from in `apps`, keeping its snapshot: as many apps
    /// as a fleet keeps. Returns whether it was counted.
    @discardableResult
    private static func tally(
        _ record: FeedRecord, from origin: EventOrigin, at time: Double,
        into apps: inout [EventOrigin: HeardApp],
        keepingSnapshots: Bool = true
    ) -> Bool {
        guard apps[origin] != nil || apps.count < FleetState.maximumMembers else { return false }
        var app = apps[origin] ?? HeardApp(lastSeen: time)
        app.lastSeen = max(app.lastSeen, time)
        switch record {
        case .event: app.events.clampedAdd(1)
        case .snapshot(let snapshot) where keepingSnapshots: app.snapshot = snapshot.snapshot
        default: break
        }
        apps[origin] = app
        return true
    }

    /// The fleet: the apps of the newest `fleet` line with the presence it gave them, as the
    /// monitor that recorded saw them, and their events and snapshots as the records handed
    /// over tell. An app the line leaves out is not listed, as the live list had forgotten it
    /// (an app that joins is in the line written with its first records).
    private static func fleet(_ clock: Clock) -> [FleetMember] {
        (clock.recordedFleet ?? []).map { recorded in
            var member = recorded
            let heard = clock.heard[recorded.origin]
            member.lastSeen = max(recorded.lastSeen, heard?.lastSeen ?? recorded.lastSeen)
            member.eventsReceived = heard?.events ?? 0
            member.snapshot = heard?.snapshot
            return member
        }
    }

    /// Whether a record at `pending` (seconds of recording), read when `delivered` records were
    /// handed over, lies past where the replay is now or is moving to.
    private static func isPast(
        _ seeking: SeekTarget?, pending: Double, delivered: Int, played: Double
    ) -> Bool {
        switch seeking {
        // A microsecond's slack: a target worked out as the cursor plus or minus ten seconds
        // must take the record stamped exactly there, whatever the rounding of the sum.
        case .offset(let target)?: return pending > target + 1e-6
        case .record(let index)?: return delivered >= index
        case .throughNextEvent?: return false
        case nil: return pending > played
        }
    }

    /// The header's account of the replay: where the cursor is in the recording, and whether
    /// it plays; `brief`, without the recording's length and the bar (`nil` when that would
    /// say the same).
    private func status(_ clock: Clock, played: Double, brief: Bool) -> String? {
        if isEmpty { return brief ? nil : "recording is empty" }
        if Self.isFinished(clock, itemCount: itemCount) {
            // An app that went away before the recording ended is still away at its end.
            if brief { return lastLineCutOff ? "replay finished" + (clock.detached ? " detached" : "") : nil }
            return (lastLineCutOff ? "replay finished (last line cut off)" : "replay finished")
                + (clock.detached ? " detached" : "")
        }
        let next = clock.pending?.offset ?? clock.latest
        let shown = Self.isAsFastAsPossible(clock.speed) && !clock.isPaused ? next : min(played, duration)
        var status =
            brief
            ? "replay \(Self.clockText(shown))"
            : "replay \(Self.clockText(shown)) / \(Self.clockText(duration)) \(Self.bar(shown, of: duration))"
        if clock.detached { status += " detached" }
        if clock.isPaused {
            status += " paused"
        } else if clock.speed != 1 {
            status +=
                Self.isAsFastAsPossible(clock.speed)
                ? " at full speed" : " at \(Self.speedText(clock.speed))x"
        }
        return status
    }

    /// The seconds `text` names: `72.4`, `1:12.4` or `1:01:12`; `nil` for anything else.
    package static func seconds(parsing text: String) -> Double? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(
            separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var seconds = 0.0
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            // Whole minutes and hours, under 60 where a larger unit comes first; the seconds
            // may have a fraction.
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || (isLast && $0 == ".")) }),
                let value = Double(part), value.isFinite
            else { return nil }
            if index > 0, value >= 60 { return nil }
            seconds = seconds * 60 + value
        }
        return seconds
    }

    /// `01:12.4`: minutes and seconds, to the nearest tenth; hours first past an hour.
    package static func clockText(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "--:--.-" }
        let tenths = Int((max(0, seconds) * 10).rounded())
        let (minutes, rest) = (tenths / 600, tenths % 600)
        let secondsText = "\(rest / 100)\(rest / 10 % 10).\(rest % 10)"
        if minutes >= 60 {
            let (hours, minute) = (minutes / 60, minutes % 60)
            return "\(hours):\(minute / 10)\(minute % 10):" + secondsText
        }
        return "\(minutes / 10)\(minutes % 10):" + secondsText
    }

    /// The stretch of recording whose records a replay hands over as one reading of the rates,
    /// on the recording's clock, as the dashboard's sparklines count: tenths of a second of the
    /// clock in the recording's first two seconds and from `tenthsFrom` (a whole second of the
    /// clock) on, whole seconds of it elsewhere (numbered as their last tenth, so that numbers
    /// only grow).
    func readingUnit(at offset: Double, tenthsFrom: Double) -> Int {
        let time = firstTime + offset
        return offset < 2 || time >= tenthsFrom
            ? Int((time * 10).rounded(.down)) : Int(time.rounded(.down)) * 10 + 9
    }

    /// Seconds of recording before a move's cursor that the move reads in tenths, as playing
    /// reads them frame by frame: the rates' two-second window then starts where it would
    /// have, not up to a second earlier, at the end of the whole second before it.
    static let tenthsBeforeTheCursor = 3.0

    /// Readings of tenths that held nothing one drain makes at most (see
    /// ``tenthsBeforeTheCursor``): thirty for a move to a moment, more only for a step back
    /// past a long pause.
    static let maximumEmptyReadings = 600

    /// The recording's time (a whole second of its clock) from which the reading towards
    /// `seeking` goes in tenths, or infinity when nothing moves the cursor (playing, or a step
    /// on to the next event).
    private func finelyReadFrom(_ seeking: SeekTarget?) -> Double {
        guard let seeking, seeking != .throughNextEvent else { return .infinity }
        // A step back's target is known as a record, not a time: the checkpoint before it is
        // at most a second of recording earlier, but for a pause.
        return (firstTime + estimate(seeking).offset - Self.tenthsBeforeTheCursor).rounded(.down)
    }

    /// Seconds into the recording where `unit` (see ``readingUnit(at:tenthsFrom:)``) ends.
    func readingUnitEnd(_ unit: Int) -> Double {
        Double(unit + 1) / 10 - firstTime
    }

    /// A step back in time in words: `2.5 s` under a minute, then as ``pauseText(_:)``.
    static func stepText(_ seconds: Double) -> String {
        seconds < 60 ? "\((seconds * 10).rounded() / 10) s" : pauseText(seconds)
    }

    /// A long stretch of time in words: `3 minutes`, `5 hours`, `12 days`, `79 years`.
    static func pauseText(_ seconds: Double) -> String {
        let (count, unit): (Double, String) =
            switch seconds {
            case ..<7_200: (seconds / 60, "minute")
            case ..<172_800: (seconds / 3_600, "hour")
            case ..<63_072_000: (seconds / 86_400, "day")
            default: (seconds / 31_557_600, "year")
            }
        let whole = Int(count.rounded(.down))
        return "\(whole) \(unit)\(whole == 1 ? "" : "s")"
    }

    /// `[###-------]`: how far `position` is into `length`, in ten cells.
    package static func bar(_ position: Double, of length: Double) -> String {
        // Clamped as a double first: a position past a tiny length (a recording changed while it
        // plays) makes an infinite share, which no Int holds.
        let share = length > 0 ? min(10, max(0, (position / length * 10).rounded(.down))) : 10
        let filled = share.isNaN ? 0 : Int(share)
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 10 - filled) + "]"
    }

    /// `+` and `-` for the speed, unless the replay plays at full speed, and the timeline:
    /// Space to pause and play, `,` and `.` to step one event back and forth, `<` and `>` to
    /// jump ten seconds.
    package var supportedCommands: [SourceCommandDescription] {
        let (fullSpeed, isPaused) = clock.withLock {
            // At the end Space plays the recording again, paused or not.
            (Self.isAsFastAsPossible($0.speed), $0.isPaused || Self.isFinished($0, itemCount: itemCount))
        }
        let timeline: [SourceCommandDescription] =
            isEmpty ? [] : [.replayPause(isPaused: isPaused), .replayStep, .replayJump, .replayFind]
        return (fullSpeed ? [] : [.replaySpeed]) + timeline
    }

    /// Seconds `<` and `>` move the cursor.
    package static let jumpSeconds = 10.0

    /// `increaseRate` doubles the speed and `decreaseRate` halves it; the timeline's commands
    /// pause or play, step and jump (see ``supportedCommands``). Others do not apply to a
    /// recording.
    ///
    /// - Returns: What changed, such as `replay speed 2x` or `paused at 01:12.4`, or a message
    ///   saying the command does not apply.
    package func perform(_ command: SourceCommand) -> String? {
        clock.withLock { clock in
            let now = playbackClock()
            // A replay that played to its end has stopped there, as a player that ended has: a
            // move leaves it paused where it lands (Space plays on), rather than playing the
            // rest at once, which for a recording shorter than a jump undoes the move unseen.
            let movesAtTheEnd =
                command.name == SourceCommand.goTo.name || command == .jumpBack || command == .jumpForward
            if movesAtTheEnd, !clock.isPaused, itemCount > 0, Self.isFinished(clock, itemCount: itemCount) {
                pause(&clock, now: now)
            }
            if command.name == SourceCommand.goTo.name {
                settle(&clock, now: now)
                guard let text = command.value, let seconds = Self.seconds(parsing: text), seconds >= 0 else {
                    return
                        "not a time: \(UntrustedText.escaped(String((command.value ?? "").prefix(40)))); type mm:ss, h:mm:ss or seconds"
                }
                return move(&clock, to: seconds, now: now) ?? "at \(Self.clockText(clock.playedBefore))"
            }
            settle(&clock, now: now)
            switch command {
            case .increaseRate, .decreaseRate:
                guard !Self.isAsFastAsPossible(clock.speed) else { return "replay: already at full speed" }
                clock.playedBefore = position(clock, now: now)
                clock.startedAt = clock.startedAt == nil ? nil : now
                // Between 1/64 and 1024, or the speed given on the command line beyond them:
                // `-` never makes a replay faster, nor `+` slower.
                let doubled = clock.speed * (command == .increaseRate ? 2 : 0.5)
                clock.speed = min(max(doubled, min(1.0 / 64, clock.speed)), max(1024, clock.speed))
                return "replay speed \(Self.speedText(clock.speed))x"
            case .togglePlayback:
                if clock.isPaused && itemCount > 0 && clock.delivered >= itemCount
                    && cursor(clock, now: now) >= duration
                    || Self.isFinished(clock, itemCount: itemCount)
                        && itemCount > 0
                {
                    // At the end, play means from the start again, as a player's does.
                    clock.isPaused = false
                    if let problem = move(&clock, to: 0, now: now) { return problem }
                    return "playing from the start"
                }
                if clock.isPaused {
                    clock.isPaused = false
                    clock.startedAt = now
                    return "playing from \(Self.clockText(clock.playedBefore))"
                }
                pause(&clock, now: now)
                return "paused at \(Self.clockText(clock.playedBefore))"
            case .stepForward:
                pause(&clock, now: now)
                guard clock.delivered < itemCount else { return "at the end of the recording" }
                // Up to the next event, and the event: where the cursor stands after it.
                clock.seeking = .throughNextEvent
                return "one event on"
            case .stepBack:
                pause(&clock, now: now)
                guard let lastEvent = clock.lastEvent else { return "at the first event" }
                return seek(&clock, to: .record(lastEvent)) ?? "one event back"
            case .jumpForward, .jumpBack:
                let cursor = cursor(clock, now: now)
                let target = cursor + (command == .jumpForward ? 1 : -1) * Self.jumpSeconds
                return move(&clock, to: target, now: now) ?? "at \(Self.clockText(clock.playedBefore))"
            default:
                return "replay: commands do not apply to a recording"
            }
        }
    }

    /// Moves the cursor to the next log line (an event or a lifecycle change) that `matching`
    /// accepts, or to the previous one, and pauses: the line is then the newest the log shows.
    ///
    /// The search reads the recording from a checkpoint, not the records in memory: forward to
    /// the end at most, back a checkpoint's stretch at a time until a line matches.
    ///
    /// - Returns: Where the cursor went, such as `found at 01:12.4`, or why it did not move.
    package func find(forward: Bool, matching: @escaping @Sendable (FeedRecord) -> Bool) -> String? {
        clock.withLock { clock in
            settle(&clock, now: playbackClock())
            pause(&clock, now: playbackClock())
            settle(&clock, now: playbackClock())
            guard let file = clock.file else { return "replay: the recording cannot be read again" }
            let found: (index: Int, offset: Double)?
            do {
                if forward {
                    found = try firstLine(
                        in: file, from: clock.delivered, before: itemCount, matching: matching)
                } else {
                    found = try lastLine(in: file, before: clock.lastLine ?? 0, matching: matching)
                }
            } catch {
                return "replay: \(error)"
            }
            guard let found else {
                return forward ? "no later line matches" : "no earlier line matches"
            }
            if let problem = seek(&clock, to: .record(found.index + 1)) { return problem }
            return "found at \(Self.clockText(found.offset))"
        }
    }

    /// The first line from record `start` on, before record `end`, that `matching` accepts.
    ///
    /// The reclaims of one moment (each object's reported once per event type, the objects'
    /// reports interleaved when several died at once) are one place: each report is judged as
    /// its object's line, and the place found is the moment's last report, so that every line
    /// of it shows whole.
    private func firstLine(
        in file: RecordingLineReader, from start: Int, before end: Int,
        matching: (FeedRecord) -> Bool
    ) throws(RecordingError) -> (index: Int, offset: Double)? {
        let checkpoint = checkpoints.last { $0.delivered <= start } ?? checkpoints[0]
        let reader = try file.reread(from: checkpoint.position)
        var index = checkpoint.delivered
        var run = ReclaimRun()
        var found: (index: Int, offset: Double)?
        while index < end, let record = try Self.nextItem(reader) {
            defer { index += 1 }
            let continues = run.continues(with: record)
            if let line = found {
                guard continues else { return line }
                found = (index, line.offset)
                continue
            }
            guard index >= start, Self.isLogLine(record), matching(record) else { continue }
            found = (index, max(0, (record.time ?? firstTime) - firstTime))
        }
        return found
    }

    /// The last line before record `end` (the line at the cursor) that `matching` accepts, read
    /// back a checkpoint's stretch at a time; an object's reclaim is one line, as for
    /// ``firstLine(in:from:before:matching:)``, and the one the cursor's line belongs to is not
    /// a line before it.
    private func lastLine(
        in file: RecordingLineReader, before end: Int, matching: (FeedRecord) -> Bool
    ) throws(RecordingError) -> (index: Int, offset: Double)? {
        var upper = end
        var stretch = checkpoints.lastIndex { $0.delivered < end }
        while var current = stretch {
            // A stretch of a reader's buffer at least: each reader reads that much anyway.
            let upperOffset = checkpoints[current].position.offset
            while current > 0,
                upperOffset - checkpoints[current - 1].position.offset < RecordingLineReader.bufferSize / 2
            {
                current -= 1
            }
            let checkpoint = checkpoints[current]
            let reader = try file.reread(from: checkpoint.position)
            var index = checkpoint.delivered
            var run = ReclaimRun()
            var found: (index: Int, offset: Double)?
            var earlier: (index: Int, offset: Double)?
            var extending = false
            // One record past the stretch: whether the last line found goes on into the cursor's.
            while index <= upper, let record = try Self.nextItem(reader) {
                defer { index += 1 }
                let continues = run.continues(with: record)
                if index == upper {
                    if extending, continues, upper == end { found = earlier }
                    break
                }
                if continues, extending {
                    found?.index = index
                    continue
                }
                if !continues { extending = false }
                guard Self.isLogLine(record), matching(record) else { continue }
                earlier = found
                found = (index, max(0, (record.time ?? firstTime) - firstTime))
                extending = Self.reclaimedObserver(record) != nil
            }
            if let found { return found }
            upper = checkpoint.delivered
            stretch = current > 0 ? current - 1 : nil
        }
        return nil
    }

    /// Reclaim reports in a row that make one place for `n` and `N`: those of one object, and
    /// of objects reclaimed at one moment (within ``ReclaimRun/moment`` of the first report;
    /// each report is stamped apart, a few microseconds from the one before).
    struct ReclaimRun {
        /// Seconds from a run's first report within which reports of other objects join it.
        static let moment = 0.001
        private var start: Double?
        private var observers: Set<ReclaimedObserver> = []

        /// Whether `record` goes on the run the records before it made; takes it in.
        mutating func continues(with record: FeedRecord) -> Bool {
            guard let observer = ReplaySource.reclaimedObserver(record), let time = record.time else {
                start = nil
                observers = []
                return false
            }
            if let start, observers.contains(observer) || abs(time - start) <= Self.moment {
                observers.insert(observer)
                return true
            }
            start = time
            observers = [observer]
            return false
        }
    }

    /// The observer whose reclaim `record` reports, when it reports one: its number within its
    /// app (two apps' #4 are two objects), and the app.
    fileprivate static func reclaimedObserver(_ record: FeedRecord) -> ReclaimedObserver? {
        guard case .lifecycle(let captured) = record, captured.change.kind == .reclaimed,
            let number = captured.change.observerID
        else { return nil }
        return ReclaimedObserver(origin: captured.origin, number: number)
    }

    /// An observer of one app, by its number there.
    fileprivate struct ReclaimedObserver: Hashable {
        let origin: EventOrigin?
        let number: UInt64
    }

    /// Whether the log shows `record` as a line.
    private static func isLogLine(_ record: FeedRecord) -> Bool {
        switch record {
        case .event, .lifecycle: return true
        default: return false
        }
    }

    /// The next record that plays, read from `reader`, as playback counts them; `nil` at the end.
    private static func nextItem(_ reader: RecordingLineReader) throws(RecordingError) -> FeedRecord? {
        while let line = try reader.next() {
            guard let record = try? line.record(), record.time != nil else { continue }
            return record
        }
        return nil
    }

    /// Pauses the replay and moves its cursor to `seconds` into the recording (its end at most),
    /// as `busmon --replay FILE --at TIME` starts.
    ///
    /// - Returns: Why the cursor could not move, or `nil`.
    package func pause(at seconds: Double) -> String? {
        clock.withLock { clock in
            let now = playbackClock()
            pause(&clock, now: now)
            return move(&clock, to: seconds, now: now)
        }
    }

    /// Adds a warning to the notices of the next drain: in the dashboard's log, or on stderr
    /// when headless.
    package func warn(_ text: String) {
        clock.withLock { clock in
            // Stamped with the recording's time at the cursor, among the lines around it.
            let time = firstTime + min(cursor(clock, now: playbackClock()), duration)
            clock.standingWarnings.append(SourceNotice(time: time, text: text, isWarning: true))
        }
    }

    /// Moves the cursor to `seconds` into the recording (within it), playing on from there if it
    /// played. The cursor is there at once, so that the next jump goes on from it.
    ///
    /// - Returns: Why the cursor could not move, or `nil`.
    private func move(_ clock: inout Clock, to seconds: Double, now: Double) -> String? {
        let target = min(duration, max(0, seconds))
        if let problem = seek(&clock, to: .offset(target)) { return problem }
        clock.playedBefore = target
        if !clock.isPaused { clock.startedAt = now }
        return nil
    }

    /// Seconds into the recording where the cursor stands.
    package var cursor: Double {
        clock.withLock { cursor($0, now: playbackClock()) }
    }

    /// The recording's time at `offset` seconds into it.
    package func recordingTime(at offset: Double) -> Double { firstTime + offset }

    /// Where the cursor stands, in seconds of recording: where it was paused, the last record
    /// handed over when playing as fast as the monitor drains, or where playback has reached.
    private func cursor(_ clock: Clock, now: Double) -> Double {
        if clock.isPaused { return clock.playedBefore }
        if Self.isAsFastAsPossible(clock.speed) { return clock.handedOver }
        return min(position(clock, now: now), duration)
    }

    /// Stops the cursor where playback is now. The records up to it that have not been handed
    /// over yet come with the next drain; after that, a paused replay hands over nothing until
    /// the cursor moves (a record stamped the same as the cursor waits for it too).
    private func pause(_ clock: inout Clock, now: Double) {
        guard !clock.isPaused else { return }
        clock.playedBefore = cursor(clock, now: now)
        clock.isPaused = true
        clock.startedAt = nil
        if clock.seeking == nil { clock.seeking = .offset(clock.playedBefore) }
    }

    /// Moves the cursor to `target`: forward by reading on when that is close, otherwise by
    /// reading again from the checkpoint a minute (or 60,000 records, but three seconds at
    /// least) before it, the dashboard
    /// told to start over. The records up to the target come with the next drain.
    ///
    /// - Returns: Why the cursor could not move, or `nil`.
    private func seek(_ clock: inout Clock, to target: SeekTarget) -> String? {
        let (targetOffset, targetRecords) = estimate(target)
        let readsOn: Bool
        switch target {
        case .throughNextEvent:
            readsOn = true
        case .offset(let offset):
            readsOn =
                offset >= clock.latest && offset - clock.latest <= Self.warmUpSeconds
                && (targetRecords - clock.delivered <= Self.warmUpRecords
                    || (offset - clock.latest <= Self.minimumWarmUpSeconds
                        && targetRecords - clock.delivered <= Self.maximumWarmUpRecords))
        case .record(let index):
            readsOn =
                index >= clock.delivered && targetOffset - clock.latest <= Self.warmUpSeconds
                && (index - clock.delivered <= Self.warmUpRecords
                    || (targetOffset - clock.latest <= Self.minimumWarmUpSeconds
                        && index - clock.delivered <= Self.maximumWarmUpRecords))
        }
        // A move that reads again and has not been drained yet starts from where this one
        // needs, not from where it needed.
        if readsOn, !clock.replacing || target == .throughNextEvent {
            clock.seeking = target
            return nil
        }
        guard let file = clock.file else { return "replay: the recording cannot be read again" }
        var start = checkpoints.lastIndex { $0.delivered <= targetRecords } ?? 0
        // Its first record no later than the target: a target in a long pause lies after the
        // last checkpoint before the pause, not before the first after it.
        while start > 0, checkpoints[start].offset > targetOffset + 1e-6 { start -= 1 }
        while start > 0, targetOffset - checkpoints[start].latest < Self.warmUpSeconds,
            targetRecords - checkpoints[start].delivered < Self.warmUpRecords
                || (targetOffset - checkpoints[start].latest < Self.minimumWarmUpSeconds
                    && targetRecords - checkpoints[start].delivered < Self.maximumWarmUpRecords)
        {
            start -= 1
        }
        // A checkpoint right after a long pause reads from the stretch before the pause too: the
        // bus as it was when the pause began (its last snapshot) is what the cursor shows, what
        // the pause holds (a detach, a new process's hello) is said again, and the rates have
        // readings before the new records. Asked of the checkpoint the warm-up stopped at, not
        // the one it started from: a cursor more than a minute past the pause's start stops it
        // right after the pause, from a later checkpoint (the record after the first past a
        // pause makes another at once), and read from there a new process was said to be quiet
        // since the old one's last record, then back, and its first records made a rate alone.
        if start > 0, checkpoints[start].offset - checkpoints[start].latest >= Self.minimumWarmUpSeconds {
            start -= 1
        }
        // A fleet's apps are counted from the tally before it: the Fleet pane's counts are the
        // recording's, not those of the minute read again.
        // A tally further back than a move reads at most (a long recording of many apps,
        // thinned) is passed over: the counts then start with the records read, as the bound
        // on a move's reading matters more.
        var heard: [EventOrigin: HeardApp] = [:]
        if let tally = fleetTallies.last(where: { $0.checkpoint <= start }),
            checkpoints[start].delivered - checkpoints[tally.checkpoint].delivered
                <= Self.maximumWarmUpRecords
        {
            start = tally.checkpoint
            heard = tally.apps
        }
        let checkpoint = checkpoints[start]
        do {
            clock.reader = try file.reread(from: checkpoint.position)
        } catch {
            return "replay: \(error)"
        }
        // What was held is replaced too: the dashboard starts over from the checkpoint.
        clock.held = []
        clock.pending = nil
        clock.latest = checkpoint.latest
        clock.handedOver = checkpoint.latest
        clock.lastHeard = checkpoint.latest
        clock.delivered = checkpoint.delivered
        clock.dropped = checkpoint.drops.events
        clock.droppedCalls = checkpoint.drops.calls
        clock.droppedLifecycle = checkpoint.drops.lifecycle
        clock.droppedPastTheLimit = checkpoint.drops.fromAppsPastTheLimit
        clock.countersStartOver = true
        clock.hello =
            checkpoint.helloLine.flatMap {
                Self.readLine(at: $0, of: file) { line in
                    if case .hello(let found)? = try? FeedRecord.decode(line: line) { found } else { nil }
                }
            } ?? hello
        if start == 0, recordsAnAttach {
            if checkpoint.helloLine == nil {
                // The first hello comes after the first record: read again, it says so again.
                clock.hello = nil
            } else if let first = clock.hello {
                // The log starts over from the first record, after the first hello: its line
                // (`attached to …`) is the log's first, as when the replay played from the start.
                clock.notices.append(
                    SourceNotice(
                        time: firstTime + max(0, min(first.time - firstTime, duration)),
                        text: first.attachNotice(after: nil).text))
            }
        }
        clock.detached = checkpoint.detached
        clock.saidQuiet = false
        clock.recordedFleet = checkpoint.fleetLine.flatMap {
            Self.readLine(at: $0, of: file) { FleetLine.decode($0)?.members }
        }
        clock.heard = heard
        clock.fleetChanged = true
        clock.lastEvent = checkpoint.lastEvent
        clock.lastLine = checkpoint.lastLine
        clock.replacing = true
        clock.seeking = target
        return nil
    }

    /// The offset and the record index of `target`, one of them from the checkpoints.
    private func estimate(_ target: SeekTarget) -> (offset: Double, records: Int) {
        switch target {
        case .offset(let offset):
            let after = checkpoints.first { $0.latest > offset }
            return (offset, after?.delivered ?? itemCount)
        case .record(let index):
            let before = checkpoints.last { $0.delivered <= index }
            return (before?.latest ?? 0, index)
        case .throughNextEvent:
            return (0, 0)
        }
    }

    /// Recording seconds played by `now`.
    private func position(_ clock: Clock, now: Double) -> Double {
        if clock.isPaused { return clock.playedBefore }
        if Self.isAsFastAsPossible(clock.speed) { return .infinity }
        guard let startedAt = clock.startedAt else { return clock.playedBefore }
        return clock.playedBefore + (now - startedAt) * clock.speed
    }

    private static func isAsFastAsPossible(_ speed: Double) -> Bool {
        speed == 0 || speed > 1_000_000
    }

    /// A speed as the header shows it: `4.0` and `0.5` at one decimal when that is exact
    /// enough, else as many as a speed of one thousandth up needs (`0.25`, `0.01`, `0.001`).
    static func speedText(_ speed: Double) -> String {
        guard speed < 10, (speed * 10).rounded() != speed * 10 else { return format(speed) }
        let thousandths = Int((speed * 1000).rounded())
        let fraction = String(thousandths % 1000)
        var text = "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
        while text.hasSuffix("0") && !text.hasSuffix(".0") { text.removeLast() }
        return text
    }

    private static func format(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        guard tenths.isFinite, abs(tenths) < 1e15 else { return "\(value)" }
        let whole = Int(tenths) / 10
        let fraction = abs(Int(tenths) % 10)
        return "\(whole).\(fraction)"
    }
}
