import EventBus

extension FeedRecord {
    /// Reads one line of the wire format.
    ///
    /// A trailing `\n` (or `\r\n`) is allowed and ignored. Fields this version does not know are
    /// ignored, so newer writers can add some; an unknown `kind` throws
    /// ``FeedDecodingError/unknownKind(_:)``, which readers should treat as a line to skip.
    /// Never traps: any input gives a record or an error, in time linear in its length.
    ///
    /// ```swift
    /// do {
    ///     let record = try FeedRecord.decode(line: #"{"kind":"dropped","time":1,"events":3}"#)
    /// } catch {
    ///     print("line 17: \(error)")  // such as: missing field "events" in a dropped record
    /// }
    /// ```
    ///
    /// - Parameter line: One line of text.
    /// - Returns: The record.
    /// - Throws: ``FeedDecodingError`` saying what is wrong.
    public static func decode(line: String) throws(FeedDecodingError) -> FeedRecord {
        var line = line
        let result = line.withUTF8 { buffer in
            Result { () throws(FeedDecodingError) in try decodeValidUTF8(buffer) }
        }
        return try result.get()
    }

    /// Reads one line of the wire format from bytes, which may be anything, such as what a
    /// socket delivered.
    ///
    /// - Parameter bytes: One line, with or without its `\n`.
    /// - Returns: The record.
    /// - Throws: ``FeedDecodingError``, including ``FeedDecodingError/invalidUTF8``.
    public static func decode(line bytes: some Collection<UInt8>) throws(FeedDecodingError) -> FeedRecord {
        let result =
            bytes.withContiguousStorageIfAvailable { buffer in
                Result { () throws(FeedDecodingError) in try decodeUnvalidated(buffer) }
            }
            ?? Array(bytes).withUnsafeBufferPointer { buffer in
                Result { () throws(FeedDecodingError) in try decodeUnvalidated(buffer) }
            }
        return try result.get()
    }

    private static func decodeUnvalidated(
        _ bytes: UnsafeBufferPointer<UInt8>
    ) throws(FeedDecodingError) -> FeedRecord {
        var length = bytes.count
        if length > 0 && bytes[length - 1] == 0x0A { length -= 1 }
        if length > 0 && bytes[length - 1] == 0x0D { length -= 1 }
        // Checked before validating, so an enormous line costs no more than its length.
        guard length <= maximumLineLength else {
            throw .lineTooLong(length: length, limit: maximumLineLength)
        }
        // Lines are almost always plain ASCII, which is valid UTF-8 as it stands; checking that
        // is much cheaper than building a validated String.
        if isASCII(bytes) { return try decodeValidUTF8(bytes) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        return try decode(line: text)
    }

    /// Whether every byte is below 0x80, checked eight bytes at a time.
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        var combined: UInt64 = 0
        while index + 8 <= bytes.count {
            combined |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            combined |= UInt64(bytes[index])
            index += 1
        }
        return combined & 0x8080_8080_8080_8080 == 0
    }

