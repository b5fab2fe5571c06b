internal import BusMonitor
internal import BusWire
internal import EventBus

/// What the dashboard knows of handlers: their calls, times and failures per observer class and
/// type from the newest snapshot, and the stopped cascades, failures, slow calls and slow
/// deliveries reported.
struct HandlerTracker: Equatable {
    /// The newest snapshot's rows, worst first.
    private(set) var rows: [HandlerStatistics] = []
    /// Cascades the bus stopped, as reported.
    private(set) var cascadesStopped = 0
    /// Handler failures reported (the bus reports a hundred a second at most; the snapshot's
    /// rows count every one).
    private(set) var failuresReported = 0
    /// Slow handler calls reported (ten a second at most).
    private(set) var slowCallsReported = 0
    /// Slow deliveries reported (ten a second at most).
    private(set) var slowDeliveriesReported = 0

    /// The rows' totals, added up once per snapshot rather than in every frame that shows them,
    /// held at `Int.max`: the counts come from an app.
    private var rowTotals = RowTotals()

    private struct RowTotals: Equatable {
        var failures = 0
        var slowCalls = 0
        var slowDeliveries = 0
        var dropped = 0
    }

    /// Whether there is anything for the Handlers pane to list.
    var hasRows: Bool { !rows.isEmpty }

    /// Failures: the snapshot's exact count when there is one, else those reported.
    var failures: Int { max(failuresReported, rowTotals.failures) }

    /// Slow calls: the snapshot's exact count when there is one, else those reported.
    var slowCalls: Int { max(slowCallsReported, rowTotals.slowCalls) }

    /// Deliveries that waited past the bus's threshold to start: the snapshot's exact count when
    /// there is one, else those reported.
    var slowDeliveries: Int { max(slowDeliveriesReported, rowTotals.slowDeliveries) }

    /// Events that subscribers' bounded buffers (async streams) dropped, per the snapshot.
    var dropped: Int { rowTotals.dropped }

    /// Counts a reported change.
    mutating func apply(_ change: SubscriberLifecycleEvent) {
        switch change.kind {
        case .cascadeStopped: cascadesStopped += 1
        case .handlerFailed: failuresReported.clampedAdd(change.count)
        case .slowHandler: slowCallsReported.clampedAdd(change.count)
        case .slowDelivery: slowDeliveriesReported.clampedAdd(change.count)
        default: break
        }
    }

    /// Starts the reported counts again, with a new process whose counters restart: the header
    /// then agrees with the rows its snapshots bring.
    mutating func restartReports() {
        cascadesStopped = 0
        failuresReported = 0
        slowCallsReported = 0
        slowDeliveriesReported = 0
        rows = []
        rowTotals = RowTotals()
    }

    /// Takes the handler rows of `snapshot`.
    mutating func take(_ snapshot: BusSnapshot) {
        rows = snapshot.handlers.sorted { $0.isWorse(than: $1) }
        var totals = RowTotals()
        for row in rows {
            totals.failures.clampedAdd(row.failures)
            totals.slowCalls.clampedAdd(row.slowCalls)
            totals.slowDeliveries.clampedAdd(row.waits.slowDeliveries)
            totals.dropped.clampedAdd(row.dropped)
        }
        rowTotals = totals
    }

    /// The rows for `typeName`, worst first.
    func rows(for typeName: String) -> [HandlerStatistics] {
        rows.filter { $0.eventTypeName == typeName }
    }
}

/// The events of the log related to one event by cause: what led to it and what it set off.
struct EventLineage {
    /// Where following the causes stopped.
    enum End: Equatable {
        /// At a top-level publish: the last cause has none.
        case topLevel
        /// At a cause the log no longer holds.
        case missing(UInt64)
        /// At a cause that is no earlier event: a number the app sent twice, or a loop of
        /// causes a stranger made up; following it would go round.
        case notEarlier(UInt64)
        /// At ``maximumCauses``, with more to follow.
        case limit
    }

    /// The event's causes, the direct one first, up to the top-level publish or the oldest line
    /// the log still holds.
    let causes: [FeedEvent]
    /// Where the causes stopped.
    let end: End
    /// Events whose cause is this one.
    let setOff: [FeedEvent]

    /// Causes followed at most, so that a runaway cascade does not make a detail view endless.
    static let maximumCauses = 20

    /// The lineage of `event`, the log's line `sequence` (`nil` for an event not in it), among
    /// the events `log` holds; events of other apps in a fleet are never taken for its causes,
    /// whose numbers are their own bus's. A cause is published before what it set off: each is
    /// the newest line with its number before the line citing it, so that numbers an app used
    /// again (it restarted behind the same socket) lead to the run they belong to.
    init(of event: FeedEvent, at sequence: Int?, in log: EventLog) {
        var byID: [UInt64: [(sequence: Int, event: FeedEvent)]] = [:]
        var effects: [(sequence: Int, event: FeedEvent)] = []
        let id = event.trace.eventID
        let own = sequence ?? Int.max
        for line in log.sequences {
            guard case .event(let other)? = log[line]?.content, other.origin == event.origin else {
                continue
            }
            if other.trace.eventID != 0 { byID[other.trace.eventID, default: []].append((line, other)) }
            if id != 0, other.trace.causeID == id { effects.append((line, other)) }
        }
        // What it set off comes after it, and before the next event given its number.
        let after = sequence ?? -1
        let nextWithItsNumber = byID[id]?.first { $0.sequence > after }?.sequence ?? Int.max
        let setOff = effects.filter { $0.sequence > after && $0.sequence < nextWithItsNumber }.map(\.event)
        var causes: [FeedEvent] = []
        var before = own
        var next = event.trace.causeID
        var end = End.topLevel
        while let causeID = next {
            guard causes.count < Self.maximumCauses else {
                end = .limit
                break
            }
            guard let lines = byID[causeID] else {
                end = .missing(causeID)
                break
            }
            guard let cause = lines.last(where: { $0.sequence < before }) else {
                end = .notEarlier(causeID)
                break
            }
            causes.append(cause.event)
            before = cause.sequence
            next = cause.event.trace.causeID
        }
        self.causes = causes
        self.end = end
        self.setOff = setOff
    }
}
