import Synchronization

/// What one thread is in the middle of delivering.
///
/// Publishing from inside a handler must not recurse into a second delivery: the bus queues the
/// new event on the outer delivery's frame and delivers it when the current event is finished,
/// so every subscriber sees one thread's events in the order they were published. The state is
/// per thread, so it needs no lock.
final class ThreadDeliveryState {
    /// One bus whose delivery loop is running on this thread, and the events queued behind it.
    ///
    /// The loop's events are one cascade: the event published at top level and every event its
    /// handlers set off, which the bus counts against its cascade limit.
    struct Frame {
        var bus: ObjectIdentifier
        var pending: [PendingDelivery] = []
        /// The event being delivered now: what a handler publishing names as its cause.
        var current: PublishOrigin
        /// The type of the loop's top-level event, which a stopped cascade's account starts from.
        var rootType: any Event.Type
        /// Events set off so far by the loop's top-level event, while the cascade stays on this
        /// thread (afterwards its ``CascadeRecord/shared`` part counts).
        var cascadeCount = 0
        /// Set once the cascade is stopped: nothing more is queued or delivered.
        var halted = false
        /// Allocated only for a cascade that grew past half its limit, went on through a queue
        /// or an actor, or was stopped.
        var record: CascadeRecord?

        /// Makes a frame left by an earlier loop the frame of a new one, keeping its queue's
        /// storage.
        mutating func reuse(bus: ObjectIdentifier, origin: PublishOrigin, record: CascadeRecord?) {
            self.bus = bus
            current = origin
            rootType = record?.shared?.rootType ?? origin.type
            cascadeCount = 0
            halted = false
            self.record = record
        }
    }

    /// An event published from inside a handler, waiting for the current one to finish.
    struct PendingDelivery {
        let origin: PublishOrigin
        let deliver: () -> Void
    }

    // `@exclusivity(unchecked)`: only the owning thread touches these, and never while a
    // handler runs inside one of its accesses (a queued job is copied out before it runs), so
    // the dynamic exclusivity check could never fire; it would cost a thread-local lookup per
    // access on every publish.

    /// The delivery loops running on this thread, innermost last: the first ``depth`` frames.
    /// The frames after them are left by loops that ended, and are reused, so that a publish
    /// neither grows nor shrinks the array, nor copies a frame out of it.
    @exclusivity(unchecked) var frames: [Frame] = []

    /// How many delivery loops are running on this thread.
    @exclusivity(unchecked) private(set) var depth = 0

    /// How many handlers delivered through a queue are running on this thread right now.
    @exclusivity(unchecked) var queuedHandlerDepth = 0

    /// The event whose queued, actor or main-actor delivery is running on this thread, if any:
    /// what its handler publishes is counted in its cascade and names it as the cause.
    @exclusivity(unchecked) var scheduledCause: ScheduledCause? {
        didSet { hasScheduledCause = scheduledCause != nil }
    }
    /// Whether ``scheduledCause`` is set: a flag a publish reads without copying the cause.
    @exclusivity(unchecked) private(set) var hasScheduledCause = false

    /// A slot this thread published to lately, and its publishes not yet counted by the bus.
    struct CachedSlot {
        /// The bus's ``EventBus/serialNumber``: unlike its address, never reused by a later bus.
        let bus: UInt64
        let type: ObjectIdentifier
        /// Unretained, so that a publish writes no reference count on a line other threads
        /// read. Safe only while bus `bus` lives, which it does when it looks the slot up, and it
        /// keeps every slot for its whole life; entries of dead buses are never dereferenced.
        let slot: UnsafeReference<TypeSlot>
        /// Publishes through this entry since the bus last counted them for its sweep.
        var uncountedPublishes: Int
    }

    /// How many slots ``slotCache`` keeps; a thread rarely publishes more types in a burst, and
    /// a linear scan of a few entries costs less than hashing.
    static let slotCacheCapacity = 8

    /// Slots of the types this thread published lately, found without the bus's lock.
    @exclusivity(unchecked) var slotCache: [CachedSlot] = []
    /// The entry of ``slotCache`` to replace on the next miss when it is full, round-robin.
    @exclusivity(unchecked) private var nextEvicted = 0

