import BusWire
import EventBus

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where the app's publishing threads leave events for the tap thread.
///
/// The publisher's side runs inside every `publish`, so it is kept as short as it can be: take a
/// lock, store the event as the wire record it becomes, holding the event itself (no
/// formatting, ``FeedPayload/value(_:)``) with a time stamp, release the lock. The tap thread
/// numbers it, names its type and encodes it. The tap
/// thread swaps the whole buffer for an empty one under the lock (a few stores) on every round,
/// at least every ``TapServer/tick``, and reads it afterwards without the lock, so the two sides
/// meet only briefly.
///
/// When the buffer fills before the tap comes round (more than `capacity` events in one round,
/// a million a second with the defaults), the rest of that round's events are counted and not
/// stored: the cheapest thing a publisher can do, about half the cost of storing, so that a
/// flood costs the app least exactly when it publishes most. Readers see the gap in the sequence
/// numbers. Below that rate nothing is lost here; readers that fall behind lose their oldest
/// records in ``TapHistory``.
///
/// The guarded state is one value in a ``LockedValue``, reachable only under its lock; as a
/// class's stored `var`s it would also pay the run-time exclusivity check on every access, which
/// here would cost more than the work itself.
///
/// `@unchecked Sendable`: the rings hold events (`any Event`, which is `Sendable`) in raw
/// storage, and only the box's lock reaches them.
final class TapInbox: @unchecked Sendable {
    /// A lifecycle change, with its number and the number of events published before it, to
    /// keep the order.
    struct LifecycleSlot {
        var sequence: Int
        var eventsBefore: Int
        var record: FeedLifecycle
    }

    /// A buffer of event records: the storage the publishers fill, or the one the tap thread
    /// reads, numbered from its ``SlotRing/firstSequence``. Each record's type name is left
    /// empty, and its sequence 0, for the tap thread to fill in: the publisher does less.
    typealias Ring = SlotRing<FeedEvent>

    private struct State {
        var active: Ring?
        var eventsWritten = 0
        var lifecycle: [LifecycleSlot] = []
        var lifecycleWritten = 0
        var stamps = StampClock()
    }

    let capacity: Int
    let lifecycleCapacity: Int
    private let state = LockedValue(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        lifecycleCapacity = min(self.capacity, 4096)
    }

    deinit {
        state.withLock { $0.active?.deallocate() }
    }

    /// Starts accepting events into `ring`; the tap calls this when its first reader connects.
    func open(with ring: Ring) {
        state.withLock { state in
            var ring = ring
            ring.firstSequence = state.eventsWritten + 1
            state.active = ring
        }
    }

    /// Stops accepting events and hands back the ring, still holding what it had.
    func close() -> Ring? {
        state.withLock { state in
            defer {
                state.active = nil
                state.lifecycle = []
            }
            return state.active
        }
    }

    /// The sequence numbers the next event and lifecycle change will get.
    func nextSequences() -> (event: Int, lifecycle: Int) {
        state.withLock { ($0.eventsWritten + 1, $0.lifecycleWritten + 1) }
    }

    /// Called on the publisher's thread for every event.
    @inline(__always)
    func append(_ delivery: DeliveryRecord) {
        state.withLock { state in
            guard state.active != nil else { return }
            // Counted even when not stored, so the sequence numbers show the gap.
            state.eventsWritten += 1
            if !state.active!.isFull {
                let time = state.stamps.stamp()
                state.active!.append(
                    FeedEvent(
                        sequence: 0, time: time, typeName: "", payload: .value(delivery.event),
                        receivers: delivery.receivers, trace: delivery.trace))
            }
        }
    }

    /// Called on whichever thread changed the subscriptions; rare, so kept simple.
    func append(_ change: SubscriberLifecycleEvent) {
        state.withLock { state in
            guard state.active != nil else { return }
            state.lifecycleWritten += 1
            if state.lifecycle.count >= lifecycleCapacity { state.lifecycle.removeFirst() }
            let slot = LifecycleSlot(
                sequence: state.lifecycleWritten, eventsBefore: state.eventsWritten,
                record: FeedLifecycle(time: state.stamps.stamp(), change: change))
            state.lifecycle.append(slot)
        }
    }

    /// Swaps in `empty` (whose slots must hold nothing) and returns what was gathered since the
    /// last swap, with the number of events published so far (stored or not), or nil when the
    /// inbox is closed.
    func swap(for empty: Ring) -> (events: Ring, lifecycle: [LifecycleSlot], eventsPublished: Int)? {
        state.withLock { state in
            guard let full = state.active else { return nil }
            let published = state.eventsWritten
            var fresh = empty
            fresh.firstSequence = state.eventsWritten + 1
            state.active = fresh
            let changes = state.lifecycle
            state.lifecycle = []
            return (full, changes, published)
        }
    }
}
