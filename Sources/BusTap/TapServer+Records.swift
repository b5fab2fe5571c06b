import BusWire
import EventBus

extension TapServer {
    // MARK: - Records

    /// Moves what publishers left in the inbox into the history, in publishing order.
    func collect() {
        guard let drained = inbox?.drain(keepingAtMost: inboxLimit) else { return }
        eventsPublished = drained.eventsAppended
        var lifecycleSequence = drained.firstLifecycleSequence
        for record in drained.records {
            switch record {
            case .event(let event):
                history.append(.event(event))
            case .lifecycle(let change):
                history.append(.lifecycle(sequence: lifecycleSequence, change))
                lifecycleSequence += 1
            case .call(let call):
                // Calls observed just before the last reader withdrew its request are left out.
                if callToken != nil {
                    callsKept += 1
                    history.append(.call(sequence: callsKept, call))
                }
            default:
                break
            }
        }
        droppedCalls = drained.droppedCalls
    }

    /// Moves records to the output of every reader that has room, formatting each record once
    /// however many readers take it, with `snapshot` (see ``snapshotLine()``) in its place
    /// among them.
    func pumpRecords(with snapshot: SnapshotLine? = nil) {
        let before = history.end
        // Every round, so that the history always ends with the newest events, however far
        // behind the readers are.
        collect()
        if let snapshot { place(snapshot, amongRecordsFrom: before) }
        for client in clients { client.takenThisRound = 0 }
        pumpHistory()
        // A round in which every reader caught up asks for no limit.
        let behind = clients.contains { $0.cursor.position < history.end }
        recentlyTaken.append(behind ? clients.map(\.takenThisRound).max() ?? 0 : capacity)
        if recentlyTaken.count > Self.roundsRemembered { recentlyTaken.removeFirst() }
        noteLostTail()
    }

    /// Events the inbox keeps until the next round: all it can hold while the readers keep up;
    /// once a reader has been behind for ``roundsRemembered`` rounds in a row, a quarter
    /// more than the most eager one took in a round lately. So an app publishing faster than
    /// its monitors read pays a load and an increment for each event nobody would read, rather
    /// than storing it, and the tap does not copy and encode it; a burst after the readers kept
    /// up is kept whole. A round in which every reader catches up lifts the limit. Events dropped
    /// there reach the readers as drops, as those the history loses do.
    var inboxLimit: Int {
        let taken = recentlyTaken.count < Self.roundsRemembered ? capacity : recentlyTaken.max() ?? capacity
        return min(capacity, max(Self.minimumInboxLimit, taken + taken / 4))
    }

    func pumpHistory() {
        let end = history.end
        while true {
            let wanting = clients.filter { $0.wantsRecords && $0.cursor.position < end }
            guard let lowest = wanting.map(\.cursor.position).min() else { return }
            let low = max(lowest, history.oldest)
            let high = min(end, low + 256)
            encoded.bytes.removeAll(keepingCapacity: true)
            lineEnds.removeAll(keepingCapacity: true)
            for position in low..<high {
                encode(history[position], into: &encoded)
                lineEnds.append(encoded.bytes.count)
            }
            for client in wanting where client.cursor.position < high {
                let first = max(client.cursor.position, low)
                client.takenThisRound += high - first
                for position in first..<high {
                    client.writeSnapshots(reaching: position)
                    // Calls go only to the readers that asked for them.
                    if case .call = history[position], !client.wantsCalls { continue }
                    noteGaps(before: history[position], for: client)
                    let index = position - low
                    let start = index == 0 ? 0 : lineEnds[index - 1]
                    client.output.append(contentsOf: encoded.bytes[start..<lineEnds[index]])
                }
                client.cursor.position = high
                // Events the inbox dropped after the history's newest come before a snapshot
                // held for the end, which counts them: said first, as a closing tap's last
                // round, which a reader takes in pieces, needs them said.
                if high == history.end { noteLostTail(of: client) }
                client.writeSnapshots(reaching: high)
            }
        }
    }

    /// Counts, for readers that have read the whole history, the events published since that
    /// never reached it (the inbox overflowed), since no later event would reveal the gap yet.
    func noteLostTail() {
        for client in clients where client.cursor.position == history.end { noteLostTail(of: client) }
    }

    /// ``noteLostTail()`` for one reader, which has read the whole history.
    func noteLostTail(of client: Client) {
        guard eventsPublished >= client.cursor.nextEvent else { return }
        client.droppedEvents += eventsPublished - client.cursor.nextEvent + 1
        client.cursor.nextEvent = eventsPublished + 1
        appendDrops(to: client)
    }

