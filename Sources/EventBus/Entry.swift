import Synchronization

/// A subscription to one event type, to the types that conform to a protocol (`Payload` is
/// `any P`), to every event (`Payload` is ``DeliveryRecord``), or to lifecycle changes.
final class Entry<Payload: Sendable>: SubscriberEntry, @unchecked Sendable {
    let handler: @Sendable (Payload) -> Void
    /// Where deliveries wait until the sticky event this subscription asked for has been
    /// offered; `nil` for every other subscription.
    let hold: StickyHold<Payload>?

    init(
        id: UInt64, counters: TypeCounters, observer: AnyObject?, observerRecord: ObserverRecord? = nil,
        scheduler: (any DeliveryScheduler)?, replaying stickyVersion: UInt64? = nil,
        measurements: HandlerMeasurements? = nil, deliveryGate: DeliveryGate? = nil,
        handler: @escaping @Sendable (Payload) -> Void
    ) {
        self.handler = handler
        hold = stickyVersion.map { StickyHold(replayedVersion: $0) }
        super.init(
            id: id, counters: counters, observer: observer, observerRecord: observerRecord,
            scheduler: scheduler, measurements: measurements, deliveryGate: deliveryGate)
        // Before any list holds the entry, so no publish can see it otherwise.
        if hold != nil { state.store(Self.heldBit | Self.replayedBit, ordering: .releasing) }
    }

    /// Offers `event` to the handler, on this thread or through the entry's scheduler.
    ///
    /// - Parameter marker: The calling thread's ``DeliveryMarker`` when this is its outermost
    ///   delivery loop, or `nil` to count the delivery in the entry instead.
    ///   - timer: While something watches the bus, what times the call where it runs if it
    ///     waits on a queue or an actor; a call made here is timed by the caller.
    ///   - mainActor: Whether main-actor handlers run in place in this delivery, decided by the
    ///     first main-actor entry the delivery meets and kept for the rest of it.
    @inline(__always)
    func offer(
        _ event: Payload, marker: UnsafeReference<DeliveryMarker>? = nil, timer: HandlerTimer? = nil,
        mainActor: inout MainActorPass
    ) -> DeliveryOutcome {
        // Not `if let scheduler`: a copy of the existential held across the main-actor decision
        // cost a retain and a release on every publish that made the decision.
        if scheduler != nil {
            // A main-actor handler offered an event on the main actor runs now, like the plain
            // handlers around it, through the same few lines as they do; the decision is made once
            // per delivery, not once per handler.
            let runsHere = mainActorMailbox.map { mainActor.allowsInline(through: $0) } ?? false
            if !runsHere {
                return offerThroughScheduler(event, timer: timer, mainActor: &mainActor)
            }
        }
        if observerID == nil {
            guard beginDelivery(marker) else {
                return offerRefused(event, marker: marker, mainActor: &mainActor)
            }
            handler(event)
            endDelivery(marker)
            return .delivered
        }
        // Holding the observer strongly for the call keeps it alive until the handler returns.
        guard let observer else { return .observerDied }
        guard beginDelivery(marker) else { return offerRefused(event, marker: marker, mainActor: &mainActor) }
        handler(event)
        endDelivery(marker)
        // Not `withExtendedLifetime(observer) {}`, whose generic body is not inlined here (a call
        // per delivery); this keeps the same guarantee.
        UnsafeReference.keepAlive(observer)
        return .delivered
    }

    override func offer(
        at payload: UnsafeMutableRawPointer, marker: UnsafeReference<DeliveryMarker>?, timer: HandlerTimer?,
        mainActor: inout MainActorPass
    ) -> DeliveryOutcome {
        offer(
            inPlace: &payload.assumingMemoryBound(to: Payload.self).pointee, marker: marker, timer: timer,
            mainActor: &mainActor)
    }

    /// Offers the event where it is. An `inout` parameter, though nothing writes it: read
    /// through a pointer as a plain value, the event would be copied for each entry (a value
    /// witness call, and retains for the references it holds); `inout` hands the handler its
    /// address as it is.
    @inline(__always)
    private func offer(
        inPlace event: inout Payload, marker: UnsafeReference<DeliveryMarker>?, timer: HandlerTimer?,
        mainActor: inout MainActorPass
    ) -> DeliveryOutcome {
        offer(event, marker: marker, timer: timer, mainActor: &mainActor)
    }