    private static func decodeValidUTF8(
        _ whole: UnsafeBufferPointer<UInt8>
    ) throws(FeedDecodingError) -> FeedRecord {
        var end = whole.count
        if end > 0 && whole[end - 1] == 0x0A { end -= 1 }
        if end > 0 && whole[end - 1] == 0x0D { end -= 1 }
        guard end <= maximumLineLength else { throw .lineTooLong(length: end, limit: maximumLineLength) }
        let line = UnsafeBufferPointer(rebasing: whole[0..<end])
        if let base = line.baseAddress {
            let newline = System.firstOffset(of: 0x0A, in: base, count: line.count)
            let carriageReturn = System.firstOffset(of: 0x0D, in: base, count: newline ?? line.count)
            if let offset = carriageReturn ?? newline {
                throw .malformedJSON(reason: "a record must fit on one line", offset: offset)
            }
        }
        var parser = JSONParser(line)
        // A snapshot's arrays are all read: built while they are checked, not parsed twice.
        var members = try parser.parseRecord(buildingContainersFor: "snapshot")
        guard case .string(let kind)? = JSONLineMembers.find(JSONName.kind, in: members) else {
            throw .missingKind
        }
        if kind != "snapshot", parser.builtContainers {
            // A later `kind` overrode "snapshot": read the line again as any other kind is read.
            var again = JSONParser(line)
            members = try again.parseRecord()
        }
        let fields = RecordFields(kind: kind, members: members, bytes: line)
        switch kind {
        case "hello":
            return .hello(
                FeedHello(
                    version: try fields.count("version"), pid: try fields.count("pid"),
                    process: try fields.string("process"), bus: try fields.string("bus"),
                    time: try fields.time("time")))
        case "detached":
            return .detached(
                FeedDetached(
                    time: try fields.time("time"), pid: try fields.count("pid"),
                    process: try fields.string("process"), bus: try fields.string("bus")))
        case "event":
            return .event(
                FeedEvent(
                    sequence: try fields.count("seq"), time: try fields.time("time"),
                    typeName: try fields.string("typeName"), payload: try fields.payload("payload"),
                    receivers: try fields.count("receivers"), origin: try fields.origin(),
                    trace: try fields.trace()))
        case "lifecycle":
            let changeName = try fields.string("change")
            // A change a newer writer added is a kind of record this reader does not know: skipped,
            // not counted as malformed.
            guard let change = SubscriberLifecycleEvent.Kind(rawValue: changeName) else {
                throw .unknownKind("lifecycle \(changeName)")
            }
            return .lifecycle(
                FeedLifecycle(
                    time: try fields.time("time"),
                    change: SubscriberLifecycleEvent(
                        kind: change, eventTypeName: try fields.string("eventTypeName"),
                        count: try fields.count("count"),
                        observerTypeName: try fields.optionalString("observerTypeName"),
                        observerID: try fields.optionalID("observerID"),
                        deadFor: try fields.optionalDuration("deadFor"),
                        reclaimedBy: try decodeReclaimCause(fields),
                        reason: try fields.optionalString("reason"),
                        expectedWithin: try fields.optionalDuration("expectedWithin"),
                        overdue: try fields.optionalDuration("overdue"),
                        subscriptions: try fields.optionalStrings("subscriptions") ?? [],
                        duration: try fields.optionalDuration("duration")),
                    origin: try fields.origin()))
        case "snapshot":
            return .snapshot(try decodeSnapshot(fields))
        case "dropped":
            return .dropped(
                FeedDrops(
                    time: try fields.time("time"), events: try fields.count("events"),
                    lifecycle: try fields.optionalCount("lifecycle") ?? 0,
                    calls: try fields.optionalCount("calls") ?? 0,
                    fromAppsPastTheLimit: try fields.optionalCount("fromAppsPastTheLimit") ?? 0))
        case "refused":
            return .refused(FeedRefusal(time: try fields.time("time"), reason: try fields.string("reason")))
        case "call":
            return .call(
                FeedHandlerCall(
                    eventID: try fields.id("eventID"), eventTypeName: try fields.string("eventTypeName"),
                    observerTypeName: try fields.optionalString("observerTypeName"),
                    observerID: try fields.optionalID("observerID"), thread: try fields.thread(),
                    startNanoseconds: try fields.count("startNs", atMost: FeedRecord.latestNanoseconds),
                    durationNanoseconds: try fields.count(
                        "durationNs", atMost: FeedRecord.maximumDurationNanoseconds),
                    waitedNanoseconds: try fields.optionalCount(
                        "waitedNs", atMost: FeedRecord.maximumDurationNanoseconds),
                    origin: try fields.origin()))
        default:
            throw .unknownKind(kind)
        }
    }

