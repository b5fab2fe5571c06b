extension EventBus {
    // MARK: - Sticky events

    /// Delivers `event` like ``publish(_:fileID:line:)``, and keeps it as its type's sticky
    /// event, until a newer sticky event of that type replaces it or it is removed.
    ///
    /// A screen that opens after the fact still learns the current state: it reads the sticky
    /// event, or subscribes with `sticky: true` and receives it at once.
    ///
    /// ```swift
    /// bus.publishSticky(NetworkStatusChangedEvent(isOnline: false))
    /// // Later, in a screen that was not there then:
    /// bus.subscribe(observer: self, sticky: true) { [weak self] (status: NetworkStatusChangedEvent) in
    ///     self?.showOfflineBanner(!status.isOnline)
    /// }
    /// ```
    ///
    /// The bus keeps the event, never an observer: a sticky event holds nothing alive but what
    /// the event itself holds.
    ///
    /// - Parameters:
    ///   - event: The event to deliver and keep.
    ///   - fileID: The calling file, which monitors show; leave it to the default.
    ///   - line: The calling line, which monitors show; leave it to the default.
    public func publishSticky<T: Event>(_ event: T, fileID: StaticString = #fileID, line: UInt = #line) {
        let (version, replaced) = update { state in (state.sticky.store(event), AfterUnlock()) }
        // The event it replaced goes here, after the lock, with whatever its deinit does.
        withExtendedLifetime(replaced) {}
        publish(event, fileID: fileID, line: line, stickyVersion: version)
    }

    /// The latest sticky event of `type`, or `nil` when none was published or it was removed.
    ///
    /// - Parameter type: The event type.
    /// - Returns: The event ``publishSticky(_:fileID:line:)`` last kept for that type.
    public func stickyEvent<T: Event>(of type: T.Type) -> T? {
        state.withLock { $0.sticky.current(of: type)?.event }
    }

    /// Removes the sticky event of `type` and returns it, so that a subscriber arriving later
    /// receives nothing of it; events already delivered are not affected.
    ///
    /// Reading and removing happen together, so of two threads that both remove the event
    /// (to handle it once), only one gets it.
    ///
    /// - Parameter type: The event type.
    /// - Returns: The removed event, or `nil` when there was none.
    @discardableResult
    public func removeStickyEvent<T: Event>(of type: T.Type) -> T? {
        update { state in (state.sticky.remove(of: type), AfterUnlock()) }
    }

    /// Removes every sticky event.
    public func removeAllStickyEvents() {
        let removed = update { state in (state.sticky.removeAll(), AfterUnlock()) }
        withExtendedLifetime(removed) {}
    }
}

/// The latest sticky event of one type, as ``BusSnapshot/stickyEvents`` lists it.
public struct StickyEvent: Sendable, Hashable {
    /// The type's name as written in code, such as `NetworkStatusChangedEvent`.
    public let typeName: String
    /// The module-qualified name of the type.
    public let qualifiedTypeName: String
    /// The event itself.
    public let event: any Event
    /// The number of the sticky publish that kept it: it grows with every sticky publish on
    /// the bus, so of two sticky events of one type, the larger is the newer. Two sticky events
    /// are equal when their type and version are.
    public let version: UInt64

    /// Creates the description of a sticky event; the bus makes these, and tests and replays
    /// may too.
    public init(typeName: String, qualifiedTypeName: String? = nil, event: any Event, version: UInt64) {
        self.typeName = typeName
        self.qualifiedTypeName = qualifiedTypeName ?? typeName
        self.event = event
        self.version = version
    }

    /// Whether both describe the same sticky publish: the same type and version.
    public static func == (lhs: StickyEvent, rhs: StickyEvent) -> Bool {
        lhs.qualifiedTypeName == rhs.qualifiedTypeName && lhs.version == rhs.version
    }

    /// Hashes the type and version, which identify the sticky publish.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(qualifiedTypeName)
        hasher.combine(version)
    }
}

/// The sticky events of a bus, one per type, in its state under the bus's lock.
struct StickyStore {
    private var byType: [ObjectIdentifier: StickyEvent] = [:]
    private var lastVersion: UInt64 = 0

    /// Keeps `event` as its type's sticky event; returns its version, and the event it replaced,
    /// for the caller to release after the lock.
    mutating func store<T: Event>(_ event: T) -> (version: UInt64, replaced: StickyEvent?) {
        lastVersion += 1
        let stored = StickyEvent(
            typeName: String(describing: T.self), qualifiedTypeName: String(reflecting: T.self), event: event,
            version: lastVersion)
        let replaced = byType.updateValue(stored, forKey: ObjectIdentifier(T.self))
        return (lastVersion, replaced)
    }

    /// The sticky event of `type` and its version.
    func current<T: Event>(of type: T.Type) -> (event: T, version: UInt64)? {
        guard let stored = byType[ObjectIdentifier(type)], let event = stored.event as? T else { return nil }
        return (event, stored.version)
    }

    /// Removes and returns the sticky event of `type`.
    mutating func remove<T: Event>(of type: T.Type) -> T? {
        byType.removeValue(forKey: ObjectIdentifier(type))?.event as? T
    }

    /// Removes every sticky event; returns them, for the caller to release after the lock.
    mutating func removeAll() -> [StickyEvent] {
        defer { byType.removeAll() }
        return Array(byType.values)
    }

    /// Every sticky event, by type name.
    var all: [StickyEvent] {
        byType.values.sorted { $0.typeName < $1.typeName }
    }
}
