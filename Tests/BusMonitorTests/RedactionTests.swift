import BusMonitor
import BusWire
import EventBus
import Foundation
import TestSupport
import Testing

@testable import BusWire

/// `"<redacted>"` wherever a monitor sees an event: in-process, through a tap's socket, and in a
/// recording; the subscribers in the app still get every field.
@Suite("Secrets stay in the app")
struct RedactionTests {
    private let secret = "hunter2"

    @Test("in-process, the dashboard's source shows the field redacted; subscribers get it whole")
    func inProcess() throws {
        let bus = EventBus()
        let source = LocalBusSource(bus: bus)
        let received = LockedValue<[String]>([])
        let token = bus.subscribe(to: SignedIn.self) { event in
            received.withLock { $0.append(event.password) }
        }
        bus.publish(SignedIn(user: "ada", password: secret))
        let event = try #require(source.drain().events.first)
        #expect(event.payload.text == #"{"password":"<redacted>","user":"ada"}"#)
        #expect(received.current == [secret])
        token.cancel()
    }

    @Test("a recording of what was watched holds no secret")
    func inARecording() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("session.jsonl")
        let bus = EventBus()
        let writer = try RecordingWriter(path: path)
        let source = RecordingSource(wrapping: LocalBusSource(bus: bus), writer: writer)
        bus.publish(SignedIn(user: "ada", password: secret))
        _ = source.drain()
        writer.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(#""payload":{"password":"<redacted>","user":"ada"}"#), "\(text)")
        #expect(!text.contains(secret))
    }

    @Test("a NATS fleet's monitor redacts what it shows, since bridges send events whole")
    func aFleetMonitorRedacts() {
        var fleet = FleetState()
        let origin = FeedOrigin(app: "a", host: "h", pid: 1)
        let event = FeedEvent(
            sequence: 1, time: 1, typeName: "SignedIn",
            payload: .fields(json: #"{"password":"x","user":"ada"}"#),
            receivers: 1, origin: origin)
        fleet.receive(.event(event, origin: origin), now: 1)
        #expect(
            fleet.takeBatch(now: 1).events.first?.payload.text == #"{"password":"<redacted>","user":"ada"}"#)
    }
}