    private static func decodeSnapshot(_ fields: RecordFields) throws(FeedDecodingError) -> FeedSnapshot {
        let types = try fields.array("eventTypes")
        var statistics: [EventTypeStatistics] = []
        statistics.reserveCapacity(types.count)
        for (index, value) in types.enumerated() {
            let name = "eventTypes[\(index)]"
            guard case .object(let members) = value else {
                throw .wrongType(
                    field: name, kind: fields.kind, expected: "an object", found: value.typeDescription)
            }
            let type = RecordFields(
                kind: fields.kind, members: members, bytes: fields.bytes, prefix: name + ".")
            statistics.append(
                EventTypeStatistics(
                    typeName: try type.string("typeName"),
                    qualifiedTypeName: try type.optionalString("qualifiedTypeName"),
                    liveSubscribers: try type.count("liveSubscribers"),
                    deadSubscribers: try type.count("deadSubscribers"),
                    reclaimedSubscribers: try type.count("reclaimedSubscribers"),
                    unsubscribedSubscribers: try type.count("unsubscribedSubscribers"),
                    cancelledSubscribers: try type.count("cancelledSubscribers"),
                    duplicateSubscriptions: try type.count("duplicateSubscriptions"),
                    published: try type.count("published"), delivered: try type.count("delivered"),
                    unheard: try type.count("unheard"),
                    handlerFailures: try type.optionalCount("handlerFailures") ?? 0,
                    dropped: try type.optionalCount("dropped") ?? 0))
        }
        let observers = try fields.objects("observers") { row throws(FeedDecodingError) in
            ObserverStatistics(
                className: try row.string("className"), liveInstances: try row.count("liveInstances"),
                deadInstances: try row.count("deadInstances"),
                liveSubscriptions: try row.count("liveSubscriptions"),
                deadSubscriptions: try row.count("deadSubscriptions"),
                reclaimedInstances: try row.count("reclaimedInstances"),
                leakSuspects: try row.count("leakSuspects"),
                handlerFailures: try row.optionalCount("handlerFailures") ?? 0)
        }
        let handlers = try fields.objects("handlers") { row throws(FeedDecodingError) in
            var waits = DeliveryWaits.unmeasured
            if let members = try row.optionalObject("waits") {
                let wait = RecordFields(
                    kind: row.kind, members: members, bytes: row.bytes, prefix: row.prefix + "waits.")
                waits = DeliveryWaits(
                    count: try wait.count("count"), p50: try wait.duration("p50"),
                    p99: try wait.duration("p99"),
                    maximum: try wait.duration("maximum"), slowDeliveries: try wait.count("slowDeliveries"))
            }
            return HandlerStatistics(
                observerTypeName: try row.optionalString("observerTypeName"),
                eventTypeName: try row.string("eventTypeName"), calls: try row.count("calls"),
                total: try row.duration("total"), maximum: try row.duration("maximum"),
                slowCalls: try row.count("slowCalls"), failures: try row.count("failures"),
                dropped: try row.optionalCount("dropped") ?? 0, waits: waits)
        }
        let stickyEvents = try fields.objects("stickyEvents") { row throws(FeedDecodingError) in
            let typeName = try row.string("typeName")
            return StickyEvent(
                typeName: typeName, qualifiedTypeName: try row.optionalString("qualifiedTypeName"),
                event: ReceivedEvent(typeName: typeName, payload: try row.string("payload")),
                version: UInt64(try row.count("version")))
        }
        let suspects = try fields.objects("leakSuspects") { row throws(FeedDecodingError) in
            LeakSuspect(
                observerID: try row.id("observerID"), className: try row.string("className"),
                reason: try row.string("reason"), overdue: try row.duration("overdue"),
                subscriptions: try row.strings("subscriptions"))
        }
        let instances = try fields.objects("instances") { row throws(FeedDecodingError) in
            let stateName = try row.string("state")
            guard let state = ObserverState(rawValue: stateName) else {
                throw .invalidValue(field: row.prefix + "state", kind: row.kind, value: stateName)
            }
            return ObserverInstance(
                observerID: try row.id("observerID"), className: try row.string("className"),
                age: try row.duration("age"), subscriptions: try row.strings("subscriptions"), state: state,
                leakReason: try row.optionalString("leakReason"), overdue: try row.optionalDuration("overdue")
            )
        }
        var tap: FeedTapCounters?
        if let members = try fields.optionalObject("tap") {
            let counts = RecordFields(
                kind: fields.kind, members: members, bytes: fields.bytes, prefix: "tap.")
            tap = FeedTapCounters(
                monitors: try counts.count("monitors"), maximumMonitors: try counts.count("maximumMonitors"),
                refused: try counts.count("refused"), disconnectedIdle: try counts.count("disconnectedIdle"))
        }
        return FeedSnapshot(
            time: try fields.time("time"),
            snapshot: BusSnapshot(
                busName: try fields.string("busName"), eventTypes: statistics,
                wildcardObservers: try fields.count("wildcardObservers"),
                deadWildcardObservers: try fields.count("deadWildcardObservers"),
                reclaimedWildcardObservers: try fields.count("reclaimedWildcardObservers"),
                wildcardDeliveries: try fields.count("wildcardDeliveries"), observers: observers,
                leakSuspects: suspects, instances: instances, handlers: handlers, stickyEvents: stickyEvents),
            tap: tap, omittedLeakSuspects: try fields.optionalCount("leakSuspectsOmitted") ?? 0,
            omittedInstances: try fields.optionalCount("instancesOmitted") ?? 0, origin: try fields.origin())
    }

