import Testing

@testable import BusWire

@Suite("The dial-in handshake and addresses")
struct MonitorLinkHandshakeTests {
    @Test("a dial reads back as written")
    func dialRoundTrip() throws {
        let dial = MonitorLinkHandshake.Dial(token: "abc\"d", app: "checkout", host: "iPhone", pid: 42)
        let line = dial.encodeLine()
        #expect(line.last == 0x0A)
        #expect(MonitorLinkHandshake.decodeDial(line.dropLast()) == .success(dial))
    }

    @Test("what is not a dial is told apart: HTTP, garbage, another record, another version")
    func notADial() {
        func decode(_ text: String) -> Result<MonitorLinkHandshake.Dial, MonitorLinkHandshake.DialProblem> {
            MonitorLinkHandshake.decodeDial(Array(text.utf8)[...])
        }
        #expect(decode("GET / HTTP/1.1\r") == .failure(.http))
        #expect(decode("\u{01}\u{FF}garbage") == .failure(.notADial))
        #expect(decode(#"{"kind":"hello","version":1}"#) == .failure(.notADial))
        #expect(
            decode(#"{"kind":"dial","version":1,"token":"t","app":"a","host":"h"}"#) == .failure(.notADial))
        // A negative pid would reach every record of the app, and a recording no replay reads.
        #expect(
            decode(#"{"kind":"dial","version":1,"token":"t","app":"a","host":"h","pid":-5}"#)
                == .failure(.notADial))
        #expect(
            decode(#"{"kind":"dial","version":9,"token":"t","app":"a","host":"h","pid":1}"#)
                == .failure(.unknownVersion(9)))
    }

    @Test("the monitor's answers read back")
    func answers() {
        #expect(MonitorLinkHandshake.decodeAnswer(MonitorLinkHandshake.welcomeLine().dropLast()) == .welcome)
        let refusal = MonitorLinkHandshake.refusalLine("wrong token", time: 1)
        #expect(MonitorLinkHandshake.decodeAnswer(refusal.dropLast()) == .refused("wrong token"))
        #expect(MonitorLinkHandshake.decodeAnswer(Array("SSH-2.0-OpenSSH".utf8)[...]) == .unknown)
        let http = String(decoding: MonitorLinkHandshake.refusalLine("x", time: 1, http: true), as: UTF8.self)
        #expect(http.hasPrefix("HTTP/1.0 400 Bad Request\r\n"))
    }

    @Test("tokens match only when equal")
    func tokens() {
        #expect(MonitorLinkHandshake.tokensMatch("abc", "abc"))
        #expect(!MonitorLinkHandshake.tokensMatch("abd", "abc"))
        #expect(!MonitorLinkHandshake.tokensMatch("abc", "abcd"))
        #expect(!MonitorLinkHandshake.tokensMatch("", "abc"))
    }

    @Test("addresses are HOST:PORT, [IPv6]:PORT or :PORT")
    func addresses() {
        #expect(NetworkAddress("127.0.0.1:7777") == NetworkAddress(host: "127.0.0.1", port: 7777))
        #expect(NetworkAddress("[::1]:80") == NetworkAddress(host: "::1", port: 80))
        #expect(NetworkAddress(":0") == NetworkAddress(host: "", port: 0))
        #expect(NetworkAddress("mac.local:7777")?.description == "mac.local:7777")
        #expect(NetworkAddress("[::1]:80")?.description == "[::1]:80")
        for bad in ["7777", "host:", "host:99999", "::1:80", "host:7a", "a b:1", "[]:1"] {
            #expect(NetworkAddress(bad) == nil, "\(bad)")
        }
    }
}