    /// This thread as traces name it, read from the system the first time a traced call or
    /// publish asks.
    var traceThread: TraceThread {
        if let known = knownTraceThread { return known }
        let identity = System.currentThreadIdentity()
        let thread = TraceThread(id: identity.id, isMain: identity.isMain)
        knownTraceThread = thread
        return thread
    }
    /// ``traceThread`` once read; only this thread touches it, and a main-actor publish reads it.
    @exclusivity(unchecked) private var knownTraceThread: TraceThread?

    /// Announces the handler this thread's outermost delivery is running, for cancellers, and
    /// the subscriber lists it reads, for writers that retire them.
    let deliveryMarker = DeliveryMarker.registerNew()

    /// Which stripe of each type's ``TypeCounters`` this thread adds to: threads take numbers in
    /// turn, so threads started together count on different cache lines.
    let counterStripe = nextCounterStripe.wrappingAdd(1, ordering: .relaxed).oldValue

    /// The marker a delivery starting now may use: only the outermost delivery loop's, since a
    /// delivery nested in a handler would overwrite the entry that handler's caller announced.
    /// Unretained: this state keeps it alive for as long as the thread runs.
    @inline(__always)
    var markerForDelivery: UnsafeReference<DeliveryMarker>? {
        depth == 1 ? UnsafeReference(unretained: deliveryMarker) : nil
    }

    /// Whether this thread is inside any handler of any bus.
    ///
    /// Cancelling from inside a handler must not wait for in-flight deliveries: the caller may be
    /// one of them.
    var isDelivering: Bool {
        depth > 0 || queuedHandlerDepth > 0
    }

    /// The calling thread's state, created on first use and freed when the thread exits.
    static var current: ThreadDeliveryState {
        currentUnretained.object
    }

    /// The calling thread's state, unretained: the thread keeps it until it exits, so code on
    /// the thread can borrow it (UnsafeReference, invariant 2) instead of retaining and
    /// releasing it (two atomic operations) on every publish.
    @inline(__always)
    static var currentUnretained: UnsafeReference<ThreadDeliveryState> {
        if let pointer = System.threadValue(for: threadDeliveryStateKey) {
            return UnsafeReference(opaque: pointer)
        }
        // Retained once, released by the thread key's destructor (UnsafeReference, invariant 2).
        let state = RetainedReference(retaining: ThreadDeliveryState()).handOver()
        System.setThreadValue(state.opaque, for: threadDeliveryStateKey)
        return state
    }

    /// The index of `bus`'s frame, if its delivery loop is running on this thread.
    @inline(__always)
    func frameIndex(of bus: ObjectIdentifier) -> Int? {
        // Nesting across buses is rare and shallow, so a linear scan beats any table.
        var index = depth - 1
        while index >= 0 {
            if frames[index].bus == bus { return index }
            index -= 1
        }
        return nil
    }

    /// The index in ``slotCache`` of the slot of `type` on the bus numbered `bus`, if cached.
    @inline(__always)
    func cachedSlotIndex(bus: UInt64, type: ObjectIdentifier) -> Int? {
        for index in slotCache.indices where slotCache[index].bus == bus && slotCache[index].type == type {
            return index
        }
        return nil
    }

    /// Caches `slot`, replacing the oldest entry when the cache is full.
    func cache(_ slot: TypeSlot, bus: UInt64) {
        let entry = CachedSlot(
            bus: bus, type: slot.typeID, slot: UnsafeReference(unretained: slot), uncountedPublishes: 0)
        if slotCache.count < Self.slotCacheCapacity {
            slotCache.append(entry)
            return
        }
        slotCache[nextEvicted] = entry
        nextEvicted = (nextEvicted + 1) % Self.slotCacheCapacity
    }

