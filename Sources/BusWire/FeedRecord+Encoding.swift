import EventBus

extension FeedRecord {
    /// The record as one JSON object followed by `\n`, ready to write to a socket or a file.
    ///
    /// - Returns: A line that ``decode(line:)`` turns back into an equal record.
    public func encodeLine() -> String {
        var writer = JSONLineWriter()
        writer.write(self)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension JSONLineWriter {
    /// Appends `record` as one line.
    package mutating func write(_ record: FeedRecord) {
        switch record {
        case .hello(let hello): write(hello)
        case .event(let event):
            writeEvent(
                sequence: event.sequence, time: event.time, typeName: event.typeName, payload: event.payload,
                receivers: event.receivers)
        case .lifecycle(let lifecycle): writeLifecycle(time: lifecycle.time, change: lifecycle.change)
        case .snapshot(let snapshot): writeSnapshot(time: snapshot.time, snapshot.snapshot, tap: snapshot.tap)
        case .dropped(let drops): write(drops)
        case .refused(let refusal): write(refusal)
        }
    }

    package mutating func write(_ hello: FeedHello) {
        beginRecord("hello")
        field("version", hello.version)
        field("pid", hello.pid)
        field("process", hello.process)
        field("bus", hello.bus)
        field("time", hello.time)
        endRecord()
    }

    package mutating func writeEvent(
        sequence: Int, time: Double, typeName: String, payload: FeedPayload, receivers: Int
    ) {
        beginRecord("event")
        field("seq", sequence)
        field("time", time)
        field("typeName", typeName)
        field("receivers", receivers)
        switch payload {
        case .fields(let json): rawField("payload", json)
        case .description(let text): field("payload", text)
        }
        endRecord()
    }

    package mutating func writeLifecycle(time: Double, change: SubscriberLifecycleEvent) {
        beginRecord("lifecycle")
        field("time", time)
        field("change", change.kind.rawValue)
        field("eventTypeName", change.eventTypeName)
        field("count", change.count)
        field("observerTypeName", change.observerTypeName)
        endRecord()
    }

    package mutating func writeSnapshot(time: Double, _ snapshot: BusSnapshot, tap: FeedTapCounters? = nil) {
        beginRecord("snapshot")
        field("time", time)
        field("busName", snapshot.busName)
        field("wildcardObservers", snapshot.wildcardObservers)
        field("deadWildcardObservers", snapshot.deadWildcardObservers)
        field("reclaimedWildcardObservers", snapshot.reclaimedWildcardObservers)
        field("wildcardDeliveries", snapshot.wildcardDeliveries)
        beginArray("eventTypes")
        for type in snapshot.eventTypes {
            beginObject(nil)
            field("typeName", type.typeName)
            field("qualifiedTypeName", type.qualifiedTypeName)
            field("liveSubscribers", type.liveSubscribers)
            field("deadSubscribers", type.deadSubscribers)
            field("reclaimedSubscribers", type.reclaimedSubscribers)
            field("unsubscribedSubscribers", type.unsubscribedSubscribers)
            field("cancelledSubscribers", type.cancelledSubscribers)
            field("duplicateSubscriptions", type.duplicateSubscriptions)
            field("published", type.published)
            field("delivered", type.delivered)
            field("unheard", type.unheard)
            endObject()
        }
        endArray()
        if let tap {
            beginObject("tap")
            field("monitors", tap.monitors)
            field("maximumMonitors", tap.maximumMonitors)
            field("refused", tap.refused)
            field("disconnectedIdle", tap.disconnectedIdle)
            endObject()
        }
        endRecord()
    }

    package mutating func write(_ drops: FeedDrops) {
        beginRecord("dropped")
        field("time", drops.time)
        field("events", drops.events)
        field("lifecycle", drops.lifecycle)
        endRecord()
    }

    package mutating func write(_ refusal: FeedRefusal) {
        beginRecord("refused")
        field("time", refusal.time)
        field("reason", refusal.reason)
        endRecord()
    }
}