    /// The `reclaimedBy` object of a lifecycle record, such as `{"cause":"publish",
    /// "eventTypeName":"UserLoggedInEvent"}`, or nil when it is absent or null.
    private static func decodeReclaimCause(
        _ fields: RecordFields
    ) throws(FeedDecodingError) -> SubscriberLifecycleEvent.ReclaimCause? {
        guard let members = try fields.optionalObject("reclaimedBy") else { return nil }
        let cause = RecordFields(
            kind: fields.kind, members: members, bytes: fields.bytes, prefix: "reclaimedBy.")
        let name = try cause.string("cause")
        switch name {
        case "publish": return .publish(eventTypeName: try cause.string("eventTypeName"))
        case "sweep": return .sweep
        case "request": return .request
        default: throw .invalidValue(field: "reclaimedBy.cause", kind: fields.kind, value: name)
        }
    }
}

/// Typed access to the fields of one record, with errors that name the field and the kind.
private struct RecordFields {
    package let kind: String
    package let members: JSONMembers
    /// The line, which ranges in the values point into.
    package let bytes: UnsafeBufferPointer<UInt8>
    package var prefix = ""

    private func find(_ name: StaticString) -> JSONValue? {
        JSONLineMembers.find(JSONName(name), in: members)
    }

    private func value(_ name: StaticString) throws(FeedDecodingError) -> JSONValue {
        guard let value = find(name) else {
            throw .missingField(field: prefix + name.description, kind: kind)
        }
        return value
    }

    private func wrongType(_ name: StaticString, _ expected: String, _ found: JSONValue) -> FeedDecodingError
    {
        wrongType(name.description, expected, found)
    }

