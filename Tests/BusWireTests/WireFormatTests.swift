import BusMonitor
import EventBus
import Foundation
import TestSupport
import Testing

@testable import BusMonitor
@testable import BusTap
@testable import BusWire

@Suite("Wire format")
struct WireFormatTests {
    static let tricky = "say \"hi\"\\ there\nnew line\ttab\r\u{0}\u{1F} café ☕️ 𝄞 \u{2028}"

    static let samples: [FeedRecord] =
        [
            .call(
                FeedHandlerCall(
                    eventID: 12, eventTypeName: "DataLoadedEvent", observerTypeName: "HomeViewController",
                    observerID: 4, thread: TraceThread(id: 4242, isMain: true),
                    startNanoseconds: 1_712_345_678_123_456_789, durationNanoseconds: 1_234,
                    waitedNanoseconds: 56_789
                )),
            .call(
                FeedHandlerCall(
                    eventID: 13, eventTypeName: tricky, observerTypeName: nil, observerID: nil,
                    thread: TraceThread(id: 7, isMain: false), startNanoseconds: 5, durationNanoseconds: 0,
                    waitedNanoseconds: nil, origin: FeedOrigin(app: "shop", host: "mac", pid: 9))),
            .event(
                FeedEvent(
                    sequence: 3, time: 1_712_345_678.5, typeName: "Tick", payload: .description("tick"),
                    receivers: 1,
                    trace: PublishTrace(
                        eventID: 3, causeID: 2, site: PublishSite(fileID: "App/A.swift", line: 9),
                        thread: TraceThread(id: 99, isMain: false),
                        publishedAtNanoseconds: 1_712_345_678_499_999_999))),
            .dropped(FeedDrops(time: 4, events: 1, lifecycle: 2, calls: 3)),
            .hello(FeedHello(pid: 4242, process: "simapp", bus: "shared", time: 1_712_345_678.125)),
            .hello(FeedHello(version: 7, pid: 1, process: tricky, bus: "", time: 0)),
            .event(
                FeedEvent(
                    sequence: 1, time: 1_712_345_678.5, typeName: "UserLoggedInEvent",
                    payload: .fields(json: #"{"userId":"42","userName":"Ada \"the\" first\n"}"#), receivers: 3
                )),
            .event(
                FeedEvent(
                    sequence: Int.max, time: 0.000001, typeName: "Quoted\"Type",
                    payload: .description(tricky),
                    receivers: 0)),
            .event(
                FeedEvent(
                    sequence: 9, time: 5, typeName: "List", payload: .fields(json: "[1,2,[3]]"), receivers: 1)
            ),
            .lifecycle(
                FeedLifecycle(
                    time: 12.25,
                    change: SubscriberLifecycleEvent(
                        kind: .reclaimed, eventTypeName: "Tick", count: 3, observerTypeName: nil))),
            .lifecycle(
                FeedLifecycle(
                    time: 12.5,
                    change: SubscriberLifecycleEvent(
                        kind: .duplicateSubscription, eventTypeName: "*", count: 1,
                        observerTypeName: "Screen ☕️"))
            ),
            .snapshot(
                FeedSnapshot(
                    time: 99.5,
                    snapshot: BusSnapshot(
                        busName: "shared",
                        eventTypes: [
                            EventTypeStatistics(
                                typeName: "A", qualifiedTypeName: "App.A", liveSubscribers: 1,
                                deadSubscribers: 2,
                                reclaimedSubscribers: 3, unsubscribedSubscribers: 4, cancelledSubscribers: 5,
                                duplicateSubscriptions: 6, published: 7, delivered: 8, unheard: 9),
                            EventTypeStatistics(typeName: tricky),
                        ],
                        wildcardObservers: 10, deadWildcardObservers: 11, reclaimedWildcardObservers: 12,
                        wildcardDeliveries: 13))),
            .snapshot(
                FeedSnapshot(
                    time: 0, snapshot: BusSnapshot(busName: "empty", eventTypes: [], wildcardObservers: 0))),
            .dropped(FeedDrops(time: 3, events: 120, lifecycle: 2)),
            .snapshot(
                FeedSnapshot(
                    time: 4, snapshot: BusSnapshot(busName: "tapped", eventTypes: [], wildcardObservers: 1),
                    tap: FeedTapCounters(monitors: 2, maximumMonitors: 64, refused: 3, disconnectedIdle: 1))),
            .refused(FeedRefusal(time: 5, reason: "64 monitors attached")),
            .detached(FeedDetached(time: 6, pid: 4242, process: "simapp \u{1B}[2J", bus: "shared")),
        ] + observerSamples

    /// Records with every field version 2 added, each cause of a reclaim, and both leak kinds.
    /// Durations are whole microseconds, the precision the wire keeps.
    static let observerSamples: [FeedRecord] = [
        .lifecycle(
            FeedLifecycle(
                time: 20,
                change: SubscriberLifecycleEvent(
                    kind: .subscribed, eventTypeName: "Ping", observerTypeName: "LoginScreen", observerID: 41)
            )),
        .lifecycle(
            FeedLifecycle(
                time: 20.5,
                change: SubscriberLifecycleEvent(
                    kind: .reclaimed, eventTypeName: "UserLoggedInEvent", count: 3,
                    observerTypeName: "LoginScreen", observerID: 41, deadFor: .milliseconds(12),
                    reclaimedBy: .publish(eventTypeName: "UserLoggedInEvent \"quoted\"")))),
        .lifecycle(
            FeedLifecycle(
                time: 21,
                change: SubscriberLifecycleEvent(
                    kind: .reclaimed, eventTypeName: "*", observerTypeName: "Logger", observerID: 2,
                    reclaimedBy: .sweep))),
        .lifecycle(
            FeedLifecycle(
                time: 21.5,
                change: SubscriberLifecycleEvent(
                    kind: .reclaimed, eventTypeName: "Tick", observerID: UInt64(Int.max), deadFor: .zero,
                    reclaimedBy: .request))),
        .lifecycle(
            FeedLifecycle(
                time: 22,
                change: SubscriberLifecycleEvent(
                    kind: .leakSuspected, eventTypeName: "", observerTypeName: "ProfileScreen", observerID: 7,
                    reason: tricky, expectedWithin: .seconds(5), overdue: .microseconds(200_001),
                    subscriptions: ["UserLoggedInEvent", "DataLoadedEvent", "UserLoggedInEvent"]))),
        .lifecycle(
            FeedLifecycle(
                time: 23,
                change: SubscriberLifecycleEvent(
                    kind: .leakCleared, eventTypeName: "", observerTypeName: "ProfileScreen", observerID: 7,
                    reason: "", expectedWithin: .milliseconds(50)))),
        .snapshot(
            FeedSnapshot(
                time: 24,
                snapshot: BusSnapshot(
                    busName: "shared", eventTypes: [EventTypeStatistics(typeName: "Ping")],
                    wildcardObservers: 1,
                    observers: [
                        ObserverStatistics(
                            className: "ProfileScreen", liveInstances: 1, deadInstances: 2,
                            liveSubscriptions: 3,
                            deadSubscriptions: 4, reclaimedInstances: 5, leakSuspects: 6),
                        ObserverStatistics(className: tricky),
                    ],
                    leakSuspects: [
                        LeakSuspect(
                            observerID: 7, className: "ProfileScreen", reason: "screen closed",
                            overdue: .milliseconds(1500), subscriptions: ["UserLoggedInEvent", "*"]),
                        LeakSuspect(
                            observerID: 8, className: tricky, reason: "", overdue: .zero, subscriptions: []),
                    ],
                    instances: [
                        ObserverInstance(
                            observerID: 7, className: "ProfileScreen", age: .seconds(9),
                            subscriptions: ["Ping"],
                            state: .live, leakReason: "screen closed", overdue: .milliseconds(1500)),
                        ObserverInstance(
                            observerID: 9, className: "ProfileScreen", age: .microseconds(1),
                            subscriptions: [],
                            state: .dead),
                        ObserverInstance(
                            observerID: 10, className: "ProfileScreen", age: .seconds(86_400 * 365),
                            subscriptions: [tricky], state: .reclaimed),
                    ]),
                tap: FeedTapCounters(monitors: 1, maximumMonitors: 64), omittedLeakSuspects: 2,
                omittedInstances: 3)),
    ]

    @Test("a snapshot read with Int.max suspects left out is written again with that count, not a crash")
    func omittedCountsFromAnAppAreWrittenAgain() throws {
        let record = FeedRecord.snapshot(
            FeedSnapshot(
                time: 1,
                snapshot: BusSnapshot(
                    busName: "b", eventTypes: [], wildcardObservers: 0,
                    leakSuspects: [
                        LeakSuspect(
                            observerID: 1, className: "C", reason: "r", overdue: .seconds(1),
                            subscriptions: [])
                    ],
                    instances: [
                        ObserverInstance(
                            observerID: 1, className: "C", age: .seconds(1), subscriptions: [], state: .live)
                    ]),
                omittedLeakSuspects: .max, omittedInstances: .max))
        let written = try FeedRecord.decode(line: record.encodeLine()).encodeLine()
        #expect(written.contains(#""leakSuspectsOmitted":9223372036854775807"#), "\(written)")
        #expect(written.contains(#""instancesOmitted":9223372036854775807"#), "\(written)")
    }

    @Test("a refusal and the tap's counters have the documented fields")
    func refusalAndTapCounters() throws {
        #expect(
            FeedRecord.refused(FeedRefusal(time: 5, reason: "64 monitors attached")).encodeLine()
                == #"{"kind":"refused","time":5.0,"reason":"64 monitors attached"}"# + "\n")
        let snapshot = try FeedRecord.decode(
            line:
                #"{"kind":"snapshot","time":1,"busName":"b","wildcardObservers":1,"deadWildcardObservers":0,"#
                + #""reclaimedWildcardObservers":0,"wildcardDeliveries":0,"eventTypes":[],"#
                + #""tap":{"monitors":1,"maximumMonitors":64,"refused":2,"disconnectedIdle":3}}"#)
        guard case .snapshot(let decoded) = snapshot else {
            Issue.record("expected a snapshot")
            return
        }
        #expect(
            decoded.tap == FeedTapCounters(monitors: 1, maximumMonitors: 64, refused: 2, disconnectedIdle: 3))
        #expect(throws: FeedDecodingError.self) {
            try FeedRecord.decode(
                line:
                    #"{"kind":"snapshot","time":1,"busName":"b","wildcardObservers":1,"deadWildcardObservers":0,"#
                    + #""reclaimedWildcardObservers":0,"wildcardDeliveries":0,"eventTypes":[],"tap":{"monitors":1}}"#
            )
        }
    }

