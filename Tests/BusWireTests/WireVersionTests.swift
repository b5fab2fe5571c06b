import EventBus
import Foundation
import TestSupport
import Testing

@testable import BusWire

@Suite("Wire format versions")
struct WireVersionTests {
    /// A version-1 snapshot line, as a version-1 tap wrote it: no observers, suspects or instances.
    static let versionOneSnapshot =
        #"{"kind":"snapshot","time":1,"busName":"b","wildcardObservers":1,"deadWildcardObservers":0,"#
        + #""reclaimedWildcardObservers":0,"wildcardDeliveries":0,"eventTypes":[]"#

    @Test("this library writes version 3 and reads versions 1 to 3")
    func versions() {
        #expect(FeedRecord.wireVersion == 3)
        #expect(FeedHello(pid: 1, process: "p", bus: "b", time: 1).version == 3)
        #expect(FeedRecord.unreadableVersionMessage(1, speaker: "tap") == nil)
        #expect(FeedRecord.unreadableVersionMessage(2, speaker: "tap") == nil)
        #expect(FeedRecord.unreadableVersionMessage(3, speaker: "tap") == nil)
        #expect(
            FeedRecord.unreadableVersionMessage(4, speaker: "tap")
                == "tap speaks wire version 4, this reads versions 1 to 3")
        #expect(
            FeedRecord.unreadableVersionMessage(0, speaker: "recording")
                == "recording speaks wire version 0, this reads versions 1 to 3")
    }

    @Test("version-2 event lines read with no number, cause or site; version 3 carries them")
    func eventTraces() throws {
        let old = try FeedRecord.decode(
            line: #"{"kind":"event","seq":1,"time":1,"typeName":"Tick","receivers":1,"payload":{"value":1}}"#)
        guard case .event(let event) = old else {
            Issue.record("not an event: \(old)")
            return
        }
        #expect(event.trace == PublishTrace())
        let traced = FeedRecord.event(
            FeedEvent(
                sequence: 2, time: 2, typeName: "Tick", payload: .fields(json: #"{"value":2}"#), receivers: 1,
                trace: PublishTrace(
                    eventID: 7, causeID: 5, site: PublishSite(fileID: "App/LoginService.swift", line: 42))))
        let line = traced.encodeLine()
        #expect(line.contains(#""eventID":7,"causeID":5,"fileID":"App/LoginService.swift","line":42"#))
        #expect(try FeedRecord.decode(line: line) == traced)
    }

    @Test("sticky events travel as redacted text, and drops per type and handler survive a round trip")
    func stickyEventsAndDrops() throws {
        let bus = EventBus()
        bus.publishSticky(SignedIn(user: "ada", password: "hunter2"))
        let stream = bus.events(of: Tick.self, bufferingNewest: 1)
        for value in 1...3 { bus.publish(Tick(value: value)) }
        var writer = JSONLineWriter()
        writer.writeSnapshot(time: 1, bus.snapshot())
        let line = String(decoding: writer.bytes, as: UTF8.self)
        #expect(!line.contains("hunter2"), "the app redacts what monitors see")
        guard case .snapshot(let decoded) = try FeedRecord.decode(line: line) else {
            Issue.record("not a snapshot: \(line)")
            return
        }
        let sticky = try #require(decoded.snapshot.stickyEvents.first)
        #expect(sticky.typeName == "SignedIn")
        #expect(PayloadFormatter.format(sticky.event).contains(#""user":"ada""#))
        #expect(PayloadFormatter.format(sticky.event).contains("<redacted>"))
        #expect(decoded.snapshot["Tick"]?.dropped == 2)
        #expect(decoded.snapshot.handlers.first { $0.eventTypeName == "Tick" }?.dropped == 2)
        // Equal to what was sent: the same sticky publish, the same counts.
        #expect(decoded.snapshot.stickyEvents == bus.snapshot().stickyEvents)
        _ = stream
    }

    @Test("handler rows, their waits, failures and the new lifecycle records survive a round trip")
    func handlerRecords() throws {
        let snapshot = FeedRecord.snapshot(
            FeedSnapshot(
                time: 3,
                snapshot: BusSnapshot(
                    busName: "b",
                    eventTypes: [EventTypeStatistics(typeName: "Tick", published: 4, handlerFailures: 1)],
                    wildcardObservers: 0,
                    observers: [ObserverStatistics(className: "Screen", handlerFailures: 1)],
                    handlers: [
                        HandlerStatistics(
                            observerTypeName: "Screen", eventTypeName: "Tick", calls: 4,
                            total: .milliseconds(40),
                            maximum: .milliseconds(31), slowCalls: 1, failures: 1,
                            waits: DeliveryWaits(
                                count: 4, p50: .milliseconds(2), p99: .milliseconds(20),
                                maximum: .milliseconds(19),
                                slowDeliveries: 1)),
                        HandlerStatistics(observerTypeName: nil, eventTypeName: "Tick", calls: 4),
                    ])))
        #expect(try FeedRecord.decode(line: snapshot.encodeLine()) == snapshot)
        for change in [
            SubscriberLifecycleEvent(
                kind: .cascadeStopped, eventTypeName: "Ping", count: 10_000, reason: "Ping → Pong → Ping"),
            SubscriberLifecycleEvent(
                kind: .handlerFailed, eventTypeName: "Tick", observerTypeName: "Screen", observerID: 3,
                reason: "item 2 is corrupt"),
            SubscriberLifecycleEvent(
                kind: .slowHandler, eventTypeName: "Tick", observerTypeName: "Screen", observerID: 3,
                duration: .milliseconds(32)),
            SubscriberLifecycleEvent(
                kind: .slowDelivery, eventTypeName: "Tick", count: 3, observerTypeName: "Screen",
                observerID: 3,
                duration: .milliseconds(45)),
        ] {
            let record = FeedRecord.lifecycle(FeedLifecycle(time: 4, change: change))
            #expect(try FeedRecord.decode(line: record.encodeLine()) == record)
        }
    }

    @Test("a lifecycle change this version does not know is a line of an unknown kind, which readers skip")
    func unknownChange() {
        #expect(throws: FeedDecodingError.unknownKind("lifecycle slowTide")) {
            try FeedRecord.decode(
                line: #"{"kind":"lifecycle","time":2,"change":"slowTide","eventTypeName":"Tick","count":1}"#)
        }
        // Handler rows without waits (an older writer's) read as waiting for nothing measured.
        let row =
            #"{"observerTypeName":null,"eventTypeName":"Tick","calls":2,"total":0,"maximum":0,"#
            + #""slowCalls":0,"failures":0}"#
        let line = Self.versionOneSnapshot + #","handlers":["# + row + "]}"
        guard case .snapshot(let snapshot)? = try? FeedRecord.decode(line: line) else {
            Issue.record("expected a snapshot")
            return
        }
        #expect(snapshot.snapshot.handlers.first?.waits == DeliveryWaits.unmeasured)
    }

    @Test("version-1 lines read with the new fields absent or empty")
    func versionOneLines() throws {
        let lifecycle = try FeedRecord.decode(
            line:
                #"{"kind":"lifecycle","time":2,"change":"reclaimed","eventTypeName":"Tick","count":3,"observerTypeName":null}"#
        )
        #expect(
            lifecycle
                == .lifecycle(
                    FeedLifecycle(
                        time: 2,
                        change: SubscriberLifecycleEvent(kind: .reclaimed, eventTypeName: "Tick", count: 3))))
        guard case .snapshot(let snapshot) = try FeedRecord.decode(line: Self.versionOneSnapshot + "}") else {
            Issue.record("expected a snapshot")
            return
        }
        #expect(snapshot.snapshot.observers.isEmpty)
        #expect(snapshot.snapshot.leakSuspects.isEmpty)
        #expect(snapshot.snapshot.instances.isEmpty)
        #expect(snapshot.omittedInstances == 0 && snapshot.omittedLeakSuspects == 0)
        // Explicit nulls read as absent, as for observerTypeName.
        let nulls = try FeedRecord.decode(
            line:
                #"{"kind":"lifecycle","time":2,"change":"subscribed","eventTypeName":"T","count":1,"observerTypeName":null,"#
                + #""observerID":null,"deadFor":null,"reclaimedBy":null,"reason":null,"expectedWithin":null,"#
                + #""overdue":null,"subscriptions":null}"#)
        #expect(
            nulls
                == .lifecycle(
                    FeedLifecycle(
                        time: 2, change: SubscriberLifecycleEvent(kind: .subscribed, eventTypeName: "T"))))
        let nullArrays = try FeedRecord.decode(
            line: Self.versionOneSnapshot + #","observers":null,"leakSuspects":null,"instances":null}"#)
        #expect(nullArrays.kind == "snapshot")
    }

    @Test("lifecycle lines have the documented fields: serial, reclaim cause as an object, seconds")
    func lifecycleFields() {
        let reclaimed = FeedRecord.lifecycle(
            FeedLifecycle(
                time: 1,
                change: SubscriberLifecycleEvent(
                    kind: .reclaimed, eventTypeName: "UserLoggedInEvent", count: 3,
                    observerTypeName: "LoginScreen",
                    observerID: 41, deadFor: .milliseconds(12),
                    reclaimedBy: .publish(eventTypeName: "UserLoggedInEvent"))))
        #expect(
            reclaimed.encodeLine()
                == #"{"kind":"lifecycle","time":1.0,"change":"reclaimed","eventTypeName":"UserLoggedInEvent","count":3,"#
                + #""observerTypeName":"LoginScreen","observerID":41,"deadFor":0.012,"#
                + #""reclaimedBy":{"cause":"publish","eventTypeName":"UserLoggedInEvent"}}"# + "\n")
        let suspected = FeedRecord.lifecycle(
            FeedLifecycle(
                time: 2,
                change: SubscriberLifecycleEvent(
                    kind: .leakSuspected, eventTypeName: "", observerTypeName: "ProfileScreen", observerID: 7,
                    reason: "screen closed", expectedWithin: .seconds(5), overdue: .milliseconds(200),
                    subscriptions: ["UserLoggedInEvent", "DataLoadedEvent"])))
        #expect(
            suspected.encodeLine()
                == #"{"kind":"lifecycle","time":2.0,"change":"leakSuspected","eventTypeName":"","count":1,"#
                + #""observerTypeName":"ProfileScreen","observerID":7,"reason":"screen closed","#
                + #""expectedWithin":5.0,"overdue":0.2,"subscriptions":["UserLoggedInEvent","DataLoadedEvent"]}"#
                + "\n")
        let sweep = FeedRecord.lifecycle(
            FeedLifecycle(
                time: 3,
                change: SubscriberLifecycleEvent(kind: .reclaimed, eventTypeName: "T", reclaimedBy: .sweep)))
        #expect(sweep.encodeLine().contains(#""observerID":null,"reclaimedBy":{"cause":"sweep"}}"#))
    }

    @Test("snapshot lines have the documented fields, which Foundation reads with the right types")
    func snapshotFields() throws {
        let record = try #require(WireFormatTests.observerSamples.last)
        let line = record.encodeLine()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let observer = try #require((object["observers"] as? [[String: Any]])?.first)
        #expect(
            Set(observer.keys) == [
                "className", "liveInstances", "deadInstances", "liveSubscriptions", "deadSubscriptions",
                "reclaimedInstances", "leakSuspects",
            ])
        let suspect = try #require((object["leakSuspects"] as? [[String: Any]])?.first)
        #expect(Set(suspect.keys) == ["observerID", "className", "reason", "overdue", "subscriptions"])
        #expect(suspect["overdue"] as? Double == 1.5)
        #expect(suspect["subscriptions"] as? [String] == ["UserLoggedInEvent", "*"])
        let instances = try #require(object["instances"] as? [[String: Any]])
        #expect(
            Set(instances[0].keys) == [
                "observerID", "className", "age", "subscriptions", "state", "leakReason", "overdue",
            ])
        #expect(Set(instances[1].keys) == ["observerID", "className", "age", "subscriptions", "state"])
        #expect(instances.map { $0["state"] as? String } == ["live", "dead", "reclaimed"])
        #expect(instances[0]["age"] as? Double == 9)
        #expect(object["leakSuspectsOmitted"] as? Int == 2)
        #expect(object["instancesOmitted"] as? Int == 3)
        // Nothing left out, nothing said.
        let plain = FeedRecord.snapshot(
            FeedSnapshot(time: 1, snapshot: BusSnapshot(busName: "b", eventTypes: [], wildcardObservers: 0))
        )
        .encodeLine()
        #expect(plain.contains(#""observers":[],"leakSuspects":[],"instances":[]}"#))
    }

    @Test("durations are written in seconds to the microsecond and read back exactly")
    func durations() throws {
        for (duration, text) in [
            (Duration.milliseconds(12), "0.012"), (.seconds(5), "5.0"), (.microseconds(1), "0.000001"),
            (.zero, "0.0"), (.seconds(-3), "0.0"), (.nanoseconds(1_499), "0.000001"),
            (.seconds(Int64.max), "1000000000.0"),
        ] {
            let record = FeedRecord.lifecycle(
                FeedLifecycle(
                    time: 1,
                    change: SubscriberLifecycleEvent(kind: .reclaimed, eventTypeName: "T", deadFor: duration))
            )
            let line = record.encodeLine()
            #expect(line.contains(#""deadFor":\#(text)}"#), "\(line)")
            guard case .lifecycle(let decoded) = try FeedRecord.decode(line: line) else {
                Issue.record("expected a lifecycle record")
                continue
            }
            #expect(decoded.change.deadFor == .microseconds(Int64((Double(text)! * 1e6).rounded())))
        }
    }

    @Test(
        "malformed new fields give clear errors, as the old fields do",
        arguments: [
            (#""observerID":-1"#, #"field "observerID" of a lifecycle record must not be negative"#),
            (
                #""observerID":"7""#,
                #"field "observerID" of a lifecycle record should be a whole number, found a string"#
            ),
            (
                #""observerID":7.5"#,
                #"field "observerID" of a lifecycle record should be a whole number, found 7.5"#
            ),
            (#""deadFor":-0.5"#, #"field "deadFor" of a lifecycle record must not be negative"#),
            (#""deadFor":1e10"#, #"field "deadFor" of a lifecycle record is out of range"#),
            (
                #""overdue":"soon""#,
                #"field "overdue" of a lifecycle record should be a number of seconds, found a string"#
            ),
            (
                #""expectedWithin":true"#,
                #"field "expectedWithin" of a lifecycle record should be a number of seconds, found a boolean"#
            ),
            (
                #""reason":3"#,
                #"field "reason" of a lifecycle record should be a string or null, found a number"#
            ),
            (
                #""reclaimedBy":"sweep""#,
                #"field "reclaimedBy" of a lifecycle record should be an object or null, found a string"#
            ),
            (
                #""reclaimedBy":{"cause":"gc"}"#,
                #"field "reclaimedBy.cause" of a lifecycle record has unknown value "gc""#
            ),
            (
                #""reclaimedBy":{"cause":"publish"}"#,
                #"missing field "reclaimedBy.eventTypeName" in a lifecycle record"#
            ),
            (#""reclaimedBy":{}"#, #"missing field "reclaimedBy.cause" in a lifecycle record"#),
            (
                #""subscriptions":["A",1]"#,
                #"field "subscriptions[1]" of a lifecycle record should be a string, found a number"#
            ),
            (
                #""subscriptions":"A""#,
                #"field "subscriptions" of a lifecycle record should be an array, found a string"#
            ),
        ])
    func malformedLifecycle(field: String, message: String) {
        let line =
            #"{"kind":"lifecycle","time":1,"change":"reclaimed","eventTypeName":"T","count":1,"# + field + "}"
        #expect(throws: FeedDecodingError.self) { try FeedRecord.decode(line: line) }
        do {
            _ = try FeedRecord.decode(line: line)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test(
        "malformed snapshot rows give errors that name the row and the field",
        arguments: [
            (
                #""observers":{}"#,
                #"field "observers" of a snapshot record should be an array, found an object"#
            ),
            (
                #""observers":[1]"#,
                #"field "observers[0]" of a snapshot record should be an object, found a number"#
            ),
            (
                #""observers":[{"className":"A"}]"#,
                #"missing field "observers[0].liveInstances" in a snapshot record"#
            ),
            (
                #""leakSuspects":[{"observerID":1,"className":"A","reason":"","overdue":-1,"subscriptions":[]}]"#,
                #"field "leakSuspects[0].overdue" of a snapshot record must not be negative"#
            ),
            (
                #""leakSuspects":[{"observerID":1,"className":"A","reason":"","overdue":1}]"#,
                #"missing field "leakSuspects[0].subscriptions" in a snapshot record"#
            ),
            (
                #""instances":[{"observerID":1,"className":"A","age":1,"subscriptions":[],"state":"zombie"}]"#,
                #"field "instances[0].state" of a snapshot record has unknown value "zombie""#
            ),
            (
                #""instances":[{"observerID":1,"className":"A","age":1,"subscriptions":[2],"state":"live"}]"#,
                #"field "instances[0].subscriptions[0]" of a snapshot record should be a string, found a number"#
            ),
            (
                #""instances":[{"observerID":1,"className":"A","age":1,"subscriptions":[],"state":"live","overdue":"x"}]"#,
                #"field "instances[0].overdue" of a snapshot record should be a number of seconds, found a string"#
            ),
            (
                #""instancesOmitted":-1"#,
                #"field "instancesOmitted" of a snapshot record must not be negative"#
            ),
        ])
    func malformedSnapshot(field: String, message: String) {
        let line = Self.versionOneSnapshot + "," + field + "}"
        #expect(throws: FeedDecodingError.self) { try FeedRecord.decode(line: line) }
        do {
            _ = try FeedRecord.decode(line: line)
        } catch {
            #expect(error.description == message)
        }
    }

    /// A snapshot of a bus with `classes` observer classes of `perClass` instances each, every
    /// instance subscribed to twenty long-named types, and `suspects` suspects.
    static func crowdedSnapshot(classes: Int, perClass: Int, suspects: Int = 0) -> BusSnapshot {
        let subscriptions = (1...20).map { "SomeRatherLongEventTypeName\($0)" }
        let instances = (0..<classes).flatMap { classIndex in
            (0..<perClass).map { index in
                ObserverInstance(
                    observerID: UInt64(classIndex * perClass + index), className: "Class\(classIndex)",
                    age: .seconds(1), subscriptions: subscriptions, state: index == 0 ? .dead : .live)
            }
        }
        let leakSuspects = (0..<suspects).map { index in
            LeakSuspect(
                observerID: UInt64(index), className: "Class0", reason: "screen closed",
                overdue: .seconds(suspects - index), subscriptions: subscriptions)
        }
        return BusSnapshot(
            busName: "crowded", eventTypes: [], wildcardObservers: 0, leakSuspects: leakSuspects,
            instances: instances)
    }

    @Test("a snapshot with too many instances lists fewer per class, keeps every class, and counts the rest")
    func instancesCutPerClass() throws {
        // Given 40 classes of 50 instances, about 1.5 MB of rows, more than a line may hold
        let snapshot = Self.crowdedSnapshot(classes: 40, perClass: 50)
        // When it is written
        let line = FeedRecord.snapshot(FeedSnapshot(time: 1, snapshot: snapshot)).encodeLine()
        // Then the line stays within the budget, and every class keeps its first instances
        #expect(line.utf8.count <= FeedSnapshot.listBudget + 1024)
        guard case .snapshot(let decoded) = try FeedRecord.decode(line: line) else {
            Issue.record("expected a snapshot")
            return
        }
        let perClass = Dictionary(grouping: decoded.snapshot.instances, by: \.className)
        #expect(perClass.count == 40)
        let kept = try #require(perClass["Class0"]?.count)
        #expect(kept < 50 && kept > 1)
        #expect(perClass.values.allSatisfy { $0.count == kept && $0.first?.state == .dead })
        #expect(decoded.omittedInstances == 2000 - 40 * kept)
        // And what was read is written the same way again
        #expect(FeedRecord.snapshot(decoded).encodeLine() == line)
    }

    @Test("too many leak suspects are cut at the end, the most overdue kept, and counted")
    func suspectsCut() throws {
        let snapshot = Self.crowdedSnapshot(classes: 1, perClass: 1, suspects: 2000)
        let line = FeedRecord.snapshot(FeedSnapshot(time: 1, snapshot: snapshot)).encodeLine()
        #expect(line.utf8.count <= FeedSnapshot.listBudget + 1024)
        guard case .snapshot(let decoded) = try FeedRecord.decode(line: line) else {
            Issue.record("expected a snapshot")
            return
        }
        let kept = decoded.snapshot.leakSuspects
        #expect(!kept.isEmpty && kept.count < 2000)
        #expect(kept == Array(snapshot.leakSuspects.prefix(kept.count)))
        #expect(decoded.omittedLeakSuspects == 2000 - kept.count)
        #expect(decoded.omittedInstances == 1, "no room left for the instance")
        #expect(FeedRecord.snapshot(decoded).encodeLine() == line)
    }
}
