import Dispatch
import Synchronization

/// The serial number of the last bus created; see ``EventBus/serialNumber``.
private let lastBusSerialNumber = Atomic<UInt64>(0)

/// A type-safe publish/subscribe hub that holds its observers weakly.
///
/// Publishers and subscribers know only the event types, not each other:
///
/// ```swift
/// struct UserLoggedInEvent: Event { let userId: String; let userName: String }
///
/// let bus = EventBus()
/// bus.subscribe(observer: self) { (event: UserLoggedInEvent) in
///     print("welcome, \(event.userName)")
/// }
/// bus.publish(event: UserLoggedInEvent(userId: "42", userName: "Ada"))
/// ```
///
/// ## Guarantees
/// - **Weak observers.** A subscription made with an observer ends when the observer is
///   deallocated: its handler is never called again, and the bus reclaims the entry as it goes,
///   without waiting for an event of that type. `unsubscribe(observer:)` works from `deinit`.
/// - **Thread safety.** Every method may be called from any thread. Handlers run outside the
///   bus's lock, so they may call back into the bus.
/// - **Cancellation.** Once `cancel()` or `unsubscribe(observer:)` returns, no new call of that
///   handler starts; called from outside any handler, they also wait for calls already running
///   on other threads to return.
/// - **Ordering.** Handlers of one type run in subscription order, then wildcard observers. An
///   event published from inside a handler is delivered once the current event's delivery has
///   finished, on the same thread, so subscribers see each thread's events in publish order.
/// - **Snapshots.** A subscription made during a delivery does not receive the event being
///   delivered.
public final class EventBus: Sendable {
    /// The app-wide bus.
    public static let shared = EventBus(name: "shared")

    /// A name that monitors show for this bus.
    public let name: String

    /// Identifies this bus in each thread's cache of slots. Unlike the bus's address, which a
    /// later bus may reuse, no two buses in a process share it.
    let serialNumber = lastBusSerialNumber.wrappingAdd(1, ordering: .relaxed).newValue

    /// Everything the bus's lock guards: the slots and their records, lifecycle observers,
    /// what changes retired, the sweep. A publish takes no lock: it reads its type's subscriber
    /// list through a snapshot, and takes this lock only once per batch of publishes, for a
    /// step of the sweep. Changes go through ``update(_:)``.
    let state: LockedValue<BusState>
    /// The wildcard observers' slot, also in ``state``; kept here too, so that a publish reaches
    /// it without the lock. Keyed by a type that is not an `Event`, so no published type's slot
    /// shares its identity.
    let wildcardSlot: TypeSlot
    /// Deliveries waiting for the main actor, for every main-actor handler of this bus, so that
    /// they run in the order they were published.
    let mainActorMailbox = ActorMailbox(.mainActor)
    /// The protocols subscribed to, which publishes of conforming types also reach.
    let protocolRoutes = ProtocolRoutes()
    /// Where the bus reads the time (never while publishing).
    let clock: BusClock
    /// The numbers given to events published while someone watches the bus.
    let eventNumbers = EventNumbers()
    /// Set while the bus has lifecycle observers; with wildcard observers, what makes the bus
    /// time its handlers.
    let lifecycleWatch = WatchFlag()
    /// Who observes handler calls; while anyone does, calls are timed one by one and reported,
    /// and publishes note their thread and time.
    let callTracing = HandlerCallTracing()
    /// ``slowHandlerThreshold`` in nanoseconds, as handler times are measured.
    let slowHandlerNanoseconds: Int
    /// ``slowDeliveryThreshold`` in nanoseconds, as waits are measured.
    let slowDeliveryNanoseconds: Int
    /// Paces the reports of slow calls, of slow deliveries and of failures.
    let slowCallReports = ReportPacer(perSecond: 10)
    /// See ``slowCallReports``.
    let slowDeliveryReports = ReportPacer(perSecond: 10)
    let failureReports = ReportPacer(perSecond: 100)

