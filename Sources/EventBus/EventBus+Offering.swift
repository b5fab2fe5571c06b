/// Offering an event to the entries of a list, in order, timed or not.
extension EventBus {
    /// What offering one event to a list came to.
    struct DeliveryTally {
        var delivered = 0
        var scheduled = 0
        var sawDeadObserver = false
        /// Of ``delivered``, the calls made to subscribers of protocols, which their own
        /// counters count.
        var routedDelivered = 0

        /// Adds what the subscribers of protocols received.
        mutating func addRouted(_ routed: DeliveryTally) {
            delivered += routed.delivered
            routedDelivered += routed.delivered
            scheduled += routed.scheduled
        }

        @inline(__always)
        mutating func add(_ outcome: DeliveryOutcome) {
            switch outcome {
            case .delivered: delivered += 1
            case .scheduled: scheduled += 1
            case .skipped: break
            case .observerDied: sawDeadObserver = true
            }
        }
    }

    /// Offers `payload` to the `count` entries `entry(_:)` returns, in order.
    ///
    /// The entries are borrowed, not retained: a retain and a release around each call would
    /// write, twice per delivery, a line that every publishing thread writes. The caller keeps
    /// them alive, and every one of them was created as an `entryType`, for its slot's type.
    @inline(__always)
    static func offer<Payload: Sendable>(
        _ payload: Payload, to count: Int, _ entryType: Entry<Payload>.Type, marker: DeliveryMarker?,
        entry: (Int) -> UnsafeReference<SubscriberEntry>
    ) -> DeliveryTally {
        var tally = DeliveryTally()
        let marker = marker.map { UnsafeReference(unretained: $0) }
        var mainActor = MainActorPass()
        for index in 0..<count {
            // Invariant 5 of UnsafeReference: borrowed, and created as an `entryType`.
            let outcome = entry(index).borrow(as: entryType) {
                $0.offer(payload, marker: marker, mainActor: &mainActor)
            }
            tally.add(outcome)
        }
        return tally
    }

    /// ``offer(_:to:_:marker:entry:)`` with every handler call timed, while something watches
    /// the bus: one clock reading after each call, the previous one its start. A delivery handed
    /// to a queue or an actor is timed where it runs.
    @inline(never)
    static func offerTimed<Payload: Sendable>(
        _ payload: Payload, to count: Int, _ entryType: Entry<Payload>.Type, marker: DeliveryMarker?,
        timer: HandlerTimer, entry: (Int) -> UnsafeReference<SubscriberEntry>
    ) -> DeliveryTally {
        var tally = DeliveryTally()
        let marker = marker.map { UnsafeReference(unretained: $0) }
        var mainActor = MainActorPass()
        var last = System.handlerClockNanoseconds()
        for index in 0..<count {
            let reference = entry(index)
            // Invariant 5 of UnsafeReference: borrowed, and created as an `entryType`.
            let outcome =
                reference.borrow { $0.scheduler == nil }
                ? reference.borrow(as: entryType) { $0.offer(payload, marker: marker, mainActor: &mainActor) }
                : reference.borrow(as: entryType) {
                    $0.offer(payload, marker: marker, scheduledTimer: timer.scheduled, mainActor: &mainActor)
                }
            let now = System.handlerClockNanoseconds()
            if outcome == .delivered { reference.borrow { timer.record(now - last, for: $0) } }
            last = now
            tally.add(outcome)
        }
        return tally
    }
}