    /// Hands `event` to the scheduler, to run on its queue or actor.
    ///
    /// Kept out of line: the publish path inlines ``offer(_:marker:timer:mainActor:)``
    /// for every entry, and the plain handlers' path stays as small as it was without this branch.
    ///
    /// A main-actor delivery joins the job its loop scheduled last on the mailbox while that
    /// still waits last in line (see ``JoinedDeliveries``).
    @inline(never)
    private func offerThroughScheduler(
        _ event: Payload, timer: HandlerTimer?, mainActor: inout MainActorPass
    ) -> DeliveryOutcome {
        // Called only for an entry with a scheduler, which never changes.
        guard let scheduler else { return .skipped }
        let word = state.load(ordering: .acquiring)
        if word & Self.cancelledBit != 0 { return .skipped }
        if observerID != nil && observer == nil { return .observerDied }
        // Held, it waits behind the sticky event; released meanwhile, it is scheduled as usual,
        // behind everything the release scheduled. The sticky event received already, or an
        // older one, is not offered again.
        if word & Self.replayedBit != 0, let hold {
            switch hold.admit(event, stickyVersion: Self.currentStickyVersion) {
            case .duplicate: return .skipped
            case .kept: return .scheduled
            case .deliver: break
            }
        }
        if let mailbox = mainActorMailbox {
            return ThreadDeliveryState.currentUnretained.borrow { thread in
                scheduleJoining(event, on: mailbox, timer: timer, thread: thread, mainActor: &mainActor)
            }
        }
        let cause = ThreadDeliveryState.currentUnretained.borrow { $0.causeForScheduledDelivery() }
        let timer = timer?.scheduled
        scheduler.schedule { self.deliverScheduled(event, cause: cause, timer: timer) }
        return .scheduled
    }

    /// Schedules a main-actor delivery: it joins the job its loop scheduled last on `mailbox`
    /// while that still waits last in line, or starts a job of its own, which the thread's
    /// delivery frame holds for the rest of the loop (see ``JoinedDeliveries``).
    private func scheduleJoining(
        _ event: Payload, on mailbox: ActorMailbox, timer: HandlerTimer?, thread: ThreadDeliveryState,
        mainActor: inout MainActorPass
    ) -> DeliveryOutcome {
        if mainActor.hasOpenJoinedDeliveries, let open = thread.openJoinedDeliveries {
            // While the bus is watched, the wait counts from here, as a job of its own would.
            let handedOverAt = timer == nil ? nil : System.monotonicNanoseconds()
            let joined = mailbox.join(open) { job in
                // Made by this loop, for this event: of this entry's own type.
                assert(job is EntryDeliveries<Payload>, "a delivery joined another loop's job")
                unsafeDowncast(job, to: EntryDeliveries<Payload>.self).add(self, handedOverAt: handedOverAt)
            }
            if joined { return .scheduled }
        }
        let job = EntryDeliveries(
            event, cause: thread.causeForScheduledDelivery(), timer: timer?.scheduled, first: self)
        if mainActor.joinsDeliveries && thread.holdOpenJoinedDeliveries(job) {
            mainActor.noteOpenJoinedDeliveries()
        }
        mailbox.schedule(joined: job)
        return .scheduled
    }

    /// A delivery the entry sent out of line: cancelled, it is skipped; the sticky event the
    /// subscription received already (or an older one), too; held for that sticky event, it
    /// waits in the hold; otherwise it runs here, as the publish offered it.
    @inline(never)
    private func offerRefused(
        _ event: Payload, marker: UnsafeReference<DeliveryMarker>?, mainActor: inout MainActorPass
    ) -> DeliveryOutcome {
        guard let hold, !isCancelled else { return .skipped }
        switch hold.admit(event, stickyVersion: Self.currentStickyVersion) {
        case .duplicate: return .skipped
        case .kept: return .scheduled
        case .deliver: return callAdmitted(event, marker: marker)
        }
    }

    /// Calls the handler here for a delivery the hold let through, unless the observer died or
    /// the entry was cancelled: the hold's bits no longer refuse it.
    private func callAdmitted(_ event: Payload, marker: UnsafeReference<DeliveryMarker>?) -> DeliveryOutcome {
        let observer = self.observer
        if observerID != nil && observer == nil { return .observerDied }
        guard beginDelivery(marker, refusing: Self.cancelledBit) else { return .skipped }
        handler(event)
        endDelivery(marker)
        withExtendedLifetime(observer) {}
        return .delivered
    }

    /// The sticky version of the publish being delivered on this thread, 0 for a plain one.
    private static var currentStickyVersion: UInt64 {
        ThreadDeliveryState.currentUnretained.borrow {
            $0.depth > 0 ? $0.frames[$0.depth - 1].current.stickyVersion : 0
        }
    }

    /// Offers `sticky`, the sticky event this subscription asked for, then what publishes
    /// offered while it waited, each in the handler's isolation, and ends the hold.
    ///
    /// - Parameter sticky: The sticky event read when the subscription was made.
    func releaseHold(offering sticky: Payload) {
        guard let hold else { return }
        offerReleased(sticky)
        while let waiting = hold.takeWaitingOrRelease(clearing: self) {
            for event in waiting { offerReleased(event) }
        }
    }

    /// Runs the handler for an event the hold kept, here when the handler may run on this
    /// thread, otherwise through its scheduler, behind what was scheduled before.
    private func offerReleased(_ event: Payload) {
        if let scheduler, !(mainActorMailbox?.runsInlineNow() ?? false) {
            scheduler.schedule { self.deliverScheduled(event, cause: nil, timer: nil) }
            return
        }
        // Not inside a publish: counted here, as a queued delivery counts where it runs.
        if callAdmitted(event, marker: nil) == .delivered { counters.recordDeliveries(1) }
    }