    /// How many events one top-level publish may set off, directly or through handlers that
    /// publish in turn, before the bus stops delivering that cascade; `nil` for no limit.
    ///
    /// Two handlers that publish each other's event would otherwise never let `publish` return.
    /// Past the limit the bus delivers no more of the cascade, reports a
    /// ``SubscriberLifecycleEvent/Kind/cascadeStopped`` event naming the loop, and goes on
    /// serving every other publish.
    public let cascadeLimit: Int?
    /// How long a handler call may take before the bus reports it as slow, while someone
    /// watches the bus: 16 ms, a frame at 60 Hz, by default.
    public let slowHandlerThreshold: Duration
    /// How long a delivery may wait for its handler to start, on the main actor, another actor
    /// or a dispatch queue, before the bus reports it as slow, while someone watches the bus:
    /// 16 ms, a frame at 60 Hz, by default. A handler called in the publish never waits.
    public let slowDeliveryThreshold: Duration

    /// Creates an independent bus.
    ///
    /// - Parameters:
    ///   - name: A name that monitors show for this bus.
    ///   - cascadeLimit: How many events one top-level publish may set off before the bus stops
    ///     the cascade (see ``cascadeLimit``); `nil` for no limit.
    ///   - slowHandlerThreshold: How long a handler call may take before it is reported as slow.
    ///   - slowDeliveryThreshold: How long a delivery may wait for its handler to start before
    ///     it is reported as slow.
    public convenience init(
        name: String = "EventBus", cascadeLimit: Int? = 10_000,
        slowHandlerThreshold: Duration = .milliseconds(16),
        slowDeliveryThreshold: Duration = .milliseconds(16)
    ) {
        self.init(
            name: name, clock: .continuous, cascadeLimit: cascadeLimit,
            slowHandlerThreshold: slowHandlerThreshold, slowDeliveryThreshold: slowDeliveryThreshold)
    }

    /// Creates an independent bus that reads the time from `clock`.
    package init(
        name: String = "EventBus", clock: BusClock, cascadeLimit: Int? = 10_000,
        slowHandlerThreshold: Duration = .milliseconds(16),
        slowDeliveryThreshold: Duration = .milliseconds(16)
    ) {
        self.name = name
        self.clock = clock
        self.cascadeLimit = cascadeLimit.map { max(0, $0) }
        self.slowHandlerThreshold = slowHandlerThreshold
        self.slowDeliveryThreshold = slowDeliveryThreshold
        slowHandlerNanoseconds = slowHandlerThreshold.wholeNanoseconds
        slowDeliveryNanoseconds = slowDeliveryThreshold.wholeNanoseconds
        let wildcardSlot = TypeSlot(
            typeID: ObjectIdentifier(SubscriberLifecycleEvent.self),
            name: SubscriberLifecycleEvent.wildcardTypeName,
            qualifiedName: SubscriberLifecycleEvent.wildcardTypeName)
        self.wildcardSlot = wildcardSlot
        state = LockedValue(
            BusState(
                wildcardSlot: wildcardSlot, clock: clock, lifecycleWatch: lifecycleWatch,
                callTracing: callTracing))
    }

    // MARK: - Publishing

    /// Delivers `event` to the subscribers of its type, then to subscribers of the protocols it
    /// conforms to, then to wildcard observers.
    ///
    /// Synchronous subscribers have run when this returns, unless it is called from inside a
    /// handler: then the event is delivered right after the current one, on this thread.
    ///
    /// - Parameters:
    ///   - event: The event to deliver.
    ///   - fileID: The calling file, which monitors show; leave it to the default.
    ///   - line: The calling line, which monitors show; leave it to the default.
    public func publish<T: Event>(event: T, fileID: StaticString = #fileID, line: UInt = #line) {
        publish(event, fileID: fileID, line: line)
    }

    /// Delivers `event` to the subscribers of its type, then to subscribers of the protocols it
    /// conforms to, then to wildcard observers.
    ///
    /// Synchronous subscribers have run when this returns, unless it is called from inside a
    /// handler: then the event is delivered right after the current one, on this thread.
    ///
    /// - Parameters:
    ///   - event: The event to deliver.
    ///   - fileID: The calling file, which monitors show; leave it to the default.
    ///   - line: The calling line, which monitors show; leave it to the default.
    public func publish<T: Event>(_ event: T, fileID: StaticString = #fileID, line: UInt = #line) {
        publish(event, fileID: fileID, line: line, stickyVersion: 0)
    }