    /// Runs `deliver` as the outermost delivery of `bus` on this thread, then everything that
    /// handlers queued behind it, in order, until the queue is empty or the cascade is stopped.
    ///
    /// - Parameters:
    ///   - origin: The top-level event's origin.
    ///   - record: The cascade's record when it continues one from another thread.
    /// - Returns: The cascade's record when it has one (a stopped cascade's report is in it).
    @inline(__always)
    func runDeliveryLoop(
        for bus: ObjectIdentifier, origin: PublishOrigin, record: CascadeRecord?, _ deliver: () -> Void
    ) -> CascadeRecord? {
        if depth == 0 {
            isOnMainActor = nil
            queuesMainActorDeliveries = false
        }
        // A handler of this loop that publishes names the loop's event as its cause, not the
        // queued delivery this thread may be running.
        let hadCause = hasScheduledCause
        let outerCause = hadCause ? scheduledCause : nil
        if hadCause { scheduledCause = nil }
        let index = depth
        if index < frames.count {
            frames[index].reuse(bus: bus, origin: origin, record: record)
        } else {
            frames.append(
                Frame(
                    bus: bus, current: origin, rootType: record?.shared?.rootType ?? origin.type,
                    record: record))
        }
        depth += 1
        deliver()
        var next = 0
        while next < frames[index].pending.count {
            let job = frames[index].pending[next]
            next += 1
            // The loops of the event before are over: their job of joined deliveries goes now.
            frames[index].record?.openJoinedDeliveries = nil
            frames[index].current = job.origin
            job.deliver()
        }
        depth -= 1
        let finished = frames[index].record
        // What the ended loop holds goes now; the frame's storage stays for the next loop.
        if finished != nil { frames[index].record = nil }
        if !frames[index].pending.isEmpty { frames[index].pending.removeAll(keepingCapacity: true) }
        if hadCause { scheduledCause = outerCause }
        if depth == 0 {
            isOnMainActor = nil
            queuesMainActorDeliveries = false
        }
        return finished
    }

    /// Where the event being delivered came from: its delivery loop's current event. Read only
    /// to build a record for wildcard observers, so that a publish passes nothing for it.
    var currentOrigin: PublishOrigin {
        frames[depth - 1].current
    }

    /// What a delivery handed to a queue or an actor now carries of the event being delivered,
    /// so that its handler's publishes join this cascade; `nil` outside any delivery loop.
    func causeForScheduledDelivery() -> ScheduledCause? {
        guard depth > 0 else { return scheduledCause }
        let index = depth - 1
        let record = recordOfRunningLoop()
        let shared =
            record.shared
            ?? SharedCascade(published: frames[index].cascadeCount, rootType: frames[index].rootType)
        record.shared = shared
        return ScheduledCause(
            bus: frames[index].bus, eventID: frames[index].current.eventID, type: frames[index].current.type,
            cascade: shared)
    }

    /// The job of joined main-actor deliveries the running loop scheduled last, if it noted
    /// one (``MainActorPass/hasOpenJoinedDeliveries``); a later loop of the frame replaces it.
    var openJoinedDeliveries: JoinedDeliveries? {
        depth > 0 ? frames[depth - 1].record?.openJoinedDeliveries : nil
    }

    /// Holds `job` in the running loop's frame until the frame's delivery ends or the next
    /// job replaces it; returns `false` outside any delivery loop, where nothing holds it.
    func holdOpenJoinedDeliveries(_ job: JoinedDeliveries) -> Bool {
        guard depth > 0 else { return false }
        recordOfRunningLoop().openJoinedDeliveries = job
        return true
    }

    /// The cascade record of the running loop's frame, made on first need; inside a loop only.
    private func recordOfRunningLoop() -> CascadeRecord {
        let index = depth - 1
        let record = frames[index].record ?? CascadeRecord()
        frames[index].record = record
        return record
    }

    /// Whether the outermost delivery loop running on this thread runs on the main actor, once
    /// a main-actor handler has asked; `nil` outside delivery loops and before anyone asked.
    ///
    /// A publish is synchronous, so its executor cannot change while it delivers: asking once
    /// per publish is enough, and asking costs far more than a handler call (see
    /// ``MainActorCheck``).
    @exclusivity(unchecked) var isOnMainActor: Bool?
    /// Set when a main-actor delivery of the outermost delivery loop running on this thread ran
    /// the deliveries waiting for the main actor and its turn's time ran out: every later
    /// main-actor delivery of the loop then queues behind them, so that no subscriber sees an
    /// event of the loop before an older one. Cleared when the next outermost loop begins.
    @exclusivity(unchecked) var queuesMainActorDeliveries = false
}

/// The stripe number the next thread's state takes.
private let nextCounterStripe = Atomic<Int>(0)

private let threadDeliveryStateKey = System.makeThreadKey { pointer in
    // Optional on Linux, not on Darwin; taken as optional so that both read the same.
    let value: UnsafeMutableRawPointer? = pointer
    guard let value else { return }
    let state = RetainedReference(adopting: UnsafeReference<ThreadDeliveryState>(opaque: value))
    DeliveryMarker.unregister(state.borrowed.object.deliveryMarker)
    state.release()
}
