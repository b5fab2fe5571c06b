public import BusWire

extension FeedEvent {
    /// Makes a record of an event a source captured, formatting its payload if needed.
    ///
    /// - Parameters:
    ///   - captured: The event as a dashboard source delivered it.
    ///   - sequence: The event's number in the stream being written.
    public init(_ captured: CapturedEvent, sequence: Int) {
        self.init(
            sequence: sequence, time: captured.time, typeName: captured.typeName,
            payload: FeedPayload(formatted: captured.payloadText), receivers: captured.receivers,
            origin: captured.origin.map(FeedOrigin.init))
    }

    /// The event as a dashboard source delivers it, with its payload as text.
    public var captured: CapturedEvent {
        CapturedEvent(
            time: time, typeName: typeName, payload: .text(payload.text), receivers: receivers,
            origin: origin.map(EventOrigin.init))
    }
}

extension FeedLifecycle {
    /// Makes a record of a change a source captured.
    public init(_ captured: CapturedLifecycle) {
        self.init(time: captured.time, change: captured.change, origin: captured.origin.map(FeedOrigin.init))
    }

    /// The change as a dashboard source delivers it.
    public var captured: CapturedLifecycle {
        CapturedLifecycle(time: time, change: change, origin: origin.map(EventOrigin.init))
    }
}

extension FeedOrigin {
    /// The wire's origin of a record from a monitor's origin of an event.
    public init(_ origin: EventOrigin) {
        self.init(app: origin.app, host: origin.host, pid: origin.pid)
    }
}

extension EventOrigin {
    /// A monitor's origin of an event from the wire's origin of a record.
    public init(_ origin: FeedOrigin) {
        self.init(app: origin.app, host: origin.host, pid: origin.pid)
    }
}