    /// Delivers `event`, a sticky event stored as `stickyVersion` when that is not 0.
    @inline(__always)
    func publish<T: Event>(_ event: T, fileID: StaticString, line: UInt, stickyVersion: UInt64) {
        ThreadDeliveryState.currentUnretained.borrow { thread in
            let busID = ObjectIdentifier(self)
            if let index = thread.frameIndex(of: busID) {
                publishFromHandler(
                    event, fileID: fileID, line: line, stickyVersion: stickyVersion, frame: index, on: thread)
                return
            }
            if thread.hasScheduledCause, let cause = thread.scheduledCause {
                publishFromScheduledHandler(
                    event, fileID: fileID, line: line, stickyVersion: stickyVersion, cause: cause, on: thread)
                return
            }
            let origin = PublishOrigin(
                eventID: isNumberingEvents ? eventNumbers.next() : 0, causeID: 0, type: T.self,
                fileID: fileID, line: line, stickyVersion: stickyVersion, publishedAt: tracedPublishTime)
            let cascade = thread.runDeliveryLoop(for: busID, origin: origin, record: nil) {
                deliver(event, on: thread)
            }
            if let cascade { finish(cascade) }
        }
    }

    /// Whether publishes get numbers: while a wildcard observer or an observer of handler calls
    /// may need to tell events apart.
    @inline(__always)
    var isNumberingEvents: Bool {
        wildcardSlot.hasSubscribers || callTracing.isOn
    }

    /// When a publish happens, in nanoseconds since 1970, while something observes handler
    /// calls; 0 otherwise, at the cost of one relaxed load.
    @inline(__always)
    var tracedPublishTime: Int {
        callTracing.isOn ? System.wallClockNanoseconds() : 0
    }

    /// Reports a handler call slower than ``slowHandlerThreshold``, ten a second at most; a
    /// report's count includes the slow calls held back since the previous one.
    func reportSlowCall(of entry: SubscriberEntry, typeName: String, nanoseconds: Int) {
        report(
            ReportDraft(.slowCall(nanoseconds: nanoseconds), typeName: typeName, entry: entry),
            through: slowCallReports)
    }

    /// Reports a delivery that waited longer than ``slowDeliveryThreshold`` for its handler to
    /// start, ten a second at most; a report's count includes those held back since the
    /// previous one.
    func reportSlowDelivery(of entry: SubscriberEntry, typeName: String, nanoseconds: Int) {
        report(
            ReportDraft(.slowDelivery(nanoseconds: nanoseconds), typeName: typeName, entry: entry),
            through: slowDeliveryReports)
    }

    /// Counts a handler's failure and reports it, a hundred a second at most; a report's count
    /// includes the failures held back since the previous one.
    func reportFailure(of entry: SubscriberEntry, typeName: String, error: any Error) {
        entry.measurements.failures.wrappingAdd(1, ordering: .relaxed)
        report(
            ReportDraft(.failure(reason: String(describing: error)), typeName: typeName, entry: entry),
            through: failureReports)
    }

    /// Tells lifecycle observers of `draft` if `pacer` lets it through now.
    private func report(_ draft: ReportDraft, through pacer: ReportPacer) {
        guard let report = pacer.admit(draft, now: System.monotonicNanoseconds()) else { return }
        update { ((), $0.report(report)) }
    }

    /// Sends the failure and slow-call reports the rate limits held back and no later report
    /// carried, once their second is over.
    func flushHeldBackReports() {
        let now = System.monotonicNanoseconds()
        for pacer in [failureReports, slowCallReports, slowDeliveryReports] {
            if let report = pacer.flush(now: now) { update { ((), $0.report(report)) } }
        }
    }

    /// Tells lifecycle observers that a cascade was stopped, and which loop it was.
    func report(_ stop: CascadeStop, steps: [ObjectIdentifier: CascadeStep]) {
        let account = stop.account(steps: steps) { String(describing: $0) }
        let event = SubscriberLifecycleEvent(
            kind: .cascadeStopped, eventTypeName: String(describing: stop.refused.type), count: stop.count,
            reason: account)
        update { ((), $0.report(event)) }
    }

