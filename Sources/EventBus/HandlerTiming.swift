import Synchronization

/// One subscription's handler calls as the bus measured them: counted and timed while someone
/// watches the bus, and its failures always.
///
/// Relaxed atomics: calls, time and slow calls each added to with one locked instruction, so
/// that two threads publishing one type count every call, and the longest call kept by
/// compare-exchange. Reading and writing back instead saves about 0.9 ns a timed call
/// (`busbench --only why`: 13.8-14.1 against 14.6-15.1 ns per call at 10 subscribers), and
/// lost 155 of 400,000 calls of two threads publishing at once. A lap that measured 0 (the
/// clock's reading had not moved, most calls while it ticks) adds no time. Nothing is ordered
/// by these counts.
///
/// An object of its own rather than fields of the entry: the entry's fields that every delivery
/// reads stay on the cache lines they were on, and five counters would push the handler off them.
final class HandlerMeasurements: Sendable {
    /// Calls timed.
    let calls = Atomic<Int>(0)
    /// Their total time, in nanoseconds.
    let nanoseconds = Atomic<Int>(0)
    /// The longest, in nanoseconds.
    let maximum = Atomic<Int>(0)
    /// Calls that took longer than the bus's slow-handler threshold.
    let slowCalls = Atomic<Int>(0)
    /// Calls that threw.
    let failures = Atomic<Int>(0)
    /// Events a bounded buffer between the bus and the subscriber dropped (an async stream's).
    let dropped = Atomic<Int>(0)
    /// How long deliveries through a queue or an actor waited; made by the first of them.
    let waitLog = AtomicLazyReference<WaitLog>()

    /// Counts a delivery that waited `nanoseconds` on a queue or an actor; `slow` when that was
    /// longer than the bus's threshold.
    func recordWait(_ nanoseconds: Int, slow: Bool) {
        let log = waitLog.load() ?? waitLog.storeIfNil(WaitLog())
        log.histogram.withLock { $0.record(nanoseconds, slow: slow) }
    }

    /// Counts a call that took `nanoseconds`; returns whether it was slow.
    @inline(__always)
    func record(_ nanoseconds: Int, threshold: Int) -> Bool {
        calls.wrappingAdd(1, ordering: .relaxed)
        if nanoseconds > 0 {
            self.nanoseconds.wrappingAdd(nanoseconds, ordering: .relaxed)
            var longest = maximum.load(ordering: .relaxed)
            while nanoseconds > longest {
                let (exchanged, found) = maximum.weakCompareExchange(
                    expected: longest, desired: nanoseconds, ordering: .relaxed)
                if exchanged { break }
                longest = found
            }
        }
        guard nanoseconds > threshold else { return false }
        slowCalls.wrappingAdd(1, ordering: .relaxed)
        return true
    }

    /// The counts now.
    var totals: HandlerTotals {
        // Calls first: a delivery that finishes between the two reads then counts its wait
        // and not its call, rather than its call as a wait of zero.
        let calls = calls.load(ordering: .relaxed)
        var waits = waitLog.load()?.histogram.withLock { $0 } ?? WaitHistogram()
        // Every timed call that did not wait on a queue or an actor ran in the publish: a wait of
        // zero. (A delivery running now has its wait counted and not yet its call.)
        waits.recordZeros(calls - waits.count)
        return HandlerTotals(
            calls: calls, nanoseconds: nanoseconds.load(ordering: .relaxed),
            maximum: maximum.load(ordering: .relaxed), slowCalls: slowCalls.load(ordering: .relaxed),
            failures: failures.load(ordering: .relaxed), dropped: dropped.load(ordering: .relaxed),
            waits: waits)
    }
}

/// Whose handler calls a row of ``HandlerStatistics`` adds up.
struct HandlerKey: Hashable {
    let observerTypeName: String?
    let eventTypeName: String
}

