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
            origin: captured.origin, trace: captured.trace)
    }

    /// The event as a dashboard source delivers it, with its payload as text.
    public var captured: CapturedEvent {
        CapturedEvent(
            time: time, typeName: typeName, payload: .text(payload.text), receivers: receivers,
            origin: origin, trace: trace)
    }
}

extension FeedLifecycle {
    /// Makes a record of a change a source captured.
    public init(_ captured: CapturedLifecycle) {
        self.init(time: captured.time, change: captured.change, origin: captured.origin)
    }

    /// The change as a dashboard source delivers it.
    public var captured: CapturedLifecycle {
        CapturedLifecycle(time: time, change: change, origin: origin)
    }
}
