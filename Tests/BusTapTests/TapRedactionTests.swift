import EventBus
import TestSupport
import Testing

@testable import BusTap
@testable import BusWire

@Suite("A tap redacts secrets")
struct TapRedactionTests {
    private let secret = "hunter2"

    @Test("through a tap's socket, by default; an app that names fewer fields sends them")
    func throughTheTap() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus()
        let tap = try BusTap(bus: bus, socketPath: directory.file("t.sock"))
        let client = try #require(RawClient(path: tap.socketPath))
        #expect(eventually { tap.connectedClients == 1 })
        bus.publish(SignedIn(user: "ada", password: secret))
        let records = client.readRecords { !$0.events.isEmpty }
        #expect(records.events.first?.payload == .fields(json: #"{"password":"<redacted>","user":"ada"}"#))

        let open = try BusTap(
            bus: bus, socketPath: directory.file("open.sock"),
            redacting: PayloadRedaction.default.removing("password"))
        let reader = try #require(RawClient(path: open.socketPath))
        #expect(eventually { open.connectedClients == 1 })
        bus.publish(SignedIn(user: "bob", password: secret))
        let shown = reader.readRecords { !$0.events.isEmpty }
        #expect(shown.events.first?.payload == .fields(json: #"{"password":"\#(secret)","user":"bob"}"#))
    }
}