/// Counts of handler calls, added up over subscriptions.
struct HandlerTotals: Sendable, Hashable {
    var calls = 0
    var nanoseconds = 0
    var maximum = 0
    var slowCalls = 0
    var failures = 0
    var dropped = 0
    var waits = WaitHistogram()

    static func + (left: HandlerTotals, right: HandlerTotals) -> HandlerTotals {
        HandlerTotals(
            calls: left.calls + right.calls, nanoseconds: left.nanoseconds + right.nanoseconds,
            maximum: max(left.maximum, right.maximum), slowCalls: left.slowCalls + right.slowCalls,
            failures: left.failures + right.failures, dropped: left.dropped + right.dropped,
            waits: left.waits + right.waits)
    }

    var isEmpty: Bool { calls == 0 && failures == 0 && dropped == 0 && waits.count == 0 }
}

/// What a delivery needs to time its handlers, made once per publish while someone watches the
/// bus; `nil` otherwise, and then nothing is timed.
///
/// Unowned and unchecked, so that making and passing it writes no reference count and, in the
/// unspecialized code a publish from another module runs, asks for no generic metadata: the
/// publish runs while its caller holds the bus, which keeps its slots for its whole life (the
/// same rule as UnsafeReference's invariant 1). A delivery that waits on a queue or an actor
/// takes a ``ScheduledTimer`` instead.
struct HandlerTimer {
    unowned(unsafe) let bus: EventBus
    /// The slot of the type being delivered, for reports.
    unowned(unsafe) var slot: TypeSlot
    /// The bus's ``EventBus/slowHandlerNanoseconds``, copied so that counting a call that was
    /// not slow does not touch the bus: reading an `unowned(unsafe)` reference to call a method
    /// retains it, and a bus that anything holds weakly (a capture, a tap) keeps its reference
    /// count in a side table, where a retain and a release cost several times as much.
    let slowNanoseconds: Int
    /// Whether something observed handler calls when the publish began: then each call is
    /// timed on its own and reported (the delivery loop takes the observers, out of line, so
    /// that an untraced publish holds no reference to them).
    let traced: Bool

    init(bus: EventBus, slot: TypeSlot, traced: Bool = false) {
        self.bus = bus
        self.slot = slot
        slowNanoseconds = bus.slowHandlerNanoseconds
        self.traced = traced
    }

    private init(copying timer: HandlerTimer, traced: Bool) {
        bus = timer.bus
        slot = timer.slot
        slowNanoseconds = timer.slowNanoseconds
        self.traced = traced
    }

    /// The same timer, reporting no calls.
    var untraced: HandlerTimer {
        HandlerTimer(copying: self, traced: false)
    }

    /// The same timer for the subscribers of a protocol's `slot`.
    func forProtocol(_ slot: TypeSlot) -> HandlerTimer {
        var timer = HandlerTimer(copying: self, traced: traced)
        timer.slot = slot
        return timer
    }

    /// Counts a call of `entry`'s handler that started at `start` (nanoseconds since 1970) and
    /// took `nanoseconds`, and reports it to the observers of handler calls.
    func recordTraced(
        _ observers: HandlerCallObservers, start: Int, nanoseconds: Int, for entry: SubscriberEntry
    ) {
        record(nanoseconds, for: entry)
        let eventID = ThreadDeliveryState.currentUnretained.borrow { $0.currentOrigin.eventID }
        observers.report(
            callOf: entry, eventID: eventID, typeName: slot.name, start: start, nanoseconds: nanoseconds,
            waited: nil)
    }

    /// Counts a call of `entry`'s handler that took `nanoseconds`; reports it if it was slow.
    @inline(__always)
    func record(_ nanoseconds: Int, for entry: SubscriberEntry) {
        if entry.measurements.record(nanoseconds, threshold: slowNanoseconds) {
            reportSlowCall(of: entry, nanoseconds: nanoseconds)
        }
    }

    /// Reports a slow call; out of line, since it is rare.
    @inline(never)
    private func reportSlowCall(of entry: SubscriberEntry, nanoseconds: Int) {
        bus.reportSlowCall(of: entry, typeName: slot.name, nanoseconds: nanoseconds)
    }

