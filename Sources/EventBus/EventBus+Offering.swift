/// Offering an event to the entries of a list, in order, timed or not.
extension EventBus {
    /// A list of entries to offer an event to, unretained, in contiguous memory: a snapshot's
    /// storage or an array's. A buffer rather than a function from index to entry: the out-of-line
    /// timed loops called such a function for every entry.
    typealias EntryList = UnsafeBufferPointer<UnsafeReference<SubscriberEntry>>

    /// What offering one event to a list came to.
    ///
    /// Two words, so that the two tallies of a publish come back from the function that offers
    /// the event in registers. Returned through memory as four fields each, they were written
    /// field by field and read back in wider loads, which stalls the processor's store
    /// forwarding: one build spent 50 ns of a 127 ns publish there. A list's counts fit in 32
    /// bits.
    struct DeliveryTally {
        /// Calls made (low half) and deliveries handed to a queue or an actor (high half).
        private var calls = 0
        /// Of the calls, those made to subscribers of protocols (low half), which their own
        /// counters count; and whether a dead observer was met (bit 32).
        private var routedAndDead = 0

        var delivered: Int { calls & 0xFFFF_FFFF }
        var scheduled: Int { calls >> 32 }
        var routedDelivered: Int { routedAndDead & 0xFFFF_FFFF }
        var sawDeadObserver: Bool { routedAndDead >> 32 != 0 }

        /// Adds everything `other` counted: calls, scheduled deliveries, calls to protocols'
        /// subscribers, and whether a dead observer was met.
        mutating func add(_ other: DeliveryTally) {
            calls &+= other.calls
            let dead = (routedAndDead | other.routedAndDead) & (1 << 32)
            routedAndDead = dead | ((routedAndDead &+ other.routedAndDead) & 0xFFFF_FFFF)
        }

        /// Adds the calls and scheduled deliveries of `other`, both halves at once.
        mutating func addCalls(_ other: DeliveryTally) {
            calls &+= other.calls
        }

        /// Adds what the subscribers of protocols received.
        mutating func addRouted(_ routed: DeliveryTally) {
            addCalls(routed)
            routedAndDead &+= routed.delivered
        }

        @inline(__always)
        mutating func add(_ outcome: DeliveryOutcome) {
            switch outcome {
            case .delivered: calls &+= 1
            case .scheduled: calls &+= 1 << 32
            case .skipped: break
            case .observerDied: routedAndDead |= 1 << 32
            }
        }
    }

    /// Offers `payload` to `entries`, in order; while something
    /// watches the bus (`timer` is not `nil`), times each handler call.
    ///
    /// The entries are borrowed, not retained: a retain and a release around each call would
    /// write, twice per delivery, a line that every publishing thread writes. The caller keeps
    /// them alive, and every one of them was created as an `Entry<Payload>`, for its slot's type
    /// (invariant 5 of UnsafeReference).
    ///
    /// The event is copied once for the whole list, and each entry reads that copy in place
    /// through its class (``SubscriberEntry/offer(at:marker:timer:mainActor:)``), so that the
    /// loops ask the runtime for no generic metadata in the unspecialized code a publish from
    /// another module runs.
    @inline(__always)
    static func offer<Payload: Sendable>(
        _ payload: Payload, to entries: EntryList, marker: DeliveryMarker?, timer: HandlerTimer?
    ) -> DeliveryTally {
        // A copy of the publish's own, not the caller's storage: each entry reads it through an
        // `inout` access (see ``SubscriberEntry/offer(at:marker:timer:mainActor:)``), which
        // ThreadSanitizer counts as a write, and two threads publishing one stored event (a
        // `static let`) would read as a race in an app's sanitizer runs. Borrowing the caller's
        // storage instead saved a copy in unspecialized code; measured and not kept for that.
        var payload = payload
        return offer(built: &payload, to: entries, marker: marker, timer: timer)
    }

    /// ``offer(_:to:marker:timer:)`` for a payload the publish built itself (a wildcard
    /// record), offered where it lies: no thread but this one can see its storage, so the
    /// entries' `inout` reads need no copy of it.
    @inline(__always)
    static func offer<Payload: Sendable>(
        built payload: inout Payload, to entries: EntryList, marker: DeliveryMarker?, timer: HandlerTimer?
    ) -> DeliveryTally {
        withUnsafeMutablePointer(to: &payload) {
            let address = UnsafeMutableRawPointer($0)
            // Timed deliveries take a loop of their own, out of line, so that this one stays as
            // small as it was.
            if let timer {
                if timer.traced {
                    return offerTraced(at: address, to: entries, marker: marker, timer: timer)
                }
                return offerTimed(at: address, to: entries, marker: marker, timer: timer)
            }
            return offer(at: address, to: entries, marker: marker)
        }
    }