    func encode(_ entry: TapHistory.Entry, into writer: inout JSONLineWriter) {
        switch entry {
        case .event(let event):
            writer.write(event, payloads: payloads)
        case .lifecycle(_, let change):
            writer.write(.lifecycle(change))
        case .call(_, let call):
            writer.write(call)
        }
    }

    /// Counts the records a reader lost before `entry`, and tells it when the count grew.
    func noteGaps(before entry: TapHistory.Entry, for client: Client) {
        var grew = false
        switch entry {
        case .event(let event):
            let sequence = event.sequence
            if sequence > client.cursor.nextEvent {
                client.droppedEvents += sequence - client.cursor.nextEvent
                grew = true
            }
            client.cursor.nextEvent = max(client.cursor.nextEvent, sequence + 1)
        case .lifecycle(let sequence, _):
            if sequence > client.cursor.nextLifecycle {
                client.droppedLifecycle += sequence - client.cursor.nextLifecycle
                grew = true
            }
            client.cursor.nextLifecycle = max(client.cursor.nextLifecycle, sequence + 1)
        case .call(let sequence, _):
            if sequence > client.nextCall {
                client.callsSkipped += sequence - client.nextCall
            }
            client.nextCall = max(client.nextCall, sequence + 1)
        }
        if client.wantsCalls && client.droppedCalls(inboxDrops: droppedCalls) != client.droppedCallsTold {
            client.droppedCallsTold = client.droppedCalls(inboxDrops: droppedCalls)
            grew = true
        }
        // Stamped as the record it comes before: a reader behind reads it among records of
        // that moment, not of now.
        if grew { appendDrops(to: client, at: entry.time) }
    }

    /// At close, for a reader too far behind to take the rest in time: leaves it the line it is
    /// in the middle of and the hello, if it has not read that, drops every other record it
    /// has not been sent, and gives it instead a `dropped` line counting them with its earlier
    /// losses, then the last snapshot. Its totals then add up to what the app published, as a
    /// reader's that kept up do.
    func cutBacklog(of client: Client) {
        let newline = UInt8(ascii: "\n")
        var keep = client.sent
        let insideALine = keep > 0 ? client.output[keep - 1] != newline : client.outputStartsInsideALine
        if insideALine {
            keep = (client.output[keep...].firstIndex(of: newline) ?? client.output.count - 1) + 1
        }
        var events = 0
        var lifecycleChanges = 0
        var calls = 0
        var hellos: [UInt8] = []
        var lastSnapshot: ArraySlice<UInt8>?
        var start = keep
        while start < client.output.count {
            let end = (client.output[start...].firstIndex(of: newline) ?? client.output.count - 1) + 1
            let line = client.output[start..<end]
            // Every line this tap writes starts with its kind.
            if line.starts(with: Self.eventLineStart) {
                events += 1
            } else if line.starts(with: Self.lifecycleLineStart) {
                lifecycleChanges += 1
            } else if line.starts(with: Self.callLineStart) {
                calls += 1
            } else if line.starts(with: Self.snapshotLineStart) {
                lastSnapshot = line
            } else if line.starts(with: Self.helloLineStart) {
                hellos.append(contentsOf: line)
            }
            // Earlier `dropped` lines go: the one written below holds their counts.
            start = end
        }
        let lastSnapshotLine = client.pendingSnapshots.last.map { ArraySlice($0.line) } ?? lastSnapshot
        client.output.removeSubrange(keep...)
        client.output.append(contentsOf: hellos)
        client.pendingSnapshots = []
        // What it has not reached in the history, and what never reached the history, counted
        // by their numbers: the numbers of the records cut above were taken already.
        var lastLifecycle = 0
        var lastCall = 0
        for position in max(client.cursor.position, history.oldest)..<history.end {
            switch history[position] {
            case .event: break
            case .lifecycle(let sequence, _): lastLifecycle = sequence
            case .call(let sequence, _): lastCall = sequence
            }
        }
        client.cursor.position = history.end
        client.droppedEvents += events + max(0, eventsPublished - client.cursor.nextEvent + 1)
        client.cursor.nextEvent = max(client.cursor.nextEvent, eventsPublished + 1)
        client.droppedLifecycle += lifecycleChanges + max(0, lastLifecycle - client.cursor.nextLifecycle + 1)
        client.cursor.nextLifecycle = max(client.cursor.nextLifecycle, lastLifecycle + 1)
        if client.wantsCalls {
            client.callsSkipped += calls + max(0, lastCall - client.nextCall + 1)
            client.nextCall = max(client.nextCall, lastCall + 1)
            client.droppedCallsTold = client.droppedCalls(inboxDrops: droppedCalls)
        }
        appendDrops(to: client)
        if let lastSnapshotLine { client.output.append(contentsOf: lastSnapshotLine) }
    }

