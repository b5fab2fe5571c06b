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
        case .event(let event): write(event)
        case .lifecycle(let lifecycle):
            writeLifecycle(time: lifecycle.time, change: lifecycle.change, origin: lifecycle.origin)
        case .snapshot(let snapshot):
            writeSnapshot(
                time: snapshot.time, snapshot.snapshot, tap: snapshot.tap,
                omittedLeakSuspects: snapshot.omittedLeakSuspects,
                omittedInstances: snapshot.omittedInstances,
                origin: snapshot.origin)
        case .dropped(let drops): write(drops)
        case .refused(let refusal): write(refusal)
        case .call(let call): write(call)
        case .detached(let detach): write(detach)
        }
    }

    /// Appends a monitor's note of a detach as one `detached` line.
    package mutating func write(_ detach: FeedDetached) {
        beginRecord("detached")
        field("time", detach.time)
        field("pid", detach.pid)
        field("process", detach.process)
        field("bus", detach.bus)
        endRecord()
    }

    /// Appends a handler call as one `call` line.
    package mutating func write(_ call: FeedHandlerCall) {
        beginRecord("call")
        field("time", call.time)
        field("startNs", call.startNanoseconds)
        field("eventID", Self.wireID(call.eventID))
        field("eventTypeName", call.eventTypeName)
        field("observerTypeName", call.observerTypeName)
        field("observerID", call.observerID.map(Self.wireID))
        field(thread: call.thread)
        field("durationNs", max(0, call.durationNanoseconds))
        if let waited = call.waitedNanoseconds { field("waitedNs", max(0, waited)) }
        field(origin: call.origin)
        endRecord()
    }

    /// A thread's number, and `mainThread` when it is the main thread.
    package mutating func field(thread: TraceThread) {
        field("thread", Int(clamping: thread.id))
        if thread.isMain { field("mainThread", true) }
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

    /// Appends `event` as one line: the one writer of event lines, for recordings, headless
    /// output and a tap's readers.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - payloads: Writes a payload that still holds its value straight into the line (a tap
    ///     thread keeps one, with its caches); without it the payload is formatted first.
    package mutating func write(_ event: FeedEvent, payloads: PayloadFormatter? = nil) {
        beginRecord("event")
        field("seq", event.sequence)
        field("time", event.time)
        field("typeName", event.typeName)
        field("receivers", event.receivers)
        field(trace: event.trace)
        // Where the bridge's envelope has them too, so that both read alike.
        field(origin: event.origin)
        if let payloads, case .value(let value) = event.payload {
            key("payload")
            payloads.writePayload(of: value, into: &self)
        } else {
            switch event.payload.formatted {
            case .fields(let json): rawField("payload", json)
            case .description(let text): field("payload", text)
            case .value: field("payload", event.payload.text)  // `formatted` is never one
            }
        }
        endRecord()
    }

    package mutating func writeLifecycle(
        time: Double, change: SubscriberLifecycleEvent, origin: FeedOrigin? = nil
    ) {
        beginRecord("lifecycle")
        field("time", time)
        field("change", change.kind.rawValue)
        field("eventTypeName", change.eventTypeName)
        field("count", change.count)
        field("observerTypeName", change.observerTypeName)
        field("observerID", change.observerID.map(Self.wireID))
        // The fields below belong to some kinds only, so they are left out where they are absent
        // rather than written as null on every `subscribed` line.
        if let deadFor = change.deadFor { field("deadFor", Self.seconds(deadFor)) }
        if let cause = change.reclaimedBy {
            beginObject("reclaimedBy")
            switch cause {
            case .publish(let eventTypeName):
                field("cause", "publish")
                field("eventTypeName", eventTypeName)
            case .sweep: field("cause", "sweep")
            case .request: field("cause", "request")
            }
            endObject()
        }
        if let reason = change.reason { field("reason", reason) }
        if let expectedWithin = change.expectedWithin {
            field("expectedWithin", Self.seconds(expectedWithin))
        }
        if let overdue = change.overdue { field("overdue", Self.seconds(overdue)) }
        if !change.subscriptions.isEmpty { field("subscriptions", strings: change.subscriptions) }
        if let duration = change.duration { field("duration", Self.seconds(duration)) }
        field(origin: origin)
        endRecord()
    }

    /// An event's number, its cause's, its call site, and while calls are traced its thread and
    /// the time of its `publish`, each left out when unknown.
    package mutating func field(trace: PublishTrace) {
        if trace.eventID != 0 { field("eventID", Self.wireID(trace.eventID)) }
        if let cause = trace.causeID { field("causeID", Self.wireID(cause)) }
        if let site = trace.site {
            field("fileID", site.fileID)
            field("line", site.line)
        }
        if let thread = trace.thread { field(thread: thread) }
        if let publishedAt = trace.publishedAtNanoseconds { field("publishedNs", publishedAt) }
    }

    /// A duration as the wire writes it: seconds, from 0 (a negative duration, which only clock
    /// trouble could make, is written as 0) up to ``FeedRecord/maximumDurationSeconds``.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return min(max(0, Double(seconds) + Double(attoseconds) / 1e18), FeedRecord.maximumDurationSeconds)
    }

    /// An observer serial as a JSON whole number; serials count up from 1 and never reach the
    /// top half of `UInt64`.
    static func wireID(_ id: UInt64) -> Int {
        Int(clamping: id)
    }

    package mutating func writeSnapshot(
        time: Double, _ snapshot: BusSnapshot, tap: FeedTapCounters? = nil, omittedLeakSuspects: Int = 0,
        omittedInstances: Int = 0, origin: FeedOrigin? = nil, redacting redaction: PayloadRedaction = .default
    ) {
        let recordStart = bytes.count
        beginRecord("snapshot")
        field("time", time)
        field(origin: origin)
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
            if type.handlerFailures > 0 { field("handlerFailures", type.handlerFailures) }
            if type.dropped > 0 { field("dropped", type.dropped) }
            endObject()
        }
        endArray()
        beginArray("observers")
        for observer in snapshot.observers {
            beginObject(nil)
            field("className", observer.className)
            field("liveInstances", observer.liveInstances)
            field("deadInstances", observer.deadInstances)
            field("liveSubscriptions", observer.liveSubscriptions)
            field("deadSubscriptions", observer.deadSubscriptions)
            field("reclaimedInstances", observer.reclaimedInstances)
            field("leakSuspects", observer.leakSuspects)
            if observer.handlerFailures > 0 { field("handlerFailures", observer.handlerFailures) }
            endObject()
        }
        endArray()
        if !snapshot.handlers.isEmpty {
            beginArray("handlers")
            for handler in snapshot.handlers {
                beginObject(nil)
                field("observerTypeName", handler.observerTypeName)
                field("eventTypeName", handler.eventTypeName)
                field("calls", handler.calls)
                field("total", Self.seconds(handler.total))
                field("maximum", Self.seconds(handler.maximum))
                field("slowCalls", handler.slowCalls)
                field("failures", handler.failures)
                if handler.dropped > 0 { field("dropped", handler.dropped) }
                let waits = handler.waits
                if waits.count > 0 {
                    beginObject("waits")
                    field("count", waits.count)
                    field("p50", Self.seconds(waits.p50))
                    field("p99", Self.seconds(waits.p99))
                    field("maximum", Self.seconds(waits.maximum))
                    field("slowDeliveries", waits.slowDeliveries)
                    endObject()
                }
                endObject()
            }
            endArray()
        }
        if !snapshot.stickyEvents.isEmpty {
            beginArray("stickyEvents")
            for sticky in snapshot.stickyEvents {
                beginObject(nil)
                field("typeName", sticky.typeName)
                field("qualifiedTypeName", sticky.qualifiedTypeName)
                field("version", Int(clamping: sticky.version))
                // Text, as the app redacted it: a monitor shows it and never rebuilds the event.
                field("payload", PayloadFormatter.format(sticky.event, redacting: redaction))
                endObject()
            }
            endArray()
        }
        let isWithinBudget = { (writer: JSONLineWriter) in
            writer.bytes.count - recordStart <= FeedSnapshot.listBudget
        }
        let suspectsWritten = writeLeakSuspects(snapshot.leakSuspects, while: isWithinBudget)
        let instancesWritten = writeInstances(snapshot.instances, while: isWithinBudget)
        // The counts omitted before may come from an app (a snapshot read and written again):
        // added up to `Int.max` at most.
        let suspectsLeftOut = omittedLeakSuspects.clampedAdding(snapshot.leakSuspects.count - suspectsWritten)
        let instancesLeftOut = omittedInstances.clampedAdding(snapshot.instances.count - instancesWritten)
        if suspectsLeftOut > 0 { field("leakSuspectsOmitted", suspectsLeftOut) }
        if instancesLeftOut > 0 { field("instancesOmitted", instancesLeftOut) }
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

    /// Writes the `leakSuspects` array, the most overdue first, leaving out the rest once the
    /// line is over budget; returns how many it wrote.
    private mutating func writeLeakSuspects(
        _ suspects: [LeakSuspect], while isWithinBudget: (JSONLineWriter) -> Bool
    ) -> Int {
        beginArray("leakSuspects")
        var written = 0
        for suspect in suspects {
            let before = mark
            beginObject(nil)
            field("observerID", Self.wireID(suspect.observerID))
            field("className", suspect.className)
            field("reason", suspect.reason)
            field("overdue", Self.seconds(suspect.overdue))
            field("subscriptions", strings: suspect.subscriptions)
            endObject()
            guard isWithinBudget(self) else {
                rewind(to: before)
                break
            }
            written += 1
        }
        endArray()
        return written
    }

    /// Writes the `instances` array. When all of them make the line too long, it lists fewer per
    /// class (halving until they fit, each class keeping its first: suspects, then the dead),
    /// so that every class keeps some rather than the last classes losing all; past one per
    /// class it cuts the end. Returns how many it wrote.
    private mutating func writeInstances(
        _ instances: [ObserverInstance], while isWithinBudget: (JSONLineWriter) -> Bool
    ) -> Int {
        let start = mark
        var perClass = Int.max
        while true {
            rewind(to: start)
            beginArray("instances")
            var written = 0
            var fitted = true
            var className: String?
            var ofClass = 0
            for instance in instances {
                if instance.className != className {
                    className = instance.className
                    ofClass = 0
                }
                ofClass += 1
                guard ofClass <= perClass else { continue }
                let before = mark
                write(instance)
                guard isWithinBudget(self) else {
                    rewind(to: before)
                    fitted = false
                    break
                }
                written += 1
            }
            if fitted || perClass == 1 {
                endArray()
                return written
            }
            perClass =
                perClass == Int.max ? max(1, Self.largestClassCount(instances) / 2) : max(1, perClass / 2)
        }
    }

    private mutating func write(_ instance: ObserverInstance) {
        beginObject(nil)
        field("observerID", Self.wireID(instance.observerID))
        field("className", instance.className)
        field("age", Self.seconds(instance.age))
        field("subscriptions", strings: instance.subscriptions)
        field("state", instance.state.rawValue)
        if let leakReason = instance.leakReason { field("leakReason", leakReason) }
        if let overdue = instance.overdue { field("overdue", Self.seconds(overdue)) }
        endObject()
    }

    /// The most instances of one class in `instances`, which lists each class's together.
    private static func largestClassCount(_ instances: [ObserverInstance]) -> Int {
        var largest = 0
        var className: String?
        var count = 0
        for instance in instances {
            if instance.className != className {
                className = instance.className
                count = 0
            }
            count += 1
            largest = max(largest, count)
        }
        return largest
    }

    package mutating func write(_ drops: FeedDrops) {
        beginRecord("dropped")
        field("time", drops.time)
        field("events", drops.events)
        field("lifecycle", drops.lifecycle)
        if drops.calls > 0 { field("calls", drops.calls) }
        if drops.fromAppsPastTheLimit > 0 { field("fromAppsPastTheLimit", drops.fromAppsPastTheLimit) }
        endRecord()
    }

    package mutating func write(_ refusal: FeedRefusal) {
        beginRecord("refused")
        field("time", refusal.time)
        field("reason", refusal.reason)
        endRecord()
    }
}