    /// Offers a publish's record to a wildcard list of both kinds of entries, one at a time:
    /// those behind a gate (the package's own buffers) untimed, the others timed, so that
    /// whether a monitor's calls are timed does not depend on who else watches. Out of line:
    /// an app's own delivery observer beside busmon is the rare case.
    ///
    /// - Parameter record: The publish's own record, offered where it lies (a copy of it cost
    ///   a value witness call to copy and one to destroy, for every publish an app watched by a
    ///   wildcard observer of its own makes under a monitor).
    @inline(never)
    static func offerTimingUngated(
        _ record: inout DeliveryRecord, to watchers: EntryList, marker: DeliveryMarker?, timer: HandlerTimer?
    ) -> DeliveryTally {
        var tally = DeliveryTally()
        for index in watchers.indices {
            let gated = watchers[index].borrow { $0.deliveryGate != nil }
            tally.add(
                offer(
                    built: &record, to: EntryList(rebasing: watchers[index..<index + 1]), marker: marker,
                    timer: gated ? nil : timer))
        }
        return tally
    }

    /// The untimed loop of ``offer(_:to:marker:timer:)``.
    @inline(__always)
    static func offer(
        at payload: UnsafeMutableRawPointer, to entries: EntryList, marker: DeliveryMarker?
    ) -> DeliveryTally {
        var tally = DeliveryTally()
        let marker = marker.map { UnsafeReference(unretained: $0) }
        var mainActor = MainActorPass(joiningDeliveries: true)
        for reference in entries {
            let outcome = reference.borrow {
                $0.offer(at: payload, marker: marker, timer: nil, mainActor: &mainActor)
            }
            tally.add(outcome)
        }
        return tally
    }

    /// The timed loop of ``offer(_:to:marker:timer:)``: a lap of ``HandlerClock`` after
    /// each call, the previous one its start. A delivery handed to a queue or an actor is timed
    /// where it runs.
    @inline(never)
    static func offerTimed(
        at payload: UnsafeMutableRawPointer, to entries: EntryList, marker: DeliveryMarker?,
        timer: HandlerTimer
    ) -> DeliveryTally {
        var tally = DeliveryTally()
        let marker = marker.map { UnsafeReference(unretained: $0) }
        var mainActor = MainActorPass(joiningDeliveries: true)
        let clock = HandlerClock.shared
        var laps = HandlerClock.Laps(clock)
        for reference in entries {
            let outcome = reference.borrow {
                $0.offer(at: payload, marker: marker, timer: timer, mainActor: &mainActor)
            }
            let nanoseconds = laps.lap(clock)
            if outcome == .delivered { reference.borrow { timer.record(nanoseconds, for: $0) } }
            tally.add(outcome)
        }
        return tally
    }

    /// The loop of ``offer(_:to:marker:timer:)`` while someone observes handler calls:
    /// each call is timed on the real-time clock, from its own start to its own end, and
    /// reported.
    @inline(never)
    static func offerTraced(
        at payload: UnsafeMutableRawPointer, to entries: EntryList, marker: DeliveryMarker?,
        timer: HandlerTimer
    ) -> DeliveryTally {
        // Cancelled since the publish began: timed as usual.
        guard let observers = timer.bus.callTracing.current() else {
            return offerTimed(at: payload, to: entries, marker: marker, timer: timer)
        }
        var tally = DeliveryTally()
        let marker = marker.map { UnsafeReference(unretained: $0) }
        var mainActor = MainActorPass(joiningDeliveries: true)
        for reference in entries {
            let start = System.wallClockNanoseconds()
            let outcome = reference.borrow {
                $0.offer(at: payload, marker: marker, timer: timer, mainActor: &mainActor)
            }
            if outcome == .delivered {
                let nanoseconds = max(0, System.wallClockNanoseconds() - start)
                reference.borrow {
                    timer.recordTraced(observers, start: start, nanoseconds: nanoseconds, for: $0)
                }
            }
            tally.add(outcome)
        }
        return tally
    }
}
