/// A subscription to one event type, or to every event when `Payload` is `any Event`.
final class Entry<Payload>: SubscriberEntry, @unchecked Sendable {
    let handler: @Sendable (Payload) -> Void

    init(
        id: UInt64, counters: TypeCounters, observer: AnyObject?, observerRecord: ObserverRecord? = nil,
        scheduler: (any DeliveryScheduler)?, handler: @escaping @Sendable (Payload) -> Void
    ) {
        self.handler = handler
        super.init(
            id: id, counters: counters, observer: observer, observerRecord: observerRecord,
            scheduler: scheduler)
    }

    /// Offers `event` to the handler, on this thread or through the entry's scheduler.
    ///
    /// - Parameter marker: The calling thread's ``DeliveryMarker`` when this is its outermost
    ///   delivery loop, or `nil` to count the delivery in the entry instead.
    ///   - scheduledTimer: What times the call if it waits on a queue or an actor, while
    ///     something watches the bus; a call made here is timed by the caller.
    ///   - mainActor: Whether main-actor handlers run in place in this delivery, decided by the
    ///     first main-actor entry the delivery meets and kept for the rest of it.
    @inline(__always)
    func offer(
        _ event: Payload, marker: UnsafeReference<DeliveryMarker>? = nil,
        scheduledTimer: ScheduledTimer? = nil, mainActor: inout MainActorPass
    ) -> DeliveryOutcome where Payload: Sendable {
        if let scheduler {
            // A main-actor handler offered an event on the main actor runs now, like the plain
            // handlers around it, through the same few lines as they do; the decision is made once
            // per delivery, not once per handler.
            let runsHere = mainActorMailbox.map { mainActor.allowsInline(through: $0) } ?? false
            if !runsHere {
                return offerThroughScheduler(event, scheduler, timer: scheduledTimer)
            }
        }
        if observerID == nil {
            guard beginDelivery(marker) else { return .skipped }
            handler(event)
            endDelivery(marker)
            return .delivered
        }
        // Holding the observer strongly for the call keeps it alive until the handler returns.
        guard let observer else { return .observerDied }
        guard beginDelivery(marker) else { return .skipped }
        handler(event)
        endDelivery(marker)
        // Not `withExtendedLifetime(observer) {}`, whose generic body is not inlined here (a call
        // per delivery); this keeps the same guarantee.
        UnsafeReference.keepAlive(observer)
        return .delivered
    }

    /// Hands `event` to the scheduler, to run on its queue or actor.
    ///
    /// Kept out of line: the publish path inlines ``offer(_:marker:scheduledTimer:mainActor:)``
    /// for every list, and the plain handlers' path stays as small as it was without this branch.
    @inline(never)
    private func offerThroughScheduler(
        _ event: Payload, _ scheduler: any DeliveryScheduler, timer: ScheduledTimer?
    ) -> DeliveryOutcome where Payload: Sendable {
        if isCancelled { return .skipped }
        if observerID != nil && observer == nil { return .observerDied }
        let cause = ThreadDeliveryState.currentUnretained.borrow { $0.causeForScheduledDelivery() }
        scheduler.schedule { self.deliverScheduled(event, cause: cause, timer: timer) }
        return .scheduled
    }

    /// Runs the handler for a delivery that waited on a queue or an actor, unless the entry was
    /// cancelled or its observer died meanwhile. The waiting job holds the entry, never the
    /// observer, so a queued delivery does not keep a screen alive.
    ///
    /// - Parameter cause: The event being delivered when this one was scheduled; what the
    ///   handler publishes names it as its cause and counts in its cascade.
    private func deliverScheduled(_ event: Payload, cause: ScheduledCause?, timer: ScheduledTimer?) {
        let observer = self.observer
        if observerID != nil && observer == nil { return }
        guard beginDelivery() else { return }
        let thread = ThreadDeliveryState.current
        thread.queuedHandlerDepth += 1
        let outerCause = thread.scheduledCause
        thread.scheduledCause = cause
        if let timer {
            let start = System.handlerClockNanoseconds()
            handler(event)
            timer.record(System.handlerClockNanoseconds() - start, for: self)
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
