package import BusWire
internal import EventBus

/// What a monitor knows of a fleet, fed decoded messages and the time: its members and their
/// presence, and the records a dashboard has not drained yet, each with its app's origin.
///
/// A pure state machine: it reads no clock and starts no thread, so tests feed it messages and
/// times and read what it decided. The NATS fleet source and ``ListenSource`` each keep one
/// behind a lock.
///
/// ## Presence
/// An app is `active` when heard from (any message) within ``FleetPresenceTimes/quietAfter``,
/// `quiet` after that, `gone` after ``FleetPresenceTimes/goneAfter``, and gone at once when its
/// link (a NATS bridge, or a connection to busmon) reports `closed`. Hearing from it again makes
/// it active again, but after its link said `closed` only a new report of its link does: its
/// last events arriving late, or anyone's sent in its name, do not. Live messages count as
/// heard when they arrive (the monitor's clock, whatever the sender's clock says); messages
/// replayed from history count as heard at the time they name. While a replay runs, presence
/// is not advanced, so that apps do not seem to come and go as old messages stream past.
///
/// ## Records
/// Every event, lifecycle change and snapshot goes on whole, in the order it arrived, with its
/// app's origin: what reads the batch (the dashboard, which sums the apps' snapshots with
/// ``BusSnapshot/merged(_:)``, a recording, headless output) sees each field the app sent. Of an
/// app's live snapshots between two drains only the newest is kept (see
/// ``bufferedSnapshots``).
package struct FleetState: Sendable {
    /// Members kept at most; beyond it the member gone for longest is forgotten.
    package static let maximumMembers = 1_000

    /// When silent apps become quiet, then gone.
    package let times: FleetPresenceTimes
    /// Events, and separately lifecycle changes, kept between two drains; later ones are
    /// dropped and counted.
    package let capacity: Int
    /// While set, presence does not advance (a replay of history is running, or the monitor's
    /// own link to the apps is away).
    package var holdsPresence = false
    /// When silences start at the latest: the moment the monitor's own link came back (see
    /// ``restartSilences(at:)``).
    private var silencesStartNoEarlierThan = -Double.infinity
    /// The fields of events whose values the monitor shows as `"<redacted>"`: the defaults for
    /// a NATS fleet, whose bridges send events whole because other apps decode them; none for
    /// apps that dialled in, whose taps redacted as each app chose.
    package var redaction = PayloadRedaction.default
    /// Whether an app's events are numbered one by one on their way (a NATS bridge numbers
    /// what it sends), so that a gap in the numbers is events lost between the app and the
    /// monitor: counted in ``droppedEvents`` and told. Apps that dial in number what their tap
    /// took, and their taps report what they dropped themselves.
    package var countsNumberingGaps = false

    private var members: [EventOrigin: Member] = [:]
    /// Members in the order they were first heard from.
    private var order: [EventOrigin] = []
    /// `nil` where a snapshot was, that a newer one of its app replaced.
    private var records: [FeedRecord?] = []
    /// Events among ``records``.
    package private(set) var bufferedEvents = 0
    /// Lifecycle changes among ``records``.
    private var bufferedLifecycle = 0
    /// Where each app's live snapshot is among ``records``. A newer live snapshot of the app
    /// goes at the end and the older one is removed: a snapshot holds an app's whole counts, so
    /// the newest says all the older did, and an app that sends them faster than the dashboard
    /// drains (or a stranger's megabyte-long ones) cannot grow the buffer past one per app.
    /// Snapshots replayed from history are all kept, as the history has them.
    private var bufferedSnapshots: [EventOrigin: Int] = [:]
    private var notices = BoundedNotices()
    /// Events lost since the start: the buffer was full, or an app's link lost them (a running
    /// total).
    package private(set) var droppedEvents = 0
    /// Lifecycle changes lost since the start: the buffer was full, or an app's link lost them.
    package private(set) var droppedLifecycle = 0
    /// Handler calls lost since the start: the buffer was full, or an app's link lost them.
    package private(set) var droppedCalls = 0
    /// Events, lifecycle changes and handler calls of apps past ``maximumMembers`` dropped since the start; not in
    /// the counts above.
    package private(set) var droppedFromAppsPastTheLimit = 0
    private var fleetChanged = false
    /// Whether the notice that apps past ``maximumMembers`` are dropped was given; given again
    /// once a new app has joined since.
    private var toldOfAppsPastTheLimit = false

    private struct Member: Sendable {
        var info: FleetMember
        /// The bridge's reconnections as last reported.
        var reconnects: Int?
        /// What each of its open links reported lost so far, by ``FleetLinkReport/link`` (a
        /// bridge's under `nil`); a link's entry goes when it closes.
        var losses: [Int?: LinkLosses] = [:]
        /// The highest event number heard from it, while ``countsNumberingGaps``.
        var lastEventNumber: Int?
        /// The events its links lost since that was last said, with the kind of link that lost
        /// them, and the pace of those notices.
        var lostSinceSaid = 0
        var lossKind = ""
        var lossNotices = NoticePace()
        /// Gaps in its numbering not said yet: how many, the events they lost, and the first and
        /// last numbers missing; and the pace of those notices.
        var unsaidGaps: (gaps: Int, lost: Int, first: Int, last: Int)?
        var gapNotices = NoticePace()
    }

    /// When notices of one kind (about one app, or the fleet's own link) were last said, so
    /// that they are said at most every ``lossNoticeInterval``.
    package struct NoticePace: Sendable {
        private(set) var saidAt: Double?

        /// A pace by which nothing was said yet.
        package init() {}

        /// Whether a notice may be said at `now`: the first at once, then one an interval, or
        /// at once when `atOnce`; if so, it counts as said.
        package mutating func takeTurn(now: Double, atOnce: Bool) -> Bool {
            if !atOnce, let saidAt, now - saidAt < FleetState.lossNoticeInterval { return false }
            saidAt = now
            return true
        }
    }

    /// Seconds between two notices of one app's links losing events: a tap reports its losses
    /// every round it sends, up to a hundred times a second under a flood, and a notice for
    /// each filled the log. The counts are exact in the header and the Fleet pane meanwhile.
    package static let lossNoticeInterval = 5.0

    /// The running totals one link reported lost.
    private struct LinkLosses: Sendable {
        var events = 0
        var calls = 0
        var lifecycle = 0
    }

    /// Creates an empty fleet.
    ///
    /// - Parameters:
    ///   - times: When silent apps become quiet, then gone.
    ///   - capacity: Events (and lifecycle changes) kept between two drains.
    package init(times: FleetPresenceTimes = FleetPresenceTimes(), capacity: Int = 10_000) {
        self.times = times
        self.capacity = max(1, capacity)
    }

    /// The members, in the order they were first heard from.
    package var fleet: [FleetMember] { order.compactMap { members[$0]?.info } }

    /// Takes in one message.
    ///
    /// - Parameters:
    ///   - message: A decoded message.
    ///   - now: Seconds since 1970 on the monitor's clock.
    ///   - replayed: Whether it comes from history rather than live.
    package mutating func receive(_ message: FleetMessage, now: Double, replayed: Bool = false) {
        let origin = message.origin
        let heard = replayed ? min(message.time, now) : now
        // Origins come from the messages, and anyone on the subject can make up any number of
        // them: past the limit, with none gone to forget, a new app's records are dropped and
        // counted, so memory (each member keeps its newest snapshot) stays bounded.
        guard members[origin] != nil || order.count < Self.maximumMembers || forgetOneGoneMember() else {
            dropFromAnAppPastTheLimit(message, now: now)
            return
        }
        var member = members[origin] ?? join(origin, heard: heard, now: now, replayed: replayed)
        member.info.lastSeen = max(member.info.lastSeen, heard)
        // A bridge that closed stays gone, whatever of it arrives late, unless it reports again;
        // a link's report that it closed is no sign of life.
        let reopens: Bool
        let closes: Bool
        if case .link(let report) = message {
            reopens = report.state != Self.closedState
            closes = !reopens
        } else {
            reopens = false
            closes = false
        }
        if member.info.presence != .active, !closes, member.info.bridgeState != Self.closedState || reopens {
            member.info.presence = .active
            note("\(origin) is back", now: now)
        }
        switch message {
        case .event(var event, _):
            member.info.eventsReceived += 1
            if countsNumberingGaps { checkNumbering(of: event, from: &member, now: now) }
            if bufferedEvents < capacity {
                event.origin = origin
                switch event.payload {
                case .fields(let json): event.payload = .fields(json: redaction.redact(json: json))
                case .description(let text): event.payload = .description(redaction.redact(description: text))
                case .value: break  // decoded records never hold one
                }
                records.append(.event(event))
                bufferedEvents += 1
            } else {
                droppedEvents += 1
            }
        case .lifecycle(var change, _):
            if bufferedLifecycle < capacity {
                change.origin = origin
                records.append(.lifecycle(change))
                bufferedLifecycle += 1
            } else {
                droppedLifecycle += 1
            }
        case .snapshot(var snapshot, _):
            snapshot.origin = origin
            member.info.snapshot = snapshot.snapshot
            if !replayed {
                if let older = bufferedSnapshots[origin] { records[older] = nil }
                bufferedSnapshots[origin] = records.count
            }
            records.append(.snapshot(snapshot))
        case .call(var call, _):
            // Bounded with the events: a call is as frequent as a delivery.
            if bufferedEvents < capacity {
                call.origin = origin
                records.append(.call(call))
                bufferedEvents += 1
            } else {
                droppedCalls += 1
            }
        case .link(let report):
            receive(report, member: &member, now: now)
        }
        members[origin] = member
        fleetChanged = true
    }

    /// Counts and tells the events missing before `event` in its app's numbering: published
    /// by its bridge, and never heard (a server that restarted handed them out before the
    /// monitor's subscription was back).
    ///
    /// A bridge's messages come in the order it sent them, so a number at or below the last is
    /// a bridge that numbers afresh (closed and made again in the same process): counting goes
    /// on from there. A jump of more than ``implausibleGap`` is no bridge's (nothing publishes
    /// four billion events while a monitor looks away) but someone's on the subject making one
    /// up: it is not counted, and does not move the numbering.
    private mutating func checkNumbering(of event: FeedEvent, from member: inout Member, now: Double) {
        let number = event.sequence
        guard number >= 0 else { return }  // a decoded record's never is
        guard let last = member.lastEventNumber, number > last else {
            // Numbered afresh (a bridge made again): the old numbering's gaps are said now.
            if member.lastEventNumber != nil { sayGaps(of: &member, now: now, atOnce: true) }
            member.lastEventNumber = number
            return
        }
        advanceNumbering(of: &member, from: last, to: number, heard: true, now: now)
    }

    /// Counts the events a closed bridge numbered and that were never heard after the last
    /// one that was: its last report says how many it sent, and comes after all of them (the
    /// bridge closes its event connection, waiting for the server, before it reports closing
    /// on its monitoring one). Without it, a flood's last lost events made no gap, for no event
    /// came after them. Other reports may overtake the events on their way, so only the last
    /// report counts.
    private mutating func checkNumbering(endingAt sent: Int, of member: inout Member, now: Double) {
        guard sent >= 0, let last = member.lastEventNumber, sent > last else { return }
        advanceNumbering(of: &member, from: last, to: sent, heard: false, now: now)
        sayGaps(of: &member, now: now, atOnce: true)
    }

    /// Moves `member`'s numbering on from `last` to `newLast`, counting the numbers between
    /// them that were never heard, and `newLast` too unless it was `heard`. A step larger than
    /// ``implausibleGap`` is left alone.
    private mutating func advanceNumbering(
        of member: inout Member, from last: Int, to newLast: Int, heard: Bool, now: Double
    ) {
        let (step, overflow) = newLast.subtractingReportingOverflow(last)
        guard !overflow, step <= Self.implausibleGap else { return }
        member.lastEventNumber = newLast
        let lost = heard ? step - 1 : step
        guard lost > 0 else { return }
        droppedEvents.clampedAdd(lost)
        let lastMissing = heard ? newLast - 1 : newLast
        var gaps = member.unsaidGaps ?? (gaps: 0, lost: 0, first: last + 1, last: lastMissing)
        gaps.gaps += 1
        gaps.lost.clampedAdd(lost)
        gaps.last = lastMissing
        member.unsaidGaps = gaps
        sayGaps(of: &member, now: now)
    }

    /// Says the gaps in `member`'s numbering not said yet: at once the first time (or when
    /// `atOnce`), then at most every ``lossNoticeInterval``, as its links' losses are said. A
    /// flood makes a gap of every few events.
    private mutating func sayGaps(of member: inout Member, now: Double, atOnce: Bool = false) {
        guard let gaps = member.unsaidGaps, member.gapNotices.takeTurn(now: now, atOnce: atOnce) else {
            return
        }
        let numbers =
            gaps.first == gaps.last ? "number \(gaps.first)" : "numbers \(gaps.first) to \(gaps.last)"
        let among = gaps.gaps == 1 ? "" : " in \(gaps.gaps) gaps"
        note(
            "\(member.info.origin): \(gaps.lost) \(gaps.lost == 1 ? "event" : "events") lost on the way"
                + "\(among) (\(numbers))",
            isWarning: true, now: now)
        member.unsaidGaps = nil
    }

    /// The largest step in an app's numbering taken as events lost; a larger one is made up.
    static let implausibleGap = 1 << 32

    private mutating func join(_ origin: EventOrigin, heard: Double, now: Double, replayed: Bool) -> Member {
        note(replayed ? "\(origin) joined (from history)" : "\(origin) joined", now: now)
        order.append(origin)
        toldOfAppsPastTheLimit = false
        return Member(info: FleetMember(origin: origin, presence: .active, lastSeen: heard))
    }

    /// The state a link reports last, when it was closed.
    private static let closedState = FleetLinkReport.closedState

    private mutating func receive(_ report: FleetLinkReport, member: inout Member, now: Double) {
        let origin = member.info.origin
        let previous = member.info.bridgeState
        member.info.bridgeState = report.state
        // Counted as they grow, link by link: each link's totals run from its own start, and an
        // app's reports may come from two links at a time (a dialler reconnecting while its old
        // connection's lines are still read), so neither link's total stands for the other's.
        var losses = member.losses[report.link] ?? LinkLosses()
        let moreEvents = max(0, report.dropped - losses.events)
        if report.kind == FleetLinkReport.bridgeKind {
            // A bridge's count is its whole life's, which the Fleet pane shows.
            member.info.bridgeDropped = report.dropped
        } else {
            member.info.bridgeDropped.clampedAdd(moreEvents)
        }
        if moreEvents > 0 {
            member.lostSinceSaid.clampedAdd(moreEvents)
            member.lossKind = report.kind
        }
        // A closed link reports no more: what it lost is said now.
        sayLosses(of: &member, now: now, atOnce: report.state == Self.closedState)
        if countsNumberingGaps, report.state == Self.closedState, let sent = report.lastEventNumber {
            checkNumbering(endingAt: sent, of: &member, now: now)
        }
        // Lost on the way is lost to the monitor: counted with the events its buffer dropped,
        // as an attached tap's losses are, so that every way of watching counts them alike.
        if member.reconnects == nil, report.kind == FleetLinkReport.bridgeKind {
            // A bridge counts from its own start: what it lost before busmon heard it is no
            // loss of this run's (the Fleet pane shows its whole count).
            losses = LinkLosses(
                events: report.dropped, calls: report.droppedCalls, lifecycle: report.droppedLifecycle)
        } else {
            droppedEvents.clampedAdd(moreEvents)
            losses.events = max(losses.events, report.dropped)
            droppedCalls.clampedAdd(max(0, report.droppedCalls - losses.calls))
            losses.calls = max(losses.calls, report.droppedCalls)
            droppedLifecycle.clampedAdd(max(0, report.droppedLifecycle - losses.lifecycle))
            losses.lifecycle = max(losses.lifecycle, report.droppedLifecycle)
        }
        // A closed link reports no more: its entry goes, so that an app reconnecting all day
        // keeps one entry, not one per connection.
        member.losses[report.link] = report.state == Self.closedState ? nil : losses
        if let reconnects = member.reconnects, report.reconnects > reconnects {
            note("\(origin): its \(report.kind) reconnected to \(report.peer)", now: now)
        }
        member.reconnects = report.reconnects
        if report.state == Self.closedState {
            // An app that dialled in again before its old connection was seen to close is still
            // here, on its new link.
            if !member.losses.isEmpty {
                member.info.bridgeState = previous
                return
            }
            if member.info.presence != .gone {
                member.info.presence = .gone
                note("\(origin) left (its \(report.kind) closed)", now: now)
            }
        } else if let previous, previous != report.state {
            note(
                "\(origin): its \(report.kind) is \(report.state)", isWarning: report.state != "connected",
                now: now)
        }
    }

    /// Says what `member`'s links lost since it was last said: at once the first time (or when
    /// `atOnce`), then at most every ``lossNoticeInterval``.
    private mutating func sayLosses(of member: inout Member, now: Double, atOnce: Bool = false) {
        let first = member.lossNotices.saidAt == nil
        guard member.lostSinceSaid > 0, member.lossNotices.takeTurn(now: now, atOnce: atOnce) else { return }
        let lost = member.lostSinceSaid
        let more = first ? "" : "more "
        note(
            "\(member.info.origin): its \(member.lossKind) dropped \(lost) \(more)\(lost == 1 ? "event" : "events") "
                + "(\(member.info.bridgeDropped) so far)",
            isWarning: true, now: now)
        member.lostSinceSaid = 0
    }

    /// Moves silent members to quiet, then gone, as of `now`; nothing while ``holdsPresence``.
    ///
    /// - Parameter now: Seconds since 1970 on the monitor's clock.
    package mutating func advance(to now: Double) {
        guard !holdsPresence else { return }
        for origin in order {
            guard var member = members[origin], member.info.presence != .gone else { continue }
            let silence = now - max(member.info.lastSeen, silencesStartNoEarlierThan)
            let presence: FleetMember.Presence =
                silence >= times.goneAfter ? .gone : silence >= times.quietAfter ? .quiet : .active
            guard presence != member.info.presence, presence != .active else { continue }
            member.info.presence = presence
            members[origin] = member
            fleetChanged = true
            let seconds = Self.format(presence == .gone ? times.goneAfter : times.quietAfter)
            if presence == .gone {
                note("\(origin) is gone: nothing from it for \(seconds)", isWarning: true, now: now)
            } else {
                note("\(origin) is quiet: nothing from it for \(seconds)", now: now)
            }
        }
    }

    /// Counts every app's silence from `now` at the earliest: for a monitor whose own link
    /// (its connection to the server) was away, so that nothing was heard from anyone, which
    /// says nothing of the apps. Each app then has its full time to be heard again before it
    /// turns quiet; when each was last heard stays as it was.
    ///
    /// - Parameter now: Seconds since 1970 on the monitor's clock.
    package mutating func restartSilences(at now: Double) {
        silencesStartNoEarlierThan = max(silencesStartNoEarlierThan, now)
    }

    /// Adds a notice of the source's own, such as a lost connection.
    ///
    /// - Parameters:
    ///   - text: One line for the log.
    ///   - isWarning: Whether it is a problem rather than news.
    ///   - now: Seconds since 1970.
    package mutating func note(_ text: String, isWarning: Bool = false, now: Double) {
        notices.append(SourceNotice(time: now, text: text, isWarning: isWarning))
    }

    /// Advances presence to `now`, and hands over everything gathered since the last call.
    ///
    /// - Parameter now: Seconds since 1970 on the monitor's clock.
    /// - Returns: The records and notices since the last batch, and the members when anything
    ///   about them changed. The status is left for the source to set.
    package mutating func takeBatch(now: Double) -> SourceBatch {
        advance(to: now)
        // Losses held back by the pace of their notices, said once their time has come even if
        // the app reports no more (it lost nothing since, went quiet, or left with events of
        // it still on the way).
        for origin in order {
            guard var member = members[origin], member.lostSinceSaid > 0 || member.unsaidGaps != nil else {
                continue
            }
            sayGaps(of: &member, now: now)
            sayLosses(of: &member, now: now)
            members[origin] = member
        }
        var batch = SourceBatch(
            records: records.compactMap { $0 }, droppedEvents: droppedEvents, notices: notices.take(now: now),
            fleet: fleetChanged ? fleet : nil)
        batch.droppedCalls = droppedCalls
        batch.droppedLifecycle = droppedLifecycle
        batch.droppedFromAppsPastTheLimit = droppedFromAppsPastTheLimit
        records = []
        bufferedEvents = 0
        bufferedLifecycle = 0
        bufferedSnapshots = [:]
        fleetChanged = false
        return batch
    }

    /// Forgets the member that has been gone for longest, if any is gone, and says whether one
    /// was.
    private mutating func forgetOneGoneMember() -> Bool {
        let gone = order.filter { members[$0]?.info.presence == .gone }
        guard let oldest = gone.min(by: { members[$0]!.info.lastSeen < members[$1]!.info.lastSeen }) else {
            return false
        }
        members[oldest] = nil
        order.removeAll { $0 == oldest }
        fleetChanged = true
        return true
    }

    /// Counts the records of an app that came while ``maximumMembers`` apps are listed, none of
    /// them gone, as dropped; says so once until the fleet has room again.
    private mutating func dropFromAnAppPastTheLimit(_ message: FleetMessage, now: Double) {
        switch message {
        case .event, .lifecycle, .call: droppedFromAppsPastTheLimit.clampedAdd(1)
        case .snapshot, .link: break
        }
        if !toldOfAppsPastTheLimit {
            toldOfAppsPastTheLimit = true
            note(
                "more than \(Self.maximumMembers) apps at once: the records of apps past them are dropped",
                isWarning: true, now: now)
        }
    }

    /// `5 s`, `2.5 s`, `2 min`.
    static func format(_ seconds: Double) -> String {
        if seconds >= 120, seconds.truncatingRemainder(dividingBy: 60) == 0 {
            return "\(Int(seconds / 60)) min"
        }
        if seconds == seconds.rounded() { return "\(Int(seconds)) s" }
        return "\((seconds * 10).rounded() / 10) s"
    }
}