    @Test("every record kind survives a round trip", arguments: samples)
    func roundTrip(record: FeedRecord) throws {
        let line = record.encodeLine()
        #expect(line.hasSuffix("\n"))
        #expect(line.dropLast().contains("\n") == false, "one record, one line")
        #expect(try FeedRecord.decode(line: line) == record)
        #expect(try FeedRecord.decode(line: Array(line.utf8)) == record)
    }

    @Test("a detach is written with the documented fields")
    func detachedFields() {
        let line = FeedRecord.detached(FeedDetached(time: 6, pid: 4242, process: "simapp", bus: "shared"))
            .encodeLine()
        #expect(
            line == #"{"kind":"detached","time":6.0,"pid":4242,"process":"simapp","bus":"shared"}"# + "\n")
    }

    @Test("encoded lines are JSON that Foundation reads too, with the documented field names")
    func foundationReadsLines() throws {
        for record in Self.samples {
            let line = record.encodeLine()
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            #expect(object["kind"] as? String == record.kind)
        }
        let event = FeedRecord.event(
            FeedEvent(
                sequence: 4, time: 2.5, typeName: "T", payload: .fields(json: #"{"a":1}"#), receivers: 2))
        #expect(
            event.encodeLine()
                == #"{"kind":"event","seq":4,"time":2.5,"typeName":"T","receivers":2,"payload":{"a":1}}"#
                + "\n")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(event.encodeLine().utf8)) as? [String: Any])
        #expect((object["payload"] as? [String: Any])?["a"] as? Int == 1, "payload embedded, not a string")
    }