    private func wrongType(_ name: String, _ expected: String, _ found: JSONValue) -> FeedDecodingError {
        .wrongType(field: prefix + name, kind: kind, expected: expected, found: found.typeDescription)
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    package func string(_ name: StaticString) throws(FeedDecodingError) -> String {
        let found = try value(name)
        guard case .string(let text) = found else { throw wrongType(name, "a string", found) }
        return text
    }

    /// A string, or nil when the field is absent or `null`.
    package func optionalString(_ name: StaticString) throws(FeedDecodingError) -> String? {
        switch find(name) {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw wrongType(name, "a string or null", other)
        }
    }

    /// A whole number from 0 up to `Int.max`.
    package func count(_ name: StaticString) throws(FeedDecodingError) -> Int {
        try count(name, from: try value(name))
    }

    /// ``count(_:)`` of the value `found` under `name`, which the caller looked up already: each
    /// lookup is a walk over the line's members.
    private func count(_ name: StaticString, from found: JSONValue) throws(FeedDecodingError) -> Int {
        guard case .number(let number) = found else { throw wrongType(name, "a whole number", found) }
        guard number.isWhole else {
            throw .invalidNumber(
                field: prefix + name.description, kind: kind,
                reason: "should be a whole number, found \(text(number.range))")
        }
        guard let integer = number.integer else {
            throw .invalidNumber(field: prefix + name.description, kind: kind, reason: "is too large")
        }
        guard integer >= 0 else {
            throw .invalidNumber(field: prefix + name.description, kind: kind, reason: "must not be negative")
        }
        return integer
    }

    /// A count, or nil when the field is absent.
    package func optionalCount(_ name: StaticString) throws(FeedDecodingError) -> Int? {
        guard let found = find(name) else { return nil }
        return try count(name, from: found)
    }

    /// The `app`, `host` and `pid` fields of a record from a fleet, when all three are there;
    /// a record with some of them only is read without an origin, as one without any.
    func origin() throws(FeedDecodingError) -> FeedOrigin? {
        guard let app = try optionalString("app"), let host = try optionalString("host"),
            let pid = try optionalCount("pid")
        else { return nil }
        return FeedOrigin(app: app, host: host, pid: pid)
    }

    /// An event's number, its cause's and its call site, from the fields wire version 3 added;
    /// empty for older records.
    func trace() throws(FeedDecodingError) -> PublishTrace {
        let site: PublishSite?
        if let file = try optionalString("fileID"), let line = try optionalCount("line") {
            site = PublishSite(fileID: file, line: line)
        } else {
            site = nil
        }
        return PublishTrace(
            eventID: try optionalID("eventID") ?? 0, causeID: try optionalID("causeID"), site: site,
            thread: try optionalThread(),
            publishedAtNanoseconds: try optionalCount("publishedNs", atMost: FeedRecord.latestNanoseconds))
    }

    /// The `thread` and `mainThread` fields, or nil when `thread` is absent.
    private func optionalThread() throws(FeedDecodingError) -> TraceThread? {
        guard let found = find("thread") else { return nil }
        let isMain = try isMainThread()
        return TraceThread(id: UInt64(try count("thread", from: found)), isMain: isMain)
    }

    /// The `mainThread` field: false when it is absent or `null`.
    private func isMainThread() throws(FeedDecodingError) -> Bool {
        switch find("mainThread") {
        case nil, .null?: return false
        case .bool(let value)?: return value
        case let other?: throw wrongType("mainThread", "true or false", other)
        }
    }

    /// The `thread` and `mainThread` fields.
    func thread() throws(FeedDecodingError) -> TraceThread {
        let isMain = try isMainThread()
        return TraceThread(id: try id("thread"), isMain: isMain)
    }

    /// An observer serial: a whole number from 0 up to `Int.max`.
    package func id(_ name: StaticString) throws(FeedDecodingError) -> UInt64 {
        UInt64(try count(name))
    }

    /// An observer serial, or nil when the field is absent or `null`.
    package func optionalID(_ name: StaticString) throws(FeedDecodingError) -> UInt64? {
        switch find(name) {
        case nil, .null?: return nil
        case let found?: return UInt64(try count(name, from: found))
        }
    }

    /// A duration: seconds as a number from 0 up to ``FeedRecord/maximumDurationSeconds``, read
    /// to the microsecond, the precision the writer keeps, so that a duration survives a round
    /// trip.
    package func duration(_ name: StaticString) throws(FeedDecodingError) -> Duration {
        let found = try value(name)
        guard case .number(let number) = found else { throw wrongType(name, "a number of seconds", found) }
        let seconds = number.double
        guard seconds.isFinite, seconds <= FeedRecord.maximumDurationSeconds else {
            throw .invalidNumber(field: prefix + name.description, kind: kind, reason: "is out of range")
        }
        guard seconds >= 0 else {
            throw .invalidNumber(field: prefix + name.description, kind: kind, reason: "must not be negative")
        }
        return .microseconds(Int64((seconds * 1e6).rounded()))
    }

    /// A duration, or nil when the field is absent or `null`.
    package func optionalDuration(_ name: StaticString) throws(FeedDecodingError) -> Duration? {
        switch find(name) {
        case nil, .null?: return nil
        default: return try duration(name)
        }
    }

    /// An array of strings.
    package func strings(_ name: StaticString) throws(FeedDecodingError) -> [String] {
        let elements = try array(name)
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element else {
                throw wrongType("\(name)[\(index)]", "a string", element)
            }
            strings.append(text)
        }
        return strings
    }

    /// An array of strings, or nil when the field is absent or `null`.
    package func optionalStrings(_ name: StaticString) throws(FeedDecodingError) -> [String]? {
        switch find(name) {
        case nil, .null?: return nil
        default: return try strings(name)
        }
    }