    // MARK: - Internals

    /// Where a handler with `handler`'s isolation runs: `nil` (on the publisher's thread) for a
    /// nonisolated one, this bus's main-actor mailbox, or a mailbox of its own on another actor.
    func scheduler<Payload>(for handler: IsolatedHandler<Payload>) -> (any DeliveryScheduler)? {
        guard let isolation = handler.isolation else { return nil }
        return handler.isMainActor ? mainActorMailbox : ActorMailbox(.actor(isolation))
    }

    /// Subscribes `handler` to `type`.
    ///
    /// - Parameter sticky: Whether to offer the subscription the type's sticky event at once:
    ///   read under the lock that inserts it, so that a sticky publish racing the subscription is
    ///   received once, and after it (see ``StickyHold``).
    func add<T: Event>(
        _ type: T.Type, observer: AnyObject?, scheduler: (any DeliveryScheduler)?,
        failureSink: FailureSink? = nil, sticky: Bool = false, measurements: HandlerMeasurements? = nil,
        handler: @escaping @Sendable (T) -> Void
    ) -> Subscription {
        let now = clock.now()
        let (entry, slot, current) = update { state in
            let slot = state.slot(for: type)
            let current = sticky ? state.sticky.current(of: type) : nil
            let (entry, after) = state.subscribe(to: slot, observer: observer, now: now) { id, record in
                let entry = Entry<T>(
                    id: id, counters: slot.counters, observer: observer, observerRecord: record,
                    scheduler: scheduler, replaying: current?.version, measurements: measurements,
                    handler: handler)
                failureSink?.entry = entry
                return entry
            }
            return ((entry, slot, current), after)
        }
        if let current {
            (entry as! Entry<T>).releaseHold(offering: current.event)
        }
        return Subscription(bus: self, entry: entry, location: .type(slot))
    }

    func addWildcard(
        observer: AnyObject?, scheduler: (any DeliveryScheduler)?, failureSink: FailureSink? = nil,
        gate: DeliveryGate? = nil, handler: @escaping @Sendable (DeliveryRecord) -> Void
    ) -> Subscription {
        let slot = wildcardSlot
        let now = clock.now()
        let entry = update { state in
            state.subscribe(to: slot, observer: observer, now: now) { id, record in
                let entry = Entry<DeliveryRecord>(
                    id: id, counters: slot.counters, observer: observer, observerRecord: record,
                    scheduler: scheduler, deliveryGate: gate, handler: handler)
                failureSink?.entry = entry
                return entry
            }
        }
        return Subscription(bus: self, entry: entry, location: .wildcard)
    }

    /// Runs `change` on the state under the lock, then, once the lock is released, what the
    /// change returned to do after it; returns the change's result.
    ///
    /// Every change to the state goes through here, so nothing that can run user code runs
    /// under the lock (see ``AfterUnlock``).
    func update<Result>(_ change: (inout BusState) -> (Result, AfterUnlock)) -> Result {
        let (result, after) = state.withLock(change)
        after.run(on: self)
        return result
    }

    /// How many publishes of one type a thread makes between two steps of the sweep.
    ///
    /// Each step takes the bus's lock and writes the bus's sweep state, which every publishing
    /// thread would otherwise write on every publish; batching keeps the sweep's work per
    /// publish the same (each step is credited with the whole batch) and its guarantee
    /// bounded, while publishes from different threads share nothing in between. Smaller
    /// batches showed up as shared cost between two publishing threads (see
    /// docs/publish-path.md).
    static let publishesPerSweepStep = 256

