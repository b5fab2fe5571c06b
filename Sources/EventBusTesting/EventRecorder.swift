public import EventBus

/// A spy for tests: attaches to a bus and remembers every event published on it and every
/// change of subscribers, so a test can check what the code under test published.
///
/// ```swift
/// let bus = EventBus()
/// let recorder = EventRecorder(bus: bus)
/// LoginService(bus: bus).login(user: "ada")
/// #expect(recorder.events(of: UserLoggedInEvent.self).map(\.userName) == ["ada"])
/// ```
///
/// Code that publishes later, from a task, a queue or a main-actor handler, is awaited with
/// the expectations, which wait for what the test names instead of polling:
///
/// ```swift
/// let recorder = EventRecorder(bus: bus)
/// Task { await service.refresh() }
/// let loaded = await recorder.next(DataLoadedEvent.self, within: .seconds(2))
/// #expect(loaded?.data.isEmpty == false)
/// ```
///
/// The recorder observes as a wildcard observer, so it does not change how typed subscribers
/// are counted. It stops recording when released or when ``stop()`` is called.
public final class EventRecorder: Sendable {
    /// The events, how far expectations have read them, and who waits for more.
    let journal = LockedValue(Journal<any Event>())
    /// The lifecycle changes, read by their own expectations with a cursor of their own.
    let changes = LockedValue(Journal<SubscriberLifecycleEvent>())
    private let subscriptions: LockedValue<[Subscription]>

    /// Starts recording everything published on `bus` from now on.
    ///
    /// - Parameter bus: The bus to watch.
    public init(bus: EventBus) {
        subscriptions = LockedValue([])
        let journal = self.journal
        let changes = self.changes
        let eventToken = bus.subscribeAll { event in
            let ready = journal.withLock { $0.append(event) }
            for waiter in ready { waiter.resume() }
        }
        let lifecycleToken = bus.observeLifecycle { change in
            let ready = changes.withLock { $0.append(change) }
            for waiter in ready { waiter.resume() }
        }
        subscriptions.withLock { $0 = [eventToken, lifecycleToken] }
    }

    /// Every event published since recording started, in the order deliveries reached it.
    public var events: [any Event] {
        journal.withLock { $0.events }
    }

    /// The recorded events of one type, in order.
    ///
    /// - Parameter type: The event type to select.
    /// - Returns: The events of that type.
    public func events<T: Event>(of type: T.Type) -> [T] {
        journal.withLock { $0.events.compactMap { $0 as? T } }
    }

    /// How many events of `type` were recorded.
    ///
    /// - Parameter type: The event type to count.
    /// - Returns: The number of recorded events of that type.
    public func count<T: Event>(of type: T.Type) -> Int {
        journal.withLock { journal in journal.events.reduce(0) { $0 + ($1 is T ? 1 : 0) } }
    }

    /// Every subscriber lifecycle change since recording started.
    public var lifecycleEvents: [SubscriberLifecycleEvent] {
        changes.withLock { $0.events }
    }

    /// Forgets what was recorded so far and goes on recording; the expectations start again
    /// from the next event.
    public func removeAll() {
        journal.withLock { $0.removeAll() }
        changes.withLock { $0.removeAll() }
    }

    /// Stops recording; what was recorded stays readable.
    public func stop() {
        let tokens = subscriptions.withLock { tokens in
            defer { tokens = [] }
            return tokens
        }
        for token in tokens { token.cancel() }
    }
}

/// What the recorder saw of one kind (events, or lifecycle changes), and how far the
/// expectations have read it.
struct Journal<Element: Sendable>: Sendable {
    /// A test waiting until the elements past the cursor satisfy its condition.
    struct Waiter: Sendable {
        let id: UInt64
        let isSatisfied: @Sendable (ArraySlice<Element>) -> Bool
        let continuation: CheckedContinuation<Void, Never>

        func resume() { continuation.resume() }
    }

    private(set) var events: [Element] = []
    /// Where the next expectation starts reading: every event before it was matched or passed
    /// over by an earlier one.
    var cursor = 0
    private var waiters: [Waiter] = []
    /// Waiters whose task was cancelled before they were added.
    private var cancelledWaiters: Set<UInt64> = []
    private var lastWaiterID: UInt64 = 0

    /// The elements an expectation reads: those past the cursor.
    var unread: ArraySlice<Element> { events[cursor...] }

    /// Records `event`; returns the waiters it satisfied, to resume once the lock is released.
    mutating func append(_ event: Element) -> [Waiter] {
        events.append(event)
        guard !waiters.isEmpty else { return [] }
        let unread = self.unread
        let ready = waiters.filter { $0.isSatisfied(unread) }
        if !ready.isEmpty { waiters.removeAll { waiter in ready.contains { $0.id == waiter.id } } }
        return ready
    }

    mutating func removeAll() {
        events.removeAll()
        cursor = 0
    }

    /// A number for a new waiter.
    mutating func nextWaiterID() -> UInt64 {
        lastWaiterID += 1
        return lastWaiterID
    }

    /// Adds `waiter`, or returns it, to resume at once, when the events already satisfy it or
    /// its task was cancelled already.
    mutating func add(_ waiter: Waiter) -> Waiter? {
        if cancelledWaiters.remove(waiter.id) != nil || waiter.isSatisfied(unread) { return waiter }
        waiters.append(waiter)
        return nil
    }

    /// Takes the waiter `id` out, to resume, if no event has resumed it yet; one not added yet
    /// is resumed as soon as it is.
    mutating func cancelWaiter(_ id: UInt64) -> Waiter? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else {
            cancelledWaiters.insert(id)
            return nil
        }
        return waiters.remove(at: index)
    }
}