    @Test("times are written to the microsecond and read back exactly")
    func times() throws {
        for (time, text) in [
            (1_712_345_678.123456, "1712345678.123456"), (12.25, "12.25"), (3, "3.0"), (0.0000004, "0.0"),
            (4_294_967_295.999999, "4294967295.999999"),
        ] {
            let line = FeedRecord.dropped(FeedDrops(time: time, events: 0)).encodeLine()
            #expect(line.contains(#""time":\#(text),"#), "\(line)")
            let decoded = try FeedRecord.decode(line: line)
            #expect(decoded == .dropped(FeedDrops(time: (time * 1e6).rounded() / 1e6, events: 0)))
        }
    }

    @Test("the tricky string is escaped as JSON requires")
    func escaping() throws {
        let line = FeedRecord.event(
            FeedEvent(sequence: 1, time: 1, typeName: "T", payload: .description(Self.tricky), receivers: 0)
        ).encodeLine()
        #expect(line.contains(#"say \"hi\"\\ there\nnew line\ttab\r\u0000\u001f café"#))
        let decoded = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(decoded?["payload"] as? String == Self.tricky)
    }

    @Test("the tap formats payloads as PayloadFormatter does, objects embedded")
    func payloadsMatchFormatter() {
        let formatter = PayloadFormatter()
        let ping = Ping(number: 3, note: "a/b \"c\"")
        #expect(formatter.payload(for: ping) == .fields(json: PayloadFormatter.format(ping)))
        let opaque = Opaque(number: 5)
        #expect(formatter.payload(for: opaque) == .description("Opaque #5"))
        #expect(
            FeedPayload(formatted: PayloadFormatter.format(ping))
                == .fields(json: PayloadFormatter.format(ping)))
        #expect(FeedPayload(formatted: "{not json") == .description("{not json"))
        #expect(FeedPayload(formatted: "{}\n") == .description("{}\n"))
    }

    @Test("a huge payload is cut to the limit, so its line stays readable")
    func hugePayload() throws {
        let huge = String(repeating: "é", count: FeedPayload.maximumLength)
        let payload = FeedPayload(formatted: huge)
        guard case .description(let text) = payload else {
            Issue.record("expected a description")
            return
        }
        #expect(text.utf8.count <= FeedPayload.maximumLength)
        #expect(text.hasSuffix("…"))
        let line = FeedRecord.event(
            FeedEvent(sequence: 1, time: 1, typeName: "T", payload: payload, receivers: 0)
        )
        .encodeLine()
        #expect(try FeedRecord.decode(line: line).kind == "event")
    }

    @Test(
        "malformed lines give clear errors",
        arguments: [
            ("", "malformed JSON at byte 1: the line is empty"),
            ("[1,2]", "expected a JSON object, one per line"),
            (#"{"kind":1}"#, #"expected a string field "kind""#),
            (#"{"kind":"party"}"#, #"unknown record kind "party""#),
            (#"{"kind":"dropped","time":1}"#, #"missing field "events" in a dropped record"#),
            (
                #"{"kind":"dropped","time":"soon","events":1}"#,
                #"field "time" of a dropped record should be a number, found a string"#
            ),
            (
                #"{"kind":"dropped","time":1,"events":-1}"#,
                #"field "events" of a dropped record must not be negative"#
            ),
            (
                #"{"kind":"dropped","time":1,"events":1.5}"#,
                #"field "events" of a dropped record should be a whole number, found 1.5"#
            ),
            (
                #"{"kind":"dropped","time":1,"events":99999999999999999999}"#,
                #"field "events" of a dropped record is too large"#
            ),
            (
                #"{"kind":"dropped","time":1e999,"events":1}"#,
                #"field "time" of a dropped record is out of range (seconds since 1970, up to 2^32)"#
            ),
            (
                #"{"kind":"lifecycle","time":1,"change":"exploded","eventTypeName":"T","count":1}"#,
                #"unknown record kind "lifecycle exploded""#
            ),
            (
                #"{"kind":"event","seq":1,"time":1,"typeName":"T","receivers":1,"payload":12}"#,
                #"field "payload" of an event record should be an object, an array or a string, found a number"#
            ),
            (
                #"{"kind":"snapshot","time":1,"busName":"b","wildcardObservers":0,"deadWildcardObservers":0,"reclaimedWildcardObservers":0,"wildcardDeliveries":0,"eventTypes":[{"typeName":"A"}]}"#,
                #"missing field "eventTypes[0].liveSubscribers" in a snapshot record"#
            ),
            (#"{"kind":"hello""#, "malformed JSON at byte 16: the line ends inside an object or array"),
            (
                #"{"kind":"hello"} x"#,
                "malformed JSON at byte 18: unexpected 'x' after the end of the JSON value"
            ),
            (#"{"kind":"a\qb"}"#, #"malformed JSON at byte 13: unknown escape \q"#),
            (#"{"kind":"\ud800"}"#, #"malformed JSON at byte 16: a \u escape holds half a surrogate pair"#),
            ("{\"kind\":\"a\nb\"}", "malformed JSON at byte 11: a record must fit on one line"),
        ])
    func malformed(line: String, message: String) {
        #expect(throws: FeedDecodingError.self) { try FeedRecord.decode(line: line) }
        do {
            _ = try FeedRecord.decode(line: line)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("bytes that are not UTF-8 are reported, not trusted")
    func invalidUTF8() {
        let bytes: [UInt8] = Array(#"{"kind":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(throws: FeedDecodingError.invalidUTF8) { try FeedRecord.decode(line: bytes) }
    }

    @Test("a line over the limit is refused before it is parsed")
    func lineTooLong() {
        let bytes = [UInt8](repeating: UInt8(ascii: " "), count: FeedRecord.maximumLineLength + 1)
        #expect(
            throws: FeedDecodingError.lineTooLong(length: FeedRecord.maximumLineLength + 1, limit: 1 << 20)
        ) {
            try FeedRecord.decode(line: bytes)
        }
        let text = String(repeating: "x", count: FeedRecord.maximumLineLength + 5)
        #expect(throws: FeedDecodingError.self) { try FeedRecord.decode(line: text) }
    }

    @Test("deep nesting is an error, not a stack overflow")
    func deepNesting() {
        let deep = #"{"kind":"event","payload":"# + String(repeating: "[", count: 100_000) + "}"
        #expect(throws: FeedDecodingError.self) { try FeedRecord.decode(line: deep) }
        let fine =
            #"{"kind":"event","seq":1,"time":1,"typeName":"T","receivers":0,"payload":"#
            + String(repeating: "[", count: 60) + String(repeating: "]", count: 60) + "}"
        #expect((try? FeedRecord.decode(line: fine)) != nil)
    }

    @Test("unknown fields are ignored and a CRLF ending is accepted, for compatibility")
    func tolerance() throws {
        let line = #"{"kind":"dropped","time":1,"events":2,"future":{"x":[1]}}"# + "\r\n"
        #expect(try FeedRecord.decode(line: line) == .dropped(FeedDrops(time: 1, events: 2)))
    }

    @Test(
        "a number is read as the standard library reads its text, however many digits it has",
        arguments: [
            "0", "7", "1796383441.120679", "0.000001", "9007199254740993", "18446744073709551615",
            "18446744073709551616", "184467440737095516150", "123456789012345678901234567890.5",
            "1.8446744073709551615e3", "0.1e-30", "2.5E+10", "18446744073709551616.25e-3",
            String(repeating: "9", count: 1_000) + "e-990",
            "-" + String(repeating: "1", count: 400) + ".5e-300",
            "-0", "-0.0e5",
        ])
    func numbersAreReadExactly(text: String) throws {
        // Read by the parser itself: a record's fields take only numbers in their own ranges.
        let bytes = Array(text.utf8)
        let value = try bytes.withUnsafeBufferPointer { buffer throws(FeedDecodingError) in
            var parser = JSONParser(buffer)
            return try parser.parseValue(at: 0)
        }
        guard case .number(let number) = value else {
            Issue.record("not a number: \(value)")
            return
        }
        #expect(number.double == Double(text))
        #expect(number.double.sign == Double(text)?.sign)
    }

    @Test(
        "a time is read from 0 up to 2^32 seconds since 1970; beyond, or below, the record is refused",
        arguments: [
            ("0", true), ("-0", true), ("1796383441.120679", true), ("4294967296", true),
            ("4294967296.000001", false), ("-0.000001", false), ("1e300", false), ("-1e300", false),
            ("9223372036.854775807", false),
        ])
    func timesAreInRange(text: String, accepted: Bool) {
        let line = #"{"kind":"dropped","time":"# + text + #","events":2}"#
        do {
            _ = try FeedRecord.decode(line: line)
            #expect(accepted, "\(text) was read")
        } catch {
            #expect(!accepted, "\(text): \(error)")
            #expect(error.description.contains("out of range"))
        }
    }

    @Test("a call's nanoseconds and an event's publishing time are read only where sums cannot overflow")
    func nanosecondsAreInRange() {
        let call = { (start: String, duration: String) in
            #"{"kind":"call","time":1,"startNs":\#(start),"eventID":1,"eventTypeName":"T","thread":1,"durationNs":\#(duration)}"#
        }
        #expect((try? FeedRecord.decode(line: call("4294967296000000000", "1000000000000000000"))) != nil)
        #expect((try? FeedRecord.decode(line: call("4294967296000000001", "1"))) == nil)
        #expect((try? FeedRecord.decode(line: call("1", "1000000000000000001"))) == nil)
        #expect((try? FeedRecord.decode(line: call("9223372036854775807", "9223372036854775807"))) == nil)
        let event = { (published: String) in
            #"{"kind":"event","seq":1,"time":1,"typeName":"T","receivers":0,"eventID":1,"publishedNs":\#(published),"payload":{}}"#
        }
        #expect((try? FeedRecord.decode(line: event("4294967296000000000"))) != nil)
        #expect((try? FeedRecord.decode(line: event("9223372036854775807"))) == nil)
    }

    @Test("a number with a leading zero, a bare minus or no digits after its point is refused")
    func malformedNumbersAreRefused() {
        for text in ["01", "-", "1.", "1e", "-.5", "+1"] {
            let line = #"{"kind":"dropped","time":"# + text + #","events":2}"#
            #expect(throws: FeedDecodingError.self, "\(text)") { try FeedRecord.decode(line: line) }
        }
    }

    @Test("the last kind of a line decides it, even after a snapshot's kind, its payload kept as text")
    func theLastKindWins() throws {
        let line =
            #"{"kind":"snapshot","seq":1,"time":1,"typeName":"T","receivers":0,"payload":{"a":[1,2]},"kind":"event"}"#
        guard case .event(let event) = try FeedRecord.decode(line: line) else {
            Issue.record("not an event")
            return
        }
        #expect(event.payload == .fields(json: #"{"a":[1,2]}"#))
    }

    @Test("a monitor's request for calls is read; anything else, or too long a line, is not a request")
    func monitorRequests() {
        #expect(
            String(decoding: MonitorRequest.traceCalls(true).encodeLine(), as: UTF8.self)
                == "{\"kind\":\"trace\",\"calls\":true}\n")
        var input = Array(
            "{\"kind\":\"trace\",\"calls\":true}\nGET / HTTP/1.1\n{\"kind\":\"trace\",\"calls\":false}\n{\"kind\":"
                .utf8)
        #expect(MonitorRequest.take(from: &input) == [.traceCalls(true), .traceCalls(false)])
        #expect(String(decoding: input, as: UTF8.self) == "{\"kind\":", "an unfinished line waits")
        var flood = [UInt8](repeating: UInt8(ascii: "x"), count: MonitorRequest.maximumLength + 10)
        #expect(MonitorRequest.take(from: &flood).isEmpty)
        #expect(flood.isEmpty, "a line longer than a request is dropped, not kept growing")
    }

    @Test(
        "strings are written with DEL, C1 controls and bidirectional overrides escaped, and read back the same"
    )
    func terminalControlsAreEscaped() throws {
        // A type name as a stranger might send it: C1 CSI (U+009B), DEL, an override, an
        // isolate, a line separator, and characters beside them that stay as they are.
        let hostile = "a\u{9B}2J\u{7F}b\u{202E}c\u{2066}d\u{2028}e\u{85}é…→\u{2069}\u{200F}\u{61C}ب\u{A0}"
        var writer = JSONLineWriter()
        writer.appendString(hostile)
        let written = String(decoding: writer.bytes, as: UTF8.self)
        #expect(
            written == #""a\u009b2J\u007fb\u202ec\u2066d\u2028e\u0085é…→\u2069\u200f\u061cب"# + "\u{A0}\"")
        for byte in writer.bytes {
            #expect(byte >= 0x20 && byte != 0x7F, "a control byte written raw: \(byte)")
        }
        #expect(
            !written.unicodeScalars.contains {
                (0x80...0x9F).contains($0.value) || (0x2066...0x2069).contains($0.value)
            })
        let event = FeedEvent(
            sequence: 1, time: 2, typeName: hostile, payload: .description(hostile), receivers: 0)
        guard case .event(let decoded) = try FeedRecord.decode(line: FeedRecord.event(event).encodeLine())
        else {
            Issue.record("not an event")
            return
        }
        #expect(decoded.typeName == hostile, "the escapes read back as the text sent")
    }
    @Test("characters that show nothing are written escaped, beyond the first plane as surrogate pairs")
    func invisibleCharactersAreEscaped() throws {
        // A name that passes for `Login` on a terminal, and a payload holding the same.
        let hidden = "Log\u{200B}in\u{AD}\u{FEFF}\u{E0041}\u{2060}é✓"
        var writer = JSONLineWriter()
        writer.appendString(hidden)
        #expect(
            String(decoding: writer.bytes, as: UTF8.self) == #""Log\u200bin\u00ad\ufeff\udb40\udc41\u2060é✓""#
        )

        let payload = FeedPayload.fields(json: #"{"user":"Log\#u{200B}in"}"#)
        let event = FeedEvent(
            sequence: 1, time: 2, typeName: hidden, payload: payload, receivers: 0)
        let text = FeedRecord.event(event).encodeLine()
        #expect(!text.unicodeScalars.contains { UntrustedText.isHiddenOrReordering($0.value) }, "\(text)")
        #expect(text.contains(#"{"user":"Log\u200bin"}"#), "\(text)")
        guard case .event(let decoded) = try FeedRecord.decode(line: text) else {
            Issue.record("not an event")
            return
        }
        #expect(decoded.typeName == hidden, "the escapes read back as the text sent")
    }

    @Test(
        "a payload nested as deeply as the tap sends one reads back; one level deeper is text",
        arguments: [64, 65])
    func deepPayloadsReadBack(levels: Int) throws {
        let json =
            String(repeating: #"{"c":"#, count: levels - 1) + "{}" + String(repeating: "}", count: levels - 1)
        let payload = FeedPayload(formatted: json)
        // 64 levels go as JSON, and were then refused as a whole line, nesting 65 in the record.
        #expect(payload == (levels <= 64 ? .fields(json: json) : .description(json)))
        let event = FeedEvent(sequence: 1, time: 2, typeName: "TreeEvent", payload: payload, receivers: 1)
        guard case .event(let decoded) = try FeedRecord.decode(line: FeedRecord.event(event).encodeLine())
        else {
            Issue.record("not an event")
            return
        }
        #expect(decoded.payload == payload)
    }

    @Test("a string longer than a reader keeps is cut to it, ending in an ellipsis")
    func longStringsAreCutWhenRead() throws {
        let long = String(repeating: "é", count: 300_000)
        let event = FeedEvent(sequence: 1, time: 2, typeName: long, payload: .description("p"), receivers: 0)
        guard case .event(let decoded) = try FeedRecord.decode(line: FeedRecord.event(event).encodeLine())
        else {
            Issue.record("not an event")
            return
        }
        #expect(decoded.typeName.utf8.count <= JSONParser.maximumStringLength)
        #expect(decoded.typeName.utf8.count > JSONParser.maximumStringLength - 8)
        #expect(decoded.typeName.hasSuffix("é…"), "cut at a character, and said so")
    }
    @Test("an app's payload JSON is written out with its terminal controls escaped, meaning what it meant")
    func payloadJSONIsWrittenWithTerminalControlsEscaped() throws {
        // As a stranger's tap may send it: raw C1 CSI, DEL and an override inside a string.
        let line =
            #"{"kind":"event","seq":1,"time":2,"typeName":"T","receivers":0,"payload":{"x":"a\#u{9B}2J\#u{7F}\#u{202E}b","y":[1,"\#u{2066}"]}}"#
        guard case .event(let event) = try FeedRecord.decode(line: line) else {
            Issue.record("not an event")
            return
        }
        let written = FeedRecord.event(event).encodeLine()
        #expect(written.contains(#""payload":{"x":"a\u009b2J\u007f\u202eb","y":[1,"\u2066"]}"#), "\(written)")
        #expect(!written.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) || $0.value == 0x202E })
        guard case .event(let again) = try FeedRecord.decode(line: written) else {
            Issue.record("not an event")
            return
        }
        let fields = try #require(
            try JSONSerialization.jsonObject(with: Data(again.payload.text.utf8)) as? [String: Any])
        #expect(fields["x"] as? String == "a\u{9B}2J\u{7F}\u{202E}b")
    }
}