    /// Finds the slot of `T` in the thread's cache, or under the lock on a miss, and delivers.
    func deliver<T: Event>(_ event: T, on thread: ThreadDeliveryState) {
        let type = ObjectIdentifier(T.self)
        // Taken out of the cache before any user code can run: a sweep's lifecycle observers,
        // or a `deinit` it triggers, may publish on another bus and replace cache entries.
        let slot: UnsafeReference<TypeSlot>
        if let index = thread.cachedSlotIndex(bus: serialNumber, type: type) {
            slot = thread.slotCache[index].slot
            thread.slotCache[index].uncountedPublishes += 1
            if thread.slotCache[index].uncountedPublishes >= Self.publishesPerSweepStep {
                thread.slotCache[index].uncountedPublishes = 0
                slot.borrow {
                    stepSweep(credit: 2 * Self.publishesPerSweepStep, delivering: $0)
                }
            }
        } else {
            let found = slotAfterCacheMiss(of: T.self)
            thread.cache(found, bus: serialNumber)
            slot = UnsafeReference(unretained: found)
        }
        // The bus keeps its slots for as long as it lives, and it is alive here (UnsafeReference,
        // invariant 1).
        slot.borrow { deliver(event, to: $0, on: thread) }
    }

    /// Finds the slot of `type` under the lock, for a publish that missed the thread's cache,
    /// and takes a step of the sweep. Kept out of line, so that the publish path stays small.
    @inline(never)
    private func slotAfterCacheMiss(of type: any Event.Type) -> TypeSlot {
        update { $0.slotForPublish(of: type) }
    }

    /// Takes a step of the sweep for a batch of publishes of `slot`'s type. Kept out of line,
    /// like ``slotAfterCacheMiss(of:)``.
    @inline(never)
    private func stepSweep(credit: Int, delivering slot: TypeSlot) {
        update { ((), $0.stepSweep(forPublishesOf: slot, credit: credit)) }
    }

