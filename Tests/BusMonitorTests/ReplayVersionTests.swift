import BusMonitor
import BusWire
import EventBus
import Foundation
import TestSupport
import Testing

@testable import BusMonitor
@testable import BusWire

@Suite("Replaying recordings of each wire version")
struct ReplayVersionTests {
    /// A recording as a version-1 busmon wrote it, by hand: no observer serials, no leak kinds,
    /// no observer tables in the snapshot.
    static let versionOneRecording =
        [
            #"{"kind":"hello","version":1,"pid":4242,"process":"simapp","bus":"shared","time":100.0}"#,
            #"{"kind":"lifecycle","time":100.1,"change":"subscribed","eventTypeName":"Ping","count":1,"observerTypeName":"Screen"}"#,
            #"{"kind":"event","seq":1,"time":100.2,"typeName":"Ping","receivers":1,"payload":{"note":"","number":1}}"#,
            #"{"kind":"lifecycle","time":100.3,"change":"reclaimed","eventTypeName":"Ping","count":1,"observerTypeName":null}"#,
            #"{"kind":"snapshot","time":100.4,"busName":"shared","wildcardObservers":1,"deadWildcardObservers":0,"reclaimedWildcardObservers":0,"wildcardDeliveries":1,"eventTypes":[{"typeName":"Ping","qualifiedTypeName":"App.Ping","liveSubscribers":0,"deadSubscribers":0,"reclaimedSubscribers":1,"unsubscribedSubscribers":0,"cancelledSubscribers":0,"duplicateSubscriptions":0,"published":1,"delivered":1,"unheard":0}]}"#,
            #"{"kind":"dropped","time":100.5,"events":2,"lifecycle":0}"#,
        ].joined(separator: "\n") + "\n"

    @Test("a version-1 recording replays, the fields version 2 added absent or empty")
    func versionOneReplays() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("v1.jsonl")
        try Self.versionOneRecording.write(toFile: path, atomically: true, encoding: .utf8)

        let replay = try ReplaySource(path: path, speed: 0)
        #expect(replay.warnings.isEmpty)
        #expect(replay.hello?.version == 1)
        let batches = drainUntil(replay) { _ in replay.isFinished }
        #expect(batches.flatMap(\.events).map(\.payload.text) == [#"{"note":"","number":1}"#])
        #expect(
            batches.flatMap(\.lifecycle).map(\.change) == [
                SubscriberLifecycleEvent(
                    kind: .subscribed, eventTypeName: "Ping", observerTypeName: "Screen"),
                SubscriberLifecycleEvent(kind: .reclaimed, eventTypeName: "Ping"),
            ])
        let snapshot = try #require(batches.compactMap(\.snapshot).last)
        #expect(snapshot["Ping"]?.reclaimedSubscribers == 1)
        #expect(snapshot.observers.isEmpty && snapshot.leakSuspects.isEmpty && snapshot.instances.isEmpty)
        #expect(batches.last?.droppedEvents == 2)
        #expect(batches.last?.status == "replay finished")
    }

    @Test(
        "busmon's own --headless output replays without a warning for its summary and state lines; a kind it does not know is warned of"
    )
    func headlessOutputReplays() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("headless.jsonl")
        let lines = [
            #"{"kind":"hello","version":3,"pid":4242,"process":"simapp","bus":"shared","time":100.0}"#,
            #"{"kind":"event","seq":1,"time":100.2,"typeName":"Ping","receivers":1,"payload":{"number":1}}"#,
            #"{"kind":"summary","time":100.3,"elapsed":0.3,"status":"attached","events":1}"#,
            #"{"kind":"state","at":0.3,"time":100.3}"#,
            #"{"kind":"fleet","time":100.3,"members":[]}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try ReplaySource(path: path, speed: 0).warnings.isEmpty)
        try (lines.joined(separator: "\n") + "\n" + #"{"kind":"tide","time":100.4}"# + "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(
            try ReplaySource(path: path, speed: 0).warnings == [
                "\(path): skipped 1 line of a kind this version does not know"
            ])
    }

    @Test(
        "a recording of a hello alone stands at the hello's time, so the dashboard shows no clock of its own")
    func aHelloAloneStandsAtItsTime() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("hello.jsonl")
        try (#"{"kind":"hello","version":3,"pid":1,"process":"app","bus":"b","time":1700000000.5}"# + "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let replay = try ReplaySource(path: path, speed: 1)
        #expect(replay.drainBatches().last?.sourceClock == 1_700_000_000.5)
    }

    @Test("a recording of a wire version this does not read is refused, naming the line")
    func newerVersionRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("v4.jsonl")
        let recording = Self.versionOneRecording.replacingOccurrences(
            of: #""version":1"#, with: #""version":4"#)
        try recording.write(toFile: path, atomically: true, encoding: .utf8)

        #expect(throws: RecordingError.unreadableVersion(path: path, line: 1, version: 4)) {
            try ReplaySource(path: path)
        }
        #expect(
            RecordingError.unreadableVersion(path: "v4.jsonl", line: 1, version: 4).description
                == "v4.jsonl:1: recording speaks wire version 4, this reads versions 1 to 3")
    }
}