    private static let eventLineStart = Array(#"{"kind":"event""#.utf8)
    private static let lifecycleLineStart = Array(#"{"kind":"lifecycle""#.utf8)
    private static let callLineStart = Array(#"{"kind":"call""#.utf8)
    private static let snapshotLineStart = Array(#"{"kind":"snapshot""#.utf8)
    private static let helloLineStart = Array(#"{"kind":"hello""#.utf8)

    /// Tells `client` the counts of what it lost so far, in a line stamped `time` (now when
    /// `nil`).
    func appendDrops(to client: Client, at time: Double? = nil) {
        var writer = JSONLineWriter()
        writer.write(
            FeedDrops(
                time: time ?? WallClock.now(), events: client.droppedEvents,
                lifecycle: client.droppedLifecycle, calls: client.droppedCallsTold)
        )
        client.output.append(contentsOf: writer.bytes)
    }

    /// The bus's counters, with up to ``FeedSnapshot/instancesPerClass`` observer objects of
    /// each class, so a monitor can list them.
    func takeSnapshot() -> BusSnapshot {
        bus.snapshot(instancesPerClass: FeedSnapshot.instancesPerClass)
    }

    /// A `snapshot` line and when it was taken.
    struct SnapshotLine {
        let time: Double
        let bytes: [UInt8]
    }

    /// The bus's snapshot now, as a line, taken before the round's drain of the inbox: what the
    /// app published before it, which it counts, is then in the history when it is placed.
    func snapshotLine() -> SnapshotLine {
        let time = WallClock.now()
        var writer = JSONLineWriter(reservingCapacity: 4096)
        writer.writeSnapshot(time: time, takeSnapshot(), tap: counters, redacting: redaction)
        return SnapshotLine(time: time, bytes: writer.bytes)
    }

    /// Gives every reader `snapshot` where it belongs among the records the round took in from
    /// `before` on: before the first stamped after it. The tap's thread runs below the app's and
    /// may have waited long since its last round, so those records may be many. A reader with
    /// records to read before that place gets it when it reaches it (``Client/holdSnapshot(_:at:)``).
    func place(_ snapshot: SnapshotLine, amongRecordsFrom before: Int) {
        var place = history.end
        for position in max(before, history.oldest)..<history.end where history[position].time > snapshot.time
        {
            place = position
            break
        }
        for client in clients {
            if client.cursor.position < place {
                client.holdSnapshot(snapshot.bytes, at: place)
            } else if client.pendingBytes < 2 * Self.outputHighWater {
                // A reader far behind in taking its output skips this one; the next supersedes it.
                client.output.append(contentsOf: snapshot.bytes)
            }
        }
    }

    func flush() {
        var gone: [Client] = []
        var now: Double?
        for client in clients where client.pendingBytes > 0 {
            guard let sent = System.sendAvailable(client.descriptor, client.output, from: client.sent)
            else {
                gone.append(client)
                continue
            }
            if sent > 0 {
                client.stalledSince = nil
            } else {
                // The reader's socket buffer is full: it has taken nothing since it filled.
                let time = now ?? MonotonicClock.now()
                now = time
                if let since = client.stalledSince {
                    if time - since >= idleTimeout {
                        idleDisconnections += 1
                        gone.append(client)
                        continue
                    }
                } else {
                    client.stalledSince = time
                }
            }
            client.sent += sent
            if client.sent == client.output.count {
                client.output.removeAll(keepingCapacity: client.output.capacity <= 2 * Self.outputHighWater)
                client.sent = 0
                // Every line written ends in a newline: all of it sent ends a line.
                client.outputStartsInsideALine = false
            } else if client.sent > Self.outputHighWater {
                client.outputStartsInsideALine = client.output[client.sent - 1] != UInt8(ascii: "\n")
                client.output.removeFirst(client.sent)
                client.sent = 0
            }
        }
        remove(gone)
    }
}