    /// Delivers `event` to the entries of `slot`, then to wildcard observers.
    ///
    /// The outermost delivery on a thread takes no lock: it reads both lists through snapshots
    /// announced in the thread's marker (see ``TypeSlot/protectedSnapshot(announcingIn:)``) and
    /// counts in the thread's stripe of the counters, so publishes of one type from several
    /// threads write nothing in common. A delivery nested in a handler (of another bus) copies
    /// the lists under their slots' locks instead, since the thread's marker already announces
    /// its outer delivery's lists. Either way both lists are taken before any handler runs, so
    /// a subscription made during the delivery does not receive the event.
    @inline(__always)
    private func deliver<T: Event>(
        _ event: T, to slot: TypeSlot, on thread: ThreadDeliveryState
    ) {
        // Borrowed, like the thread's state: the counters keep their stripes for their lifetime
        // (UnsafeReference, invariant 3).
        let stripe = slot.counters.stripe(thread.counterStripe)
        stripe.borrow { _ = $0.published.wrappingAdd(1, ordering: .relaxed) }
        let hasWildcards = wildcardSlot.hasSubscribers
        // While anything watches the bus, every handler call is timed (out of line), but for
        // the appends of the package's own monitors behind gates.
        let traced = callTracing.isOn
        let timer =
            hasWildcards || lifecycleWatch.isSet || traced
            ? HandlerTimer(bus: self, slot: slot, traced: traced) : nil
        // Offers the event to the typed list, then its record to the wildcard list. The tallies
        // are returned, not written into variables the function captures: captured and
        // mutated, they are boxed on the heap as soon as the optimizer stops inlining this
        // path (see docs/publish-path.md).
        @inline(__always)
        func offer(
            typed entries: EntryList, watchers: EntryList, marker: DeliveryMarker?
        ) -> (typed: DeliveryTally, wildcards: DeliveryTally) {
            var typed = Self.offer(event, to: entries, marker: marker, timer: timer)
            // Subscribers of protocols the type conforms to come next; two relaxed loads tell
            // that the type has none (see ``ProtocolRoutes``).
            if protocolRoutes.generation.load(ordering: .relaxed)
                != slot.noProtocolRoutesAsOf.load(ordering: .relaxed)
            {
                typed.addRouted(deliverToProtocols(event, of: slot, timer: timer))
            }
            guard !watchers.isEmpty else { return (typed, DeliveryTally()) }
            let welcome = Self.welcome(by: watchers)
            guard welcome != .turnedAway else { return (typed, DeliveryTally()) }
            var record = DeliveryRecord(
                event: event, eventTypeName: slot.name, receivers: typed.delivered + typed.scheduled,
                trace: thread.currentOrigin.trace(on: thread))
            // Wildcard observers are monitors, whose calls a trace leaves out; the package's
            // own buffers (behind gates) are not timed at all.
            let wildcards: DeliveryTally
            switch welcome {
            case .gatedOnly:
                wildcards = Self.offer(built: &record, to: watchers, marker: marker, timer: nil)
            case .ungatedOnly, .turnedAway:
                wildcards = Self.offer(built: &record, to: watchers, marker: marker, timer: timer?.untraced)
            case .mixed:
                wildcards = Self.offerTimingUngated(
                    &record, to: watchers, marker: marker, timer: timer?.untraced)
            }
            return (typed, wildcards)
        }
        let tallies: (typed: DeliveryTally, wildcards: DeliveryTally)
        if let marker = thread.markerForDelivery {
            tallies = marker.borrow { marker in
                let entries = slot.protectedSnapshot(announcingIn: marker.typedSnapshot)
                let watchers =
                    hasWildcards ? wildcardSlot.protectedSnapshot(announcingIn: marker.wildcardSnapshot) : nil
                // The announcements keep both snapshots and their entries allocated until they
                // are withdrawn, so the snapshots are borrowed, not retained (UnsafeReference,
                // invariants 4 and 5).
                let tallies = offer(
                    typed: entries.borrow { $0.entries },
                    watchers: watchers?.borrow { $0.entries } ?? EntryList(start: nil, count: 0),
                    marker: marker)
                if hasWildcards { marker.wildcardSnapshot.withdraw() }
                marker.typedSnapshot.withdraw()
                return tallies
            }
        } else {
            let entries = slot.copyEntries()
            let watchers = hasWildcards ? wildcardSlot.copyEntries() : []
            // The copies hold every entry until the end of the delivery.
            tallies = entries.withUnretainedEntries { entries in
                watchers.withUnretainedEntries { watchers in
                    offer(typed: entries, watchers: watchers, marker: nil)
                }
            }
        }
        let (typed, wildcards) = tallies
        stripe.borrow { stripe in
            let ownDelivered = typed.delivered - typed.routedDelivered
            if ownDelivered > 0 { stripe.delivered.wrappingAdd(ownDelivered, ordering: .relaxed) }
            if typed.delivered + typed.scheduled == 0 { stripe.unheard.wrappingAdd(1, ordering: .relaxed) }
        }
        if wildcards.delivered > 0 {
            wildcardSlot.counters.stripe(thread.counterStripe).borrow {
                _ = $0.delivered.wrappingAdd(wildcards.delivered, ordering: .relaxed)
            }
        }
        if typed.sawDeadObserver || wildcards.sawDeadObserver { reclaimDeadAfterPublish(of: slot) }
    }

    /// How a publish's wildcard entries take its record.
    enum WatcherWelcome {
        /// Every entry is behind a closed gate, or cancelled: no record is built.
        case turnedAway
        /// Every entry that takes it is behind a gate: the package's own bounded buffers (a
        /// capture, a tap), whose calls are not timed.
        case gatedOnly
        /// No entry that takes it has a gate: an app's own delivery observers, timed.
        case ungatedOnly
        /// Some of each.
        case mixed
    }

    /// How `watchers` take a publish's record. When every entry is a delivery observer whose
    /// gate is closed, or cancelled, counts a refusal in each gate still subscribed, and the
    /// publish builds no record for them (see ``DeliveryGate``). Reads the gates before
    /// counting, so that a publish that goes on to deliver counts none: the handlers behind
    /// closed gates drop the event themselves.
    @inline(__always)
    static func welcome(by watchers: EntryList) -> WatcherWelcome {
        for (index, watcher) in watchers.enumerated() {
            // A closed gate costs two loads here; which kinds of entries take the record is
            // asked only of a publish that goes on to build it.
            let turnsAway = watcher.borrow { $0.deliveryGate?.turnsAway ?? false || $0.isCancelled }
            guard turnsAway else { return kinds(of: watchers, from: index) }
        }
        for watcher in watchers {
            watcher.borrow { entry in
                if !entry.isCancelled { entry.deliveryGate?.countRefusal() }
            }
        }
        return .turnedAway
    }

