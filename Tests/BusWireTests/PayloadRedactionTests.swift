import EventBus
import TestSupport
import Testing

@testable import BusWire

/// A login as an app would publish it, with secrets beside ordinary fields.
private struct SignIn: Event, Encodable {
    struct Credentials: Encodable {
        let user: String
        let Password: String
        let passwordHint: String
    }
    let credentials: Credentials
    let apiKey: String
    let attempts: Int
    let authorization: [String]
}

/// A secret written through a nested container, which the fast encoder leaves to JSONEncoder.
private struct Nested: Event, Encodable {
    let name: String
    enum CodingKeys: String, CodingKey { case name, secret }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        var inner = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .secret)
        try inner.encode("s3cret", forKey: .name)
    }
}

/// Not `Encodable`: its description carries the fields.
private struct Described: Event {
    let user: String
    let token: String
    let count: Int
}

@Suite("Payload redaction")
struct PayloadRedactionTests {
    private let signIn = SignIn(
        credentials: .init(user: "ada", Password: "hunter2", passwordHint: "cat"), apiKey: "AKIA123",
        attempts: 2, authorization: ["Bearer xyz"])

    @Test("the default names are redacted in any case, at any depth; other fields are kept")
    func defaultsAnyCaseAnyDepth() {
        let text = PayloadFormatter.format(signIn)
        #expect(
            text
                == #"{"apiKey":"<redacted>","attempts":2,"authorization":"<redacted>","credentials":{"Password":"<redacted>","passwordHint":"cat","user":"ada"}}"#
        )
        for secret in ["hunter2", "AKIA123", "xyz"] { #expect(!text.contains(secret)) }
    }

    @Test("the tap's fast encoder writes the same as the formatter, and never the secret")
    func fastEncoderMatchesFormatter() throws {
        var writer = JSONLineWriter()
        try PayloadEncoder().write(signIn, into: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == PayloadFormatter.format(signIn))
    }

    @Test("a secret under a nested container takes the slower path and is still redacted")
    func nestedContainerFallsBack() {
        var writer = JSONLineWriter()
        #expect(throws: PayloadEncoder.Unsupported.self) {
            try PayloadEncoder().write(Nested(name: "n"), into: &writer)
        }
        let text = PayloadFormatter.format(Nested(name: "n"))
        #expect(text == #"{"name":"n","secret":"<redacted>"}"#)
    }

    @Test("JSON text from a fleet is redacted by its keys: values, spacing and escapes do not fool it")
    func jsonTextByKeys() {
        let redaction = PayloadRedaction.default
        // A value that reads like a name is no key: the text comes back as it was, byte for byte.
        let plain = #"{"kind" : "token","note":"password: x","n":[1,{"a":"b"}]}"#
        #expect(redaction.redact(json: plain) == plain)
        // Keys at any depth, in any case, with space before their colon.
        #expect(
            redaction.redact(json: #"{"user":{"Password" : "x","zeta":"ada"},"list":[{"TOKEN":1}]}"#)
                == #"{"list":[{"TOKEN":"<redacted>"}],"user":{"Password":"<redacted>","zeta":"ada"}}"#)
        // A key spelled with an escape is read as JSON reads it.
        #expect(redaction.redact(json: #"{"password":"x"}"#) == #"{"password":"<redacted>"}"#)
        // Not JSON at all: left as it is.
        #expect(redaction.redact(json: #"{"password":"#) == #"{"password":"#)
    }

    @Test("descriptions of events that are not Encodable are redacted too")
    func descriptions() {
        let text = PayloadFormatter.format(Described(user: "ada", token: "tk \"quoted\", still", count: 3))
        #expect(text == #"Described(user: "ada", token: "<redacted>", count: 3)"#)
    }

    @Test("an app names more fields, or fewer")
    func addingAndRemoving() {
        let mine = PayloadRedaction.default.adding("attempts").removing("apiKey")
        let text = PayloadFormatter.format(signIn, redacting: mine)
        #expect(text.contains(#""attempts":"<redacted>""#))
        #expect(text.contains(#""apiKey":"AKIA123""#))
        #expect(PayloadFormatter.format(signIn, redacting: .none).contains("hunter2"))
        var writer = JSONLineWriter()
        try? PayloadEncoder(redaction: mine).write(signIn, into: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == text)
    }

    @Test("the default set covers what the issue of secrets names")
    func defaultNames() {
        for name in ["password", "TOKEN", "Secret", "apikey", "Authorization", "refreshToken"] {
            #expect(PayloadRedaction.default.redacts(name), "\(name)")
        }
        for name in ["passwordHint", "tokenCount", "user", ""] {
            #expect(!PayloadRedaction.default.redacts(name), "\(name)")
        }
    }
}