    /// Runs the handler for a delivery that waited on a queue or an actor, unless the entry was
    /// cancelled or its observer died meanwhile. The waiting job holds the entry, never the
    /// observer, so a queued delivery does not keep a screen alive.
    ///
    /// - Parameter cause: The event being delivered when this one was scheduled; what the
    ///   handler publishes names it as its cause and counts in its cascade.
    fileprivate func deliverScheduled(_ event: Payload, cause: ScheduledCause?, timer: ScheduledTimer?) {
        let observer = self.observer
        if observerID != nil && observer == nil { return }
        // Its turn came in order, so a hold (which only ever precedes it) does not refuse it.
        guard beginDelivery(refusing: Self.cancelledBit) else { return }
        let thread = ThreadDeliveryState.current
        thread.queuedHandlerDepth += 1
        let outerCause = thread.scheduledCause
        thread.scheduledCause = cause
        if let timer {
            timer.time({ handler(event) }, of: self)
        } else {
            handler(event)
        }
        thread.scheduledCause = outerCause
        thread.queuedHandlerDepth -= 1
        endDelivery()
        withExtendedLifetime(observer) {}
        counters.recordDeliveries(1)
    }
}

/// What a subscription that received a sticky event when it was made does with a delivery: the
/// deliveries publishes offer while it has not received the sticky event yet wait here, in
/// order, and deliveries of that sticky event (or an older one) are dropped, then and later.
final class StickyHold<Payload>: @unchecked Sendable {
    /// What becomes of a delivery offered to the subscription.
    enum Admission {
        /// The sticky event received already, or an older one: not delivered.
        case duplicate
        /// Kept until the sticky event has been offered.
        case kept
        /// To be delivered as usual.
        case deliver
    }

    private struct Contents {
        var waiting: [Payload] = []
        var isHolding = true
    }

    /// The version of the sticky event the subscription received when it was made.
    let replayedVersion: UInt64
    private let contents = LockedValue(Contents())

    init(replayedVersion: UInt64) {
        self.replayedVersion = replayedVersion
    }

    /// Decides what becomes of `event`, published with `stickyVersion` (0 for a plain publish).
    func admit(_ event: Payload, stickyVersion: UInt64) -> Admission {
        if stickyVersion != 0 && stickyVersion <= replayedVersion { return .duplicate }
        return contents.withLock { contents in
            guard contents.isHolding else { return .deliver }
            contents.waiting.append(event)
            return .kept
        }
    }

    /// The deliveries waiting, to offer in order; once none waits, ends the hold and clears
    /// `entry`'s held bit, in the same critical section as ``admit(_:stickyVersion:)`` reads
    /// the hold, and returns `nil`.
    func takeWaitingOrRelease(clearing entry: SubscriberEntry) -> [Payload]? {
        contents.withLock { contents in
            guard contents.waiting.isEmpty else {
                defer { contents.waiting = [] }
                return contents.waiting
            }
            contents.isHolding = false
            entry.state.bitwiseAnd(~SubscriberEntry.heldBit, ordering: .sequentiallyConsistent)
            return nil
        }
    }
}

/// The deliveries of one event to main-actor subscriptions that one delivery loop scheduled
/// with nothing between them (see ``JoinedDeliveries``): one object for the event, the cause
/// and the timer they share, instead of a closure each.
final class EntryDeliveries<Payload: Sendable>: JoinedDeliveries, @unchecked Sendable {
    private let event: Payload
    private let cause: ScheduledCause?
    /// The first delivery's timer, while the bus is watched; the others' differ from it only in
    /// when they were handed over.
    private let timer: ScheduledTimer?
    private let first: Entry<Payload>
    /// The deliveries that joined the first, in order; written under the mailbox's lock while
    /// the job waits, as ``handedOver`` is.
    private var more: [Entry<Payload>] = []
    /// When each of ``more`` was handed over, while the bus is watched; empty otherwise.
    private var handedOver: [Int] = []

    init(_ event: Payload, cause: ScheduledCause?, timer: ScheduledTimer?, first: Entry<Payload>) {
        self.event = event
        self.cause = cause
        self.timer = timer
        self.first = first
    }

    /// Adds a delivery to `entry`, handed over at `handedOverAt` (monotonic nanoseconds) when
    /// the bus is watched; called under the mailbox's lock, while the job waits.
    func add(_ entry: Entry<Payload>, handedOverAt: Int?) {
        more.append(entry)
        if let handedOverAt { handedOver.append(handedOverAt) }
    }

    override func run() {
        first.deliverScheduled(event, cause: cause, timer: timer)
        for (index, entry) in more.enumerated() {
            // One loop's deliveries are all watched or none are; a short list only guards.
            let timer = index < handedOver.count ? timer.map { $0.handedOver(at: handedOver[index]) } : timer
            entry.deliverScheduled(event, cause: cause, timer: timer)
        }
    }
}
