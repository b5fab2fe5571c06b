import Testing

@testable import EventBusNATS

/// What busmon and the bridge show of a server URL, and what they hide.
@Suite struct NATSServerURLTests {
    @Test func passwordsAndTokensAreShownAsStars() {
        #expect(
            NATSServerURL.redacted("nats://alice:s3cret@h:4222, nats://t0ken@h2:4222,tls://h3:4222")
                == "nats://alice:***@h:4222, nats://***@h2:4222,tls://h3:4222")
        #expect(NATSServerURL.redacted("nats://127.0.0.1:4222") == "nats://127.0.0.1:4222")
        #expect(
            NATSServerURL.redacted("nats://a:b@c@host:1") == "nats://a:***@host:1", "the last @ ends them")
        #expect(
            NATSServerURL.redacted("nats://alice:se,cret@h:1") == "nats://alice:***@h:1", "a comma in one")
        #expect(NATSServerURL.redacted("nats:/alice:pw@h") == "nats:***@h", "a mistyped scheme")
    }

    @Test func secretsAreWhatTheStarsStandFor() {
        #expect(
            NATSServerURL.secrets(in: "nats://alice:s3cret@h:4222,nats://t0ken@h2:1") == ["s3cret", "t0ken"])
        #expect(NATSServerURL.secrets(in: "nats://alice:@h:4222,nats://h:1").isEmpty)
        #expect(NATSServerURL.secrets(in: "nats://alice:se,cret@h:1") == ["se,cret"])
    }

    /// A host with an escape or a `*` in it was tried for the whole run, as if it were down.
    @Test func aHostWithCharactersNoHostHasIsRefused() throws {
        for url in [
            "nats://127.0.0.1\u{1B}[31m:4222", "nats://exa*mple:4222", "nats://h\u{7}:1", "nats://hé:1",
        ] {
            #expect(throws: NATSBridgeError.self, "\(url)") { try NATSServerURL.validate(url) }
        }
        for url in [
            "nats://127.0.0.1:4222", "nats://my-host.example_1.com:4222", "nats://[::1]:4222",
            "nats://[fe80::1%eth0]:4222", "tls://localhost",
        ] {
            try NATSServerURL.validate(url)
        }
    }

    @Test func aMistakeIsToldWithoutThePassword() {
        #expect(throws: NATSBridgeError.self) { try NATSServerURL.validate("nats://alice:s3cret@h:99999") }
        for url in ["nats://alice:s3cret@/path", "nats://alice:s3,cret@h:1", "nats:/alice:s3cret@h"] {
            do {
                try NATSServerURL.validate(url)
                Issue.record("\(url) was taken")
            } catch {
                #expect(
                    !error.description.contains("s3cret") && !error.description.contains("cret@"), "\(error)")
            }
        }
    }
}
