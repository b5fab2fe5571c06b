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
/// The recorder observes as a wildcard observer, so it does not change how typed subscribers
/// are counted. It stops recording when released or when ``stop()`` is called.
public final class EventRecorder: Sendable {
    private let recorded = LockedValue<[any Event]>([])
    private let changes = LockedValue<[SubscriberLifecycleEvent]>([])
    private let subscriptions: LockedValue<[Subscription]>

    /// Starts recording everything published on `bus` from now on.
    ///
    /// - Parameter bus: The bus to watch.
    public init(bus: EventBus) {
        subscriptions = LockedValue([])
        let recorded = self.recorded
        let changes = self.changes
        let eventToken = bus.subscribeAll { event in
            recorded.withLock { $0.append(event) }
        }
        let lifecycleToken = bus.observeLifecycle { change in
            changes.withLock { $0.append(change) }
        }
        subscriptions.withLock { $0 = [eventToken, lifecycleToken] }
    }

    /// Every event published since recording started, in the order deliveries reached it.
    public var events: [any Event] {
        recorded.current
    }

    /// The recorded events of one type, in order.
    ///
    /// - Parameter type: The event type to select.
    /// - Returns: The events of that type.
    public func events<T: Event>(of type: T.Type) -> [T] {
        recorded.current.compactMap { $0 as? T }
    }

    /// How many events of `type` were recorded.
    ///
    /// - Parameter type: The event type to count.
    /// - Returns: The number of recorded events of that type.
    public func count<T: Event>(of type: T.Type) -> Int {
        recorded.withLock { events in events.reduce(0) { $0 + ($1 is T ? 1 : 0) } }
    }

    /// Every subscriber lifecycle change since recording started.
    public var lifecycleEvents: [SubscriberLifecycleEvent] {
        changes.current
    }

    /// Forgets what was recorded so far and goes on recording.
    public func removeAll() {
        recorded.withLock { $0.removeAll() }
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