    /// The array `name` of objects, each made into a value by `make`, which reads its fields
    /// with errors that name the element (`instances[3].state`); empty when the field is absent
    /// or `null`, as it is in version 1.
    package func objects<Element>(
        _ name: StaticString, _ make: (RecordFields) throws(FeedDecodingError) -> Element
    ) throws(FeedDecodingError) -> [Element] {
        switch find(name) {
        case nil, .null?: return []
        default: break
        }
        let elements = try array(name)
        var made: [Element] = []
        made.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let elementName = "\(prefix)\(name)[\(index)]"
            guard case .object(let members) = element else {
                throw .wrongType(
                    field: elementName, kind: kind, expected: "an object", found: element.typeDescription)
            }
            made.append(
                try make(RecordFields(kind: kind, members: members, bytes: bytes, prefix: elementName + ".")))
        }
        return made
    }

    /// Seconds since 1970, from 0 up to ``FeedRecord/latestTime``.
    package func time(_ name: StaticString) throws(FeedDecodingError) -> Double {
        let found = try value(name)
        guard case .number(let number) = found else { throw wrongType(name, "a number", found) }
        // NaN fails both comparisons; -0 passes as 0.
        guard number.double >= 0, number.double <= FeedRecord.latestTime else {
            throw .invalidNumber(
                field: prefix + name.description, kind: kind,
                reason: "is out of range (seconds since 1970, up to 2^32)")
        }
        return number.double
    }

    /// A count no larger than `limit`: nanoseconds, which a reader adds and subtracts.
    func count(_ name: StaticString, atMost limit: Int) throws(FeedDecodingError) -> Int {
        try count(name, from: try value(name), atMost: limit)
    }

    private func count(
        _ name: StaticString, from found: JSONValue, atMost limit: Int
    ) throws(FeedDecodingError) -> Int {
        let value = try count(name, from: found)
        guard value <= limit else {
            throw .invalidNumber(
                field: prefix + name.description, kind: kind, reason: "is out of range (at most \(limit))")
        }
        return value
    }

    /// ``count(_:atMost:)``, or nil when the field is absent.
    func optionalCount(_ name: StaticString, atMost limit: Int) throws(FeedDecodingError) -> Int? {
        guard let found = find(name) else { return nil }
        return try count(name, from: found, atMost: limit)
    }

    /// An array, built from the text the parser checked.
    package func array(_ name: StaticString) throws(FeedDecodingError) -> [JSONValue] {
        let found = try value(name)
        // Arrays inside built objects (the rows of a snapshot) are built already.
        if case .array(let elements) = found { return elements }
        guard case .unparsed(false, let range) = found else { throw wrongType(name, "an array", found) }
        var parser = JSONParser(bytes)
        guard case .array(let elements) = try parser.parseValue(at: range.lowerBound) else {
            throw wrongType(name, "an array", found)
        }
        return elements
    }

    /// The members of an object, built from the text the parser checked, or nil when the field
    /// is absent or `null`.
    package func optionalObject(
        _ name: StaticString
    ) throws(FeedDecodingError) -> JSONMembers? {
        switch find(name) {
        case nil, .null?: return nil
        case .unparsed(true, let range)?:
            var parser = JSONParser(bytes)
            guard case .object(let members) = try parser.parseValue(at: range.lowerBound) else {
                throw wrongType(name, "an object", .unparsed(isObject: true, range: range))
            }
            return members
        case .object(let members)?: return members
        case let other?: throw wrongType(name, "an object or null", other)
        }
    }

    /// An event payload: an object or array kept as its text, or a string; either cut to a
    /// description of ``FeedPayload/maximumReadLength`` bytes when longer.
    package func payload(_ name: StaticString) throws(FeedDecodingError) -> FeedPayload {
        let payload: FeedPayload
        switch try value(name) {
        case .unparsed(_, let range): payload = .fields(json: text(range))
        case .string(let description): payload = .description(description)
        case let other: throw wrongType(name, "an object, an array or a string", other)
        }
        let limit = FeedPayload.maximumReadLength
        guard payload.text.utf8.count > limit else { return payload }
        return .description(FeedPayload.truncated(payload.text, limit: limit))
    }
}