    /// The timer for a delivery that outlives the publish: it holds what it uses, and the time
    /// the delivery starts waiting.
    var scheduled: ScheduledTimer {
        let observers = traced ? bus.callTracing.current() : nil
        let eventID =
            observers == nil ? 0 : ThreadDeliveryState.currentUnretained.borrow { $0.currentOrigin.eventID }
        return ScheduledTimer(
            bus: bus, slot: slot, scheduledAt: System.monotonicNanoseconds(), callObservers: observers,
            eventID: eventID)
    }
}

/// A ``HandlerTimer`` for a delivery waiting on a queue or an actor, which holds its bus and
/// slot.
struct ScheduledTimer: Sendable {
    let bus: EventBus
    let slot: TypeSlot
    /// When the publish handed the delivery to its queue or actor, on the system's monotonic
    /// clock.
    let scheduledAt: Int
    /// Who observed handler calls when the delivery was scheduled, if anyone did.
    let callObservers: HandlerCallObservers?
    /// The event's number, for the observers of handler calls.
    let eventID: UInt64

    /// The same timer for a delivery handed over at `time` (monotonic nanoseconds).
    func handedOver(at time: Int) -> ScheduledTimer {
        ScheduledTimer(
            bus: bus, slot: slot, scheduledAt: time, callObservers: callObservers, eventID: eventID)
    }

    /// Counts the wait of a delivery to `entry` starting now; reports it if it was slow.
    ///
    /// - Returns: How long it waited, in nanoseconds.
    @discardableResult
    func recordWait(for entry: SubscriberEntry) -> Int {
        let waited = max(0, System.monotonicNanoseconds() - scheduledAt)
        let slow = waited > bus.slowDeliveryNanoseconds
        entry.measurements.recordWait(waited, slow: slow)
        if slow { bus.reportSlowDelivery(of: entry, typeName: slot.name, nanoseconds: waited) }
        return waited
    }

    /// Runs `call`, the handler of `entry`, timing it; reports it when anyone observes calls.
    func time(_ call: () -> Void, of entry: SubscriberEntry) {
        let waited = recordWait(for: entry)
        if let callObservers {
            let start = System.wallClockNanoseconds()
            call()
            let nanoseconds = System.wallClockNanoseconds() - start
            record(nanoseconds, for: entry)
            callObservers.report(
                callOf: entry, eventID: eventID, typeName: slot.name, start: start, nanoseconds: nanoseconds,
                waited: waited)
            return
        }
        let clock = HandlerClock.shared
        var laps = HandlerClock.Laps(clock)
        call()
        record(laps.lap(clock), for: entry)
    }

    /// Counts a call of `entry`'s handler that took `nanoseconds`; reports it if it was slow.
    func record(_ nanoseconds: Int, for entry: SubscriberEntry) {
        // This timer holds both for the call (HandlerTimer's rule).
        HandlerTimer(bus: bus, slot: slot).record(nanoseconds, for: entry)
    }
}

/// A report a ``ReportPacer`` may let through, kept as what it is made of until it goes out.
///
/// Making the report names the observer's type with `String(describing:)`, about a microsecond
/// of runtime type lookups. A storm repeats these reports thousands of times a second, and the
/// pacer holds back all but a few: an app publishing flat out to a main-actor screen spent most
/// of its deliveries' bookkeeping making late-delivery reports that were then held back. A
/// draft holds no subscription, whose handler may hold an app's objects, and no error: only
/// names, numbers and the observer's class.
struct ReportDraft: Sendable {
    /// What happened, with what the report says about it.
    enum Occurrence: Sendable {
        /// A handler call took `nanoseconds`, past the slow-handler threshold.
        case slowCall(nanoseconds: Int)
        /// A delivery waited `nanoseconds` for its handler to start, past the threshold.
        case slowDelivery(nanoseconds: Int)
        /// A handler threw; `reason` describes the error, made when it was thrown, so that no
        /// error (nor what it refers to) outlives its failure in the pacer.
        case failure(reason: String)
    }

