import Dispatch
public import EventBus
import Synchronization

/// Where a bus's publishing threads leave records for the one thread that takes them: the
/// in-process capture's, the tap's and the NATS bridge's.
///
/// An app's side runs inside every `publish`, so it is kept as short as it can be: take a
/// lock, store the event itself (formatted only when shown, ``FeedPayload/value(_:)``), its
/// reach and trace with a time stamp in 128 bytes, release the lock. No allocation (two
/// ``SlotRing``s are allocated once and swapped at each drain), no type name, no sequence
/// number, no wire record: ``drain()`` works those out on the taking thread. Lifecycle changes are
/// rare; they wait in a short array of their own, each with its place among the events, and
/// come out in the order things happened.
///
/// A full ring does what its owner chose (``WhenFull``). A monitor keeps the first events of a
/// round and counts the rest: under a flood an append then costs one relaxed load and one
/// atomic add and builds nothing, where writing over the oldest would cycle through the whole
/// ring (hundreds of kilobytes) for every event and miss the processor's caches each time. A
/// bridge keeps the newest, the ones worth sending when its server comes back. Either way drops
/// are counted, and exact totals come from the bus's own counters.
///
/// A taking thread that finds nothing may sleep in ``wait(timeout:)``; the next append wakes
/// it, at the cost of a flag read while nobody sleeps.
///
/// `@unchecked Sendable`: the rings hold events (`any Event`, which is `Sendable`) in raw
/// storage that only the locks reach.
@usableFromInline
package final class RecordInbox: @unchecked Sendable {
    /// What an append does when the ring has no room.
    @usableFromInline
    package enum WhenFull: Sendable {
        /// Keep what the ring holds and count the new event as dropped.
        case dropNewest
        /// Write over the oldest event, counting it as dropped.
        case dropOldest
    }

    /// What ``drain()`` hands over.
    package struct Drained: Sendable {
        /// The events and lifecycle changes appended since the previous drain, in the order they
        /// happened. Events are numbered from 1 in ``FeedEvent/sequence`` in the order they were
        /// appended, dropped ones included, so a gap shows a loss; their type names are filled in.
        package var records: [FeedRecord]
        /// The number of the first lifecycle change in ``records``; the others follow on.
        package var firstLifecycleSequence: Int
        /// Events appended so far, stored or dropped: the number of the newest.
        package var eventsAppended: Int
        /// Events dropped so far because the ring was full.
        package var droppedEvents: Int
        /// Lifecycle changes dropped so far because their array was full.
        package var droppedLifecycle: Int
        /// Handler calls dropped so far because their array was full.
        package var droppedCalls = 0

        /// The events of ``records``.
        package var events: [FeedEvent] { records.events }

        /// The lifecycle changes of ``records``.
        package var lifecycle: [FeedLifecycle] { records.lifecycleChanges }
    }

    /// A lifecycle change and how many events of the same filling came before it.
    struct PlacedChange {
        var eventsBefore: Int
        var change: FeedLifecycle
    }

    /// A handler call and how many events of the same filling came before it.
    struct PlacedCall {
        var eventsBefore: Int
        var call: HandlerCallRecord
    }

    /// What appends write, reached only under its lock.
    @usableFromInline
    struct Filling: ~Copyable {
        @usableFromInline var ring: SlotRing<CapturedEvent>
        /// Events of this filling written over since: the ring's oldest event is the
        /// `overwritten`-th of the filling.
        @usableFromInline var overwritten = 0
        /// A slice, so that dropping the oldest when full costs O(1), not a shift of them all.
        var changes: ArraySlice<PlacedChange> = []
        var changesAppended = 0
        /// Handler calls, while a monitor traces them.
        var calls: [PlacedCall] = []
        @usableFromInline var stamps = StampClock()
        /// Set by the taking thread when it found nothing and is about to wait.
        @usableFromInline var sleeping = false
        /// Events this filling keeps at most: ``capacity``, unless the drainer asked for fewer
        /// (``drain(sleepingIfEmpty:keepingAtMost:)``); beyond it `.dropNewest` drops.
        @usableFromInline var limit: Int

        /// Whether the taking thread sleeps, waiting to be woken; it is then woken once. Read
        /// before it is written, so that an append while nobody sleeps writes nothing.
        @inlinable @inline(__always)
        mutating func takeSleeper() -> Bool {
            guard sleeping else { return false }
            sleeping = false
            return true
        }
    }

    /// What only the taking side touches, under its own lock: drains take turns.
    private struct Taking: ~Copyable {
        /// Uninitialized slots that a drain swaps with the filling ones.
        var spare: SlotRing<CapturedEvent>
        /// The number the next event handed over gets.
        var nextSequence = 1
        /// Drops already accounted for in the numbering.
        var dropsNumbered = 0
        var typeNames: [ObjectIdentifier: String] = [:]
        /// The type named last, and its name: most events in a row are of one type, and a
        /// comparison is cheaper than hashing.
        var lastNamed: (type: ObjectIdentifier, name: String)?
        var observerNames: [ObjectIdentifier: String] = [:]
        /// The calls' array not being filled, emptied, its capacity kept.
        var spareCalls: [PlacedCall] = []

        /// The name of `event`'s type, as `String(describing:)` writes it, made once per type.
        mutating func typeName(of event: any Event) -> String {
            let type = ObjectIdentifier(Swift.type(of: event))
            if let lastNamed, lastNamed.type == type { return lastNamed.name }
            let name = Self.name(of: Swift.type(of: event), in: &typeNames)
            lastNamed = (type, name)
            return name
        }

        /// A handler call as a record, its observer's type named once per type.
        mutating func record(of call: HandlerCallRecord) -> FeedRecord {
            let name = call.observerType.map { Self.name(of: $0, in: &observerNames) }
            return .call(FeedHandlerCall(call, observerTypeName: name))
        }

        /// `type`'s name as `String(describing:)` writes it, from `names` once it was made.
        private static func name(of type: Any.Type, in names: inout [ObjectIdentifier: String]) -> String {
            if let known = names[ObjectIdentifier(type)] { return known }
            let name = String(describing: type)
            names[ObjectIdentifier(type)] = name
            return name
        }
    }

    /// Events the ring holds between two drains.
    package let capacity: Int
    /// Lifecycle changes kept between two drains; the oldest go first.
    package let lifecycleCapacity: Int
    @usableFromInline let whenFull: WhenFull
    @usableFromInline let clock: (@Sendable () -> Double)?
    @usableFromInline let filling: LockedUniqueValue<Filling>
    private let taking: LockedUniqueValue<Taking>
    /// Closed by the append that fills a ``WhenFull/dropNewest`` ring and opened by a drain, so
    /// that appends to a full ring skip the lock, and a bus that delivers to the inbox through
    /// it (``EventBus/observeDeliveries(through:handler:)``) builds nothing for it meanwhile. An
    /// append that read a stale "closed" just after a drain drops an event that would have fit,
    /// counted like any other drop. Its count of refusals is the inbox's count of dropped
    /// events, whoever turned them away.
    @usableFromInline package let gate = DeliveryGate()
    /// Lifecycle changes dropped so far, counted under the lock.
    private let changeDrops = Atomic<Int>(0)
    /// Handler calls dropped so far, counted under the lock.
    private let callDrops = Atomic<Int>(0)
    @usableFromInline let wakeSignal = DispatchSemaphore(value: 0)

    /// Creates an empty inbox.
    ///
    /// - Parameters:
    ///   - capacity: Events kept between two drains; at least 1. Room for twice this many is
    ///     reserved up front, one ring to fill and one to swap in, so that appending never
    ///     allocates; untouched pages cost no memory until written.
    ///   - lifecycleCapacity: Lifecycle changes kept between two drains, the oldest dropped
    ///     first; `capacity`, up to 4096, when `nil`.
    ///   - whenFull: What an append to a full ring does.
    ///   - clock: Stamps records, in seconds since 1970; the system's real-time clock, read
    ///     through a ``StampClock``, when `nil`.
    package init(
        capacity: Int, lifecycleCapacity: Int? = nil, whenFull: WhenFull,
        clock: (@Sendable () -> Double)? = nil
    ) {
        self.capacity = max(1, capacity)
        self.lifecycleCapacity = max(1, lifecycleCapacity ?? min(self.capacity, 4096))
        self.whenFull = whenFull
        self.clock = clock
        filling = LockedUniqueValue(Filling(ring: SlotRing(capacity: self.capacity), limit: self.capacity))
        taking = LockedUniqueValue(Taking(spare: SlotRing(capacity: self.capacity)))
    }

    /// Called on the publisher's thread for every event; inlined into the caller's handler, as
    /// the buffer code of each module was before there was one inbox.
    @inlinable @inline(__always)
    package func append(_ delivery: DeliveryRecord) {
        guard !gate.turnsAway else {
            gate.countRefusal()
            return
        }
        guard whenFull == .dropNewest else {
            appendOverwritingOldest(delivery)
            return
        }
        let wake = filling.withLock { filling -> Bool in
            if filling.ring.count < filling.limit {
                filling.ring.append(
                    CapturedEvent(
                        event: delivery.event, time: clock?() ?? filling.stamps.stamp(),
                        receivers: delivery.receivers, trace: delivery.trace))
                if filling.ring.count >= filling.limit {
                    gate.isClosed.store(true, ordering: .relaxed)
                }
            } else {
                gate.countRefusal()
            }
            return filling.takeSleeper()
        }
        if wake { wakeSignal.signal() }
    }

    /// ``append(_:)-(DeliveryRecord)`` for a ``WhenFull/dropOldest`` inbox.
    @inlinable @inline(__always)
    func appendOverwritingOldest(_ delivery: DeliveryRecord) {
        let (wake, _) = filling.withLock { filling -> (Bool, CapturedEvent?) in
            let event = CapturedEvent(
                event: delivery.event, time: clock?() ?? filling.stamps.stamp(),
                receivers: delivery.receivers, trace: delivery.trace)
            var overwritten: CapturedEvent?
            if filling.ring.isFull {
                overwritten = filling.ring.appendOverwritingOldest(event)
                filling.overwritten += 1
                // Counted under the lock, so that a drain numbers the events exactly.
                gate.countRefusal()
            } else {
                filling.ring.append(event)
            }
            return (filling.takeSleeper(), overwritten)
        }
        // The event written over is released on return, after the lock: its `deinit` may publish.
        if wake { wakeSignal.signal() }
    }

    /// Called on whichever thread changed the subscriptions; rare, so kept simple.
    package func append(_ change: SubscriberLifecycleEvent) {
        let (wake, _) = filling.withLock { filling -> (Bool, PlacedChange?) in
            filling.changesAppended += 1
            var dropped: PlacedChange?
            if filling.changes.count >= lifecycleCapacity {
                dropped = filling.changes.removeFirst()
                changeDrops.wrappingAdd(1, ordering: .relaxed)
            }
            filling.changes.append(
                PlacedChange(
                    eventsBefore: filling.overwritten + filling.ring.count,
                    change: FeedLifecycle(time: clock?() ?? filling.stamps.stamp(), change: change)))
            return (filling.takeSleeper(), dropped)
        }
        if wake { wakeSignal.signal() }
    }

    /// Called on the thread of each handler call while a monitor traces calls; keeps up to
    /// ``capacity`` calls between two drains and counts the rest as dropped.
    package func append(_ call: HandlerCallRecord) {
        let wake = filling.withLock { filling -> Bool in
            if filling.calls.count < capacity {
                filling.calls.append(
                    PlacedCall(eventsBefore: filling.overwritten + filling.ring.count, call: call))
            } else {
                callDrops.wrappingAdd(1, ordering: .relaxed)
            }
            return filling.takeSleeper()
        }
        if wake { wakeSignal.signal() }
    }

    /// The numbers the next event and the next lifecycle change handed over will get.
    package func nextSequences() -> (event: Int, lifecycle: Int) {
        taking.withLock { taking in
            let lifecycle = filling.withLock { $0.changesAppended - $0.changes.count + 1 }
            return (taking.nextSequence, lifecycle)
        }
    }

    /// Hands over everything appended since the previous drain, oldest first, and empties the
    /// inbox.
    ///
    /// - Parameters:
    ///   - sleepingIfEmpty: When there is nothing, note that the caller will wait in
    ///     ``wait(timeout:)``, so that the next append wakes it.
    ///   - limit: Events the inbox keeps until the next drain (at most ``capacity``, which
    ///     `nil` means); with `.dropNewest`, later ones are dropped and counted at the cost of a
    ///     load and an increment. A drainer that can pass on only so many asks for that many, so
    ///     that the app does not pay to store what would be thrown away.
    /// - Complexity: O(*n*) in the records handed over; appends wait only while the rings are
    ///   swapped.
    package func drain(sleepingIfEmpty: Bool = false, keepingAtMost limit: Int? = nil) -> Drained {
        taking.withLock { taking in
            // The calls' array is swapped like the ring, so that appends fill kept capacity.
            var calls: [PlacedCall] = []
            swap(&calls, &taking.spareCalls)
            let (changes, changesAppended, dropped, overwritten) = filling.withLock { filling in
                if sleepingIfEmpty && filling.ring.isEmpty && filling.changes.isEmpty && filling.calls.isEmpty
                {
                    filling.sleeping = true
                }
                swap(&filling.ring, &taking.spare)
                filling.limit = min(capacity, max(1, limit ?? capacity))
                swap(&filling.calls, &calls)
                defer {
                    filling.overwritten = 0
                    filling.changes = []
                }
                // Read under the lock: every append that found no room before this drain has
                // counted its drop, or will count it against the next filling.
                let dropped = gate.refused.load(ordering: .relaxed)
                gate.isClosed.store(false, ordering: .relaxed)
                return (Array(filling.changes), filling.changesAppended, dropped, filling.overwritten)
            }
            // Events written over came before the ones the ring still holds; events a full ring
            // turned away came after them.
            let turnedAway = dropped - taking.dropsNumbered - overwritten
            taking.dropsNumbered = dropped
            taking.nextSequence += overwritten
            var records: [FeedRecord] = []
            let count = taking.spare.count + changes.count + calls.count
            if count > 0 { records.reserveCapacity(count) }
            var nextChange = 0
            var nextCall = 0
            var index = overwritten
            // A loop, not a closure per event: a closure that captures `taking` and `records`
            // had each of its accesses checked for exclusivity at run time.
            while let event = taking.spare.popFirst() {
                while nextChange < changes.count, changes[nextChange].eventsBefore <= index {
                    records.append(.lifecycle(changes[nextChange].change))
                    nextChange += 1
                }
                while nextCall < calls.count, calls[nextCall].eventsBefore <= index {
                    records.append(taking.record(of: calls[nextCall].call))
                    nextCall += 1
                }
                records.append(
                    .event(
                        FeedEvent(
                            sequence: taking.nextSequence, time: event.time,
                            typeName: taking.typeName(of: event.event), payload: .value(event.event),
                            receivers: event.receivers, trace: event.trace)))
                taking.nextSequence += 1
                index += 1
            }
            for change in changes[nextChange...] { records.append(.lifecycle(change.change)) }
            for call in calls[nextCall...] { records.append(taking.record(of: call.call)) }
            calls.removeAll(keepingCapacity: true)
            taking.spareCalls = calls
            taking.nextSequence += max(0, turnedAway)
            return Drained(
                records: records, firstLifecycleSequence: changesAppended - changes.count + 1,
                eventsAppended: taking.nextSequence - 1, droppedEvents: dropped,
                droppedLifecycle: changeDrops.load(ordering: .relaxed),
                droppedCalls: callDrops.load(ordering: .relaxed))
        }
    }

    /// Waits until an append or ``wake()`` wakes the taking thread, or `timeout` seconds pass.
    package func wait(timeout: Double?) {
        if let timeout {
            _ = wakeSignal.wait(timeout: .now() + timeout)
        } else {
            wakeSignal.wait()
        }
    }

    /// Wakes the taking thread, whether it sleeps or not (an extra wake-up costs one round).
    package func wake() {
        wakeSignal.signal()
    }

    /// Events appended so far, stored or dropped: the number the newest has or will have.
    package var eventsAppended: Int {
        taking.withLock { taking in
            filling.withLock { filling in
                taking.nextSequence - 1 + filling.ring.count + gate.refused.load(ordering: .relaxed)
                    - taking.dropsNumbered
            }
        }
    }

    /// Events dropped so far because the ring was full.
    package var droppedEvents: Int { gate.refused.load(ordering: .relaxed) }

    /// Lifecycle changes dropped so far because their array was full.
    package var droppedLifecycle: Int { changeDrops.load(ordering: .relaxed) }

    /// Handler calls dropped so far because their array was full.
    package var droppedCalls: Int { callDrops.load(ordering: .relaxed) }

}

/// An event as an append stores it: only what the publisher's thread must copy. The taking
/// thread numbers it, names its type and makes it a ``FeedEvent`` (168 bytes where this is 128,
/// and its type name and payload written on every append).
@usableFromInline
struct CapturedEvent {
    @usableFromInline let event: any Event
    /// Seconds since 1970.
    @usableFromInline let time: Double
    @usableFromInline let receivers: Int
    @usableFromInline let trace: PublishTrace

    @inlinable @inline(__always)
    init(event: any Event, time: Double, receivers: Int, trace: PublishTrace) {
        self.event = event
        self.time = time
        self.receivers = receivers
        self.trace = trace
    }
}
