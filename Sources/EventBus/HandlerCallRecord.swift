/// A thread as a trace names it: a number the system gives it, and whether it is the process's
/// main thread.
public struct TraceThread: Sendable, Hashable {
    /// The kernel's thread id on Linux (as `top -H` shows it), `pthread_threadid_np`'s on Darwin.
    public var id: UInt64
    /// Whether it is the process's main thread, where an app's UI runs.
    public var isMain: Bool

    /// Creates a thread's identity.
    public init(id: UInt64, isMain: Bool) {
        self.id = id
        self.isMain = isMain
    }

    /// The calling thread's identity, read once per thread and kept.
    static var current: TraceThread {
        ThreadDeliveryState.currentUnretained.borrow { $0.traceThread }
    }
}

/// One call of a handler, as ``EventBus/observeHandlerCalls(_:)`` reports it: whose, for which
/// event, on which thread, when it started, how long it ran and how long it waited to start.
public struct HandlerCallRecord: Sendable {
    /// The ``DeliveryRecord/eventID`` of the event the handler was called with.
    public let eventID: UInt64
    /// The readable name of the event's type (for a subscription to a protocol, the protocol's).
    public let eventTypeName: String
    /// The observer's class, or `nil` for a subscription made without an observer.
    public let observerType: AnyObject.Type?
    /// The observer's serial on its bus, as lifecycle events give it; `nil` without an observer.
    public let observerID: UInt64?
    /// The thread the handler ran on.
    public let thread: TraceThread
    /// When the handler started, in nanoseconds since 1970 on the system's real-time clock.
    public let startNanoseconds: Int
    /// How long the handler ran, in nanoseconds.
    public let durationNanoseconds: Int
    /// How long the delivery waited on a queue or an actor before the handler started, in
    /// nanoseconds; `nil` for a call made inside the `publish`, which waited for nothing.
    public let waitedNanoseconds: Int?

    /// Creates a record; the bus makes these, and tests may too.
    public init(
        eventID: UInt64, eventTypeName: String, observerType: AnyObject.Type?, observerID: UInt64?,
        thread: TraceThread, startNanoseconds: Int, durationNanoseconds: Int, waitedNanoseconds: Int?
    ) {
        self.eventID = eventID
        self.eventTypeName = eventTypeName
        self.observerType = observerType
        self.observerID = observerID
        self.thread = thread
        self.startNanoseconds = startNanoseconds
        self.durationNanoseconds = durationNanoseconds
        self.waitedNanoseconds = waitedNanoseconds
    }

    /// The observer's class name, as monitors show it; `nil` without an observer.
    public var observerTypeName: String? { observerType.map { String(describing: $0) } }
}

/// The observers of handler calls as one publish finds them: a list that is replaced, never
/// changed, when an observer comes or goes, so that a delivery reads it without a lock.
final class HandlerCallObservers: Sendable {
    let entries: [Entry<HandlerCallRecord>]

    init(_ entries: [Entry<HandlerCallRecord>]) {
        self.entries = entries
    }

    /// Tells every observer of a call of `entry`'s handler; runs on the thread of the call,
    /// after it returned, with no lock held.
    func report(
        callOf entry: SubscriberEntry, eventID: UInt64, typeName: String, start: Int, nanoseconds: Int,
        waited: Int?
    ) {
        let record = HandlerCallRecord(
            eventID: eventID, eventTypeName: typeName, observerType: entry.observerType,
            observerID: entry.observerRecord?.serial, thread: TraceThread.current, startNanoseconds: start,
            durationNanoseconds: max(0, nanoseconds), waitedNanoseconds: waited)
        for observer in entries where !observer.isCancelled { observer.handler(record) }
    }
}

/// Whether anything observes a bus's handler calls, and who: read without a lock on every
/// watched publish (a relaxed load), and under a lock of its own only while someone does.
final class HandlerCallTracing: Sendable {
    private let flag = WatchFlag()
    private let observers = LockedValue<HandlerCallObservers?>(nil)

    /// Whether anything observes handler calls now.
    @inline(__always)
    var isOn: Bool { flag.isSet }

    /// The observers now, for one publish to report to; `nil` while nobody observes.
    @inline(__always)
    func current() -> HandlerCallObservers? {
        guard flag.isSet else { return nil }
        return observers.withLock { $0 }
    }

    /// Replaces the observers; called under the bus's lock, whenever they change.
    func set(_ entries: [Entry<HandlerCallRecord>]) {
        observers.withLock { $0 = entries.isEmpty ? nil : HandlerCallObservers(entries) }
        flag.set(!entries.isEmpty)
    }
}