    /// Whether the wildcard entries from `index` on that are not cancelled have gates, none
    /// have, or some have (those before `index` turned the event away).
    @inline(__always)
    static func kinds(of watchers: EntryList, from index: Int) -> WatcherWelcome {
        var gated = false
        var ungated = false
        for watcher in watchers[index...] {
            let (hasGate, isCancelled) = watcher.borrow { ($0.deliveryGate != nil, $0.isCancelled) }
            if isCancelled { continue }
            if hasGate { gated = true } else { ungated = true }
        }
        return gated && ungated ? .mixed : ungated ? .ungatedOnly : .gatedOnly
    }

    /// Reclaims the dead observers a publish of `slot`'s type met. Kept out of line, so that the
    /// publish path stays small.
    @inline(never)
    func reclaimDeadAfterPublish(of slot: TypeSlot) {
        reclaimDead(in: [slot, wildcardSlot], cause: .publish(eventTypeName: slot.name))
    }

    /// Removes the entries of `slots` whose observer has been deallocated.
    ///
    /// Which entries are dead is found outside the lock: checking a weak reference briefly holds
    /// the observer, and if another thread dropped its last reference meanwhile, the observer's
    /// `deinit` runs when that hold ends; under the lock, a `deinit` calling
    /// `unsubscribe(observer:)` would deadlock. A dead entry stays dead, so removing its
    /// observer's entries afterwards, by serial, is exact.
    ///
    /// Every entry of a dead observer goes, in every list, not only in `slots`: the observers
    /// are found dead by their entries there, and removed by serial.
    ///
    /// - Parameter cause: What asked, for the lifecycle events.
    /// - Returns: How many entries were reclaimed.
    @discardableResult
    func reclaimDead(in slots: [TypeSlot], cause: SubscriberLifecycleEvent.ReclaimCause) -> Int {
        let lists = state.withLock { $0.listsWithObservers(in: slots) }
        // The copies keep the entries, and so the weak references read here, allocated until
        // the lock is released.
        defer { withExtendedLifetime(lists) {} }
        // An observer with several entries is listed as often; the state takes each once.
        var dead: [ObserverRecord] = []
        for (_, entries) in lists {
            for entry in entries where entry.isDead {
                if let record = entry.observerRecord { dead.append(record) }
            }
        }
        guard !dead.isEmpty else { return 0 }
        let now = clock.now()
        return update { $0.reclaim(observers: dead, cause: cause, now: now) }
    }

    /// Checks the objects expected to be deallocated, outside the lock, since reading a weak
    /// reference may end an object's life and run its `deinit`; then reports the suspects that
    /// appeared and went.
    func checkWatches() {
        let watches = state.withLock { $0.observers.watches }
        guard !watches.isEmpty else { return }
        let alive = watches.map(\.isAlive)
        let now = clock.now()
        update { ((), $0.settleWatches(watches, alive: alive, now: now)) }
    }

    func cancel(_ entry: SubscriberEntry, in location: Subscription.Location) {
        guard entry.markCancelled() else { return }
        update { ((), $0.cancel(entry, in: location)) }
        waitForDeliveries(to: [entry])
    }

    func waitForDeliveries(to entries: [SubscriberEntry]) {
        // Inside a handler this thread may itself be one of the deliveries; waiting there could
        // deadlock, so the promise there is only that no new delivery starts.
        guard !entries.isEmpty, !ThreadDeliveryState.current.isDelivering else { return }
        for entry in entries { entry.waitForDeliveriesInProgress() }
    }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `Int` (a threshold of centuries turns
    /// reports off rather than wrapping around to a negative one).
    var wholeNanoseconds: Int {
        let (seconds, attoseconds) = components
        let (whole, overflow) = Int(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? Int.min : Int.max }
        let (sum, sumOverflow) = whole.addingReportingOverflow(Int(attoseconds / 1_000_000_000))
        return sumOverflow ? (seconds < 0 ? Int.min : Int.max) : sum
    }
}