    let occurrence: Occurrence
    /// The name of the event's type.
    let typeName: String
    /// The observer's class, for an observer's subscription.
    let observerType: AnyObject.Type?
    /// The observer's number, for an observer's subscription.
    let observerID: UInt64?

    /// A draft of what happened to a delivery to `entry` of an event of `typeName`.
    init(_ occurrence: Occurrence, typeName: String, entry: SubscriberEntry) {
        self.occurrence = occurrence
        self.typeName = typeName
        observerType = entry.observerType
        observerID = entry.observerRecord?.serial
    }

    /// The report, standing for `count` occurrences.
    func report(counting count: Int) -> SubscriberLifecycleEvent {
        let kind: SubscriberLifecycleEvent.Kind
        var duration: Duration?
        var reason: String?
        switch occurrence {
        case .slowCall(let nanoseconds):
            kind = .slowHandler
            duration = .nanoseconds(nanoseconds)
        case .slowDelivery(let nanoseconds):
            kind = .slowDelivery
            duration = .nanoseconds(nanoseconds)
        case .failure(let description):
            kind = .handlerFailed
            reason = description
        }
        return SubscriberLifecycleEvent(
            kind: kind, eventTypeName: typeName, count: count,
            observerTypeName: observerType.map { String(describing: $0) }, observerID: observerID,
            reason: reason, duration: duration)
    }
}

/// Lets through at most a number of reports a second, for reports that a storm could repeat
/// thousands of times a second; the counts in `snapshot()` keep every call. None is lost in
/// silence: a report let through stands for itself and for those held back since the previous
/// one (its `count` says how many), and held-back reports that no later one carried go out as
/// one report once their second is over (``flush(now:)``, which `snapshot()` calls).
///
/// Reports come in as drafts, made into reports only when they go out, outside the lock.
final class ReportPacer: Sendable {
    private struct Window {
        var start = Int.min
        var reports = 0
        var heldBack = 0
        /// The newest report held back, which a flush sends for all of them.
        var lastHeldBack: ReportDraft?
    }

    private let perSecond: Int
    private let window = LockedValue(Window())

    /// - Parameter perSecond: Reports let through in any one second.
    init(perSecond: Int) {
        self.perSecond = perSecond
    }

    /// The report of `draft` as it may go now, with its count of what it stands for, or `nil`
    /// when it is held back, as read from `now` (nanoseconds).
    func admit(_ draft: ReportDraft, now: Int) -> SubscriberLifecycleEvent? {
        let count = window.withLock { window -> Int? in
            if now &- window.start >= 1_000_000_000 || window.start == Int.min {
                window.start = now
                window.reports = 0
            }
            guard window.reports < perSecond else {
                window.heldBack += 1
                window.lastHeldBack = draft
                return nil
            }
            window.reports += 1
            defer {
                window.heldBack = 0
                window.lastHeldBack = nil
            }
            return 1 + window.heldBack
        }
        return count.map { draft.report(counting: $0) }
    }

    /// The reports held back, as one report (the newest of them, counting all), once the
    /// second they were held back in is over; `nil` when there are none, or it is not over.
    func flush(now: Int) -> SubscriberLifecycleEvent? {
        let heldBack = window.withLock { window -> (ReportDraft, Int)? in
            guard let last = window.lastHeldBack, now &- window.start >= 1_000_000_000 else { return nil }
            let count = window.heldBack
            window = Window(start: now, reports: 1)
            return (last, count)
        }
        return heldBack.map { draft, count in draft.report(counting: count) }
    }
}

extension EventBus {
    /// One reading of the clock that times handler calls, in nanoseconds, for measuring what a
    /// reading costs: each timed call takes one.
    package static func handlerClockReading() -> Int {
        HandlerClock.shared.now()
    }
}
