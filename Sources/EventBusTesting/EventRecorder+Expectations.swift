public import EventBus

#if canImport(Testing)
    import Testing
#endif

/// Expectations a test awaits: they wait for the events they name, up to a timeout, instead of
/// polling, and a failure is a test issue that lists what the bus published instead.
///
/// They read the recording in order. Each starts where the previous one stopped (its cursor),
/// so a test reads like the story it checks:
///
/// ```swift
/// let recorder = EventRecorder(bus: bus)
/// Task { await app.signIn(user: "ada") }
/// await recorder.next(UserLoggedInEvent.self) { $0.userName == "ada" }
/// await recorder.expect(exactly: [SessionLoadStartedEvent.self, DataLoadedEvent.self])
/// await recorder.expectNone(of: LoginFailedEvent.self, within: .milliseconds(200))
/// ```
///
/// An event recorded before the expectation was awaited counts: a publish that wins the race
/// with the `await` is not missed.
extension EventRecorder {
    /// Waits for the next event of `type` that `predicate` accepts, and moves the cursor past it.
    ///
    /// Events of other types, and events of `type` that `predicate` refuses, are passed over.
    /// After `timeout`, the expectation fails, naming what was published since the cursor.
    ///
    /// - Parameters:
    ///   - type: The event type to wait for.
    ///   - timeout: How long to wait.
    ///   - predicate: Which event of `type` to accept; any by default.
    /// - Returns: The event, or `nil` when none came in time (the test has an issue then).
    @discardableResult
    public func next<T: Event>(
        _ type: T.Type, within timeout: Duration = .seconds(5),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        where predicate: @escaping @Sendable (T) -> Bool = { _ in true }
    ) async -> T? {
        let matches: @Sendable (any Event) -> Bool = { ($0 as? T).map(predicate) ?? false }
        if let found = await Self.takeFirst(in: journal, within: timeout, where: matches) {
            return found as? T
        }
        let seen = journal.withLock { Self.describe($0.unread) }
        Self.fail(
            "no \(T.self) arrived\(Self.describe(timeout)); since the last expectation the bus published \(seen)",
            CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        return nil
    }

    /// Waits until as many events as `types` lists have arrived past the cursor, and expects them
    /// to be events of exactly those types, in that order, with nothing else among them; moves
    /// the cursor past everything it read.
    ///
    /// - Parameters:
    ///   - types: The event types expected, in publish order.
    ///   - timeout: How long to wait for them.
    /// - Returns: Whether exactly those events arrived (the test has an issue otherwise).
    @discardableResult
    public func expect(
        exactly types: [any Event.Type], within timeout: Duration = .seconds(5),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async -> Bool {
        let seen = await takeUnread(atLeast: types.count, within: timeout)
        let seenTypes = seen.map { ObjectIdentifier(type(of: $0)) }
        if seenTypes == types.map({ ObjectIdentifier($0) }) { return true }
        let expected = types.map { String(describing: $0) }.joined(separator: ", ")
        Self.fail(
            "expected exactly [\(expected)]\(Self.describe(timeout)); the bus published \(Self.describe(seen[...]))",
            CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        return false
    }

    /// Waits until as many events as `expected` holds have arrived past the cursor, and expects
    /// them to equal those, in that order, with nothing else among them; moves the cursor past
    /// everything it read.
    ///
    /// - Parameters:
    ///   - expected: The events expected, in publish order.
    ///   - timeout: How long to wait for them.
    /// - Returns: Whether exactly those events arrived (the test has an issue otherwise).
    @discardableResult
    public func expect<T: Event & Equatable>(
        exactly expected: [T], within timeout: Duration = .seconds(5),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async -> Bool {
        let seen = await takeUnread(atLeast: expected.count, within: timeout)
        let typed = seen.compactMap { $0 as? T }
        if typed.count == seen.count, typed == expected { return true }
        Self.fail(
            "expected exactly \(Self.describe(expected.map { $0 as any Event }[...]))\(Self.describe(timeout)); "
                + "the bus published \(Self.describe(seen[...]))",
            CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        return false
    }

    /// Expects no event of `type` that `predicate` accepts to arrive past the cursor within
    /// `duration`; fails as soon as one does, without waiting out the rest. The cursor stays.
    ///
    /// - Parameters:
    ///   - type: The event type that must not be published.
    ///   - duration: How long to watch.
    ///   - predicate: Which events of `type` count; any by default.
    /// - Returns: Whether none arrived (the test has an issue otherwise).
    @discardableResult
    public func expectNone<T: Event>(
        of type: T.Type, within duration: Duration,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        where predicate: @escaping @Sendable (T) -> Bool = { _ in true }
    ) async -> Bool {
        let matches: @Sendable (any Event) -> Bool = { ($0 as? T).map(predicate) ?? false }
        await waitUntil(within: duration) { unread in unread.contains(where: matches) }
        guard let found = journal.withLock({ $0.unread.first(where: matches) }) else { return true }
        Self.fail(
            "expected no \(T.self)\(Self.describe(duration)); the bus published \(Self.describe([found][...]))",
            CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        return false
    }

    /// Expects nothing at all to be published past the cursor within `duration`; fails as soon
    /// as something is. The cursor stays.
    ///
    /// - Parameter duration: How long to watch.
    /// - Returns: Whether nothing arrived (the test has an issue otherwise).
    @discardableResult
    public func expectNoEvents(
        within duration: Duration,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async -> Bool {
        await waitUntil(within: duration) { !$0.isEmpty }
        let seen = journal.withLock { Array($0.unread) }
        if seen.isEmpty { return true }
        Self.fail(
            "expected no events\(Self.describe(duration)); the bus published \(Self.describe(seen[...]))",
            CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        return false
    }

    /// Waits for the next lifecycle change of `kind` that `predicate` accepts, and moves the
    /// lifecycle cursor (which the event expectations do not share) past it.
    ///
    /// ```swift
    /// bus.publish(DataLoadedEvent(data: ["corrupt"]))
    /// let failure = await recorder.nextChange(.handlerFailed)
    /// #expect(failure?.reason == "cache entry for corrupt is corrupt")
    /// ```
    ///
    /// - Parameters:
    ///   - kind: The kind of change to wait for, such as `.handlerFailed` or `.reclaimed`.
    ///   - timeout: How long to wait.
    ///   - predicate: Which change of that kind to accept; any by default.
    /// - Returns: The change, or `nil` when none came in time (the test has an issue then).
    @discardableResult
    public func nextChange(
        _ kind: SubscriberLifecycleEvent.Kind, within timeout: Duration = .seconds(5),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        where predicate: @escaping @Sendable (SubscriberLifecycleEvent) -> Bool = { _ in true }
    ) async -> SubscriberLifecycleEvent? {
        let matches: @Sendable (SubscriberLifecycleEvent) -> Bool = { $0.kind == kind && predicate($0) }
        if let found = await Self.takeFirst(in: changes, within: timeout, where: matches) { return found }
        let seen = changes.withLock { journal in
            journal.unread.isEmpty
                ? "nothing" : "[" + journal.unread.map { "\($0)" }.joined(separator: ", ") + "]"
        }
        Self.fail(
            "no \(kind) change came\(Self.describe(timeout)); since the last expectation the bus reported \(seen)",
            CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        return nil
    }

    // MARK: - Waiting

    /// Waits up to `timeout` for an element past `journal`'s cursor that `matches`; returns the
    /// first, with the cursor moved past it, or `nil` when none came.
    private static func takeFirst<Element>(
        in journal: LockedValue<Journal<Element>>, within timeout: Duration,
        where matches: @escaping @Sendable (Element) -> Bool
    ) async -> Element? {
        await waitUntil(in: journal, within: timeout) { unread in unread.contains(where: matches) }
        return journal.withLock { journal in
            guard let index = journal.unread.firstIndex(where: matches) else { return nil }
            journal.cursor = index + 1
            return journal.events[index]
        }
    }

    /// Waits up to `timeout` until at least `count` events are past the cursor; returns every
    /// event past it, and moves the cursor past them all.
    private func takeUnread(atLeast count: Int, within timeout: Duration) async -> [any Event] {
        await waitUntil(within: timeout) { $0.count >= count }
        return journal.withLock { journal in
            defer { journal.cursor = journal.events.endIndex }
            return Array(journal.unread)
        }
    }

    /// Returns once the events past the cursor satisfy `condition`, or once `timeout` has
    /// passed, whichever comes first; the caller looks at the events again to tell which.
    func waitUntil(
        within timeout: Duration, _ condition: @escaping @Sendable (ArraySlice<any Event>) -> Bool
    ) async {
        await Self.waitUntil(in: journal, within: timeout, condition)
    }

    /// Returns once the elements of `journal` past its cursor satisfy `condition`, or once
    /// `timeout` has passed.
    static func waitUntil<Element>(
        in journal: LockedValue<Journal<Element>>, within timeout: Duration,
        _ condition: @escaping @Sendable (ArraySlice<Element>) -> Bool
    ) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await wait(in: journal, for: condition) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Suspends until `condition` holds for the elements past the cursor, or the task is
    /// cancelled.
    private static func wait<Element>(
        in journal: LockedValue<Journal<Element>>,
        for condition: @escaping @Sendable (ArraySlice<Element>) -> Bool
    ) async {
        let id = journal.withLock { $0.nextWaiterID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waiter = Journal.Waiter(id: id, isSatisfied: condition, continuation: continuation)
                journal.withLock { $0.add(waiter) }?.resume()
            }
        } onCancel: {
            journal.withLock { $0.cancelWaiter(id) }?.resume()
        }
    }

    // MARK: - Failures

    /// Where an expectation was written, for the issue it records.
    struct CallSite {
        let fileID: String
        let filePath: String
        let line: Int
        let column: Int
    }

    /// Records a test issue at `site`.
    private static func fail(_ message: String, _ site: CallSite) {
        #if canImport(Testing)
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(
                    fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column))
        #else
            print("\(site.fileID):\(site.line): expectation failed: \(message)")
        #endif
    }

    /// How many events a failure lists before it only counts the rest.
    static let eventsListed = 10

    /// The events, as a failure lists them: `nothing`, or their descriptions in brackets.
    static func describe(_ events: ArraySlice<any Event>) -> String {
        guard !events.isEmpty else { return "nothing" }
        var parts = events.prefix(eventsListed).map { event -> String in
            let text = String(describing: event)
            return text.count > 120 ? String(text.prefix(119)) + "…" : text
        }
        if events.count > eventsListed { parts.append("and \(events.count - eventsListed) more") }
        return "[" + parts.joined(separator: ", ") + "]"
    }

    /// ` within 2 seconds`, as a failure says it.
    static func describe(_ timeout: Duration) -> String {
        " within \(timeout)"
    }
}
