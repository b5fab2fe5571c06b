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
