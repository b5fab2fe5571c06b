public import EventBus

/// One handler call on the wire: a `call` record, sent only while a monitor writes a trace and
/// asked the app for them (see ``HandlerCallRecord``).
public struct FeedHandlerCall: Sendable, Hashable {
    /// The ``DeliveryRecord/eventID`` of the event the handler was called with.
    public var eventID: UInt64
    /// The readable name of the event's type (for a subscription to a protocol, the protocol's).
    public var eventTypeName: String
    /// The observer's class name, or `nil` for a subscription made without an observer.
    public var observerTypeName: String?
    /// The observer's serial on its bus; `nil` without an observer.
    public var observerID: UInt64?
    /// The thread the handler ran on.
    public var thread: TraceThread
    /// When the handler started, in nanoseconds since 1970 on the app's real-time clock.
    public var startNanoseconds: Int
    /// How long the handler ran, in nanoseconds.
    public var durationNanoseconds: Int
    /// How long the delivery waited on a queue or an actor before the handler started, in
    /// nanoseconds; `nil` for a call made inside the `publish`.
    public var waitedNanoseconds: Int?
    /// The process the call happened in, when the record names one (it came through a fleet).
    public var origin: FeedOrigin?

    /// Creates a call record.
    public init(
        eventID: UInt64, eventTypeName: String, observerTypeName: String?, observerID: UInt64?,
        thread: TraceThread, startNanoseconds: Int, durationNanoseconds: Int, waitedNanoseconds: Int?,
        origin: FeedOrigin? = nil
    ) {
        self.eventID = eventID
        self.eventTypeName = eventTypeName
        self.observerTypeName = observerTypeName
        self.observerID = observerID
        self.thread = thread
        self.startNanoseconds = startNanoseconds
        self.durationNanoseconds = durationNanoseconds
        self.waitedNanoseconds = waitedNanoseconds
        self.origin = origin
    }

    /// The call as the bus reported it, its observer's class named.
    ///
    /// - Parameter observerTypeName: The name of `call`'s observer class, which the caller may
    ///   keep from one call to the next.
    public init(_ call: HandlerCallRecord, observerTypeName: String?) {
        self.init(
            eventID: call.eventID, eventTypeName: call.eventTypeName, observerTypeName: observerTypeName,
            observerID: call.observerID, thread: call.thread, startNanoseconds: call.startNanoseconds,
            durationNanoseconds: call.durationNanoseconds, waitedNanoseconds: call.waitedNanoseconds)
    }

    /// When the handler started, in seconds since 1970, as other records' `time`.
    public var time: Double { Double(startNanoseconds) / 1e9 }
}
