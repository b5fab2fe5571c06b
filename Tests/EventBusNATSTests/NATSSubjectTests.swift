import EventBusNATS
import Testing

@Test(arguments: [
    ("checkout", "checkout"),
    ("my app", "my%20app"),
    ("a.b", "a%2Eb"),
    ("Box<Int>", "Box<Int%3E"),
    ("*", "%2A"),
    ("100%", "100%25"),
    ("_snapshot", "%5Fsnapshot"),
    ("a_b", "a_b"),
    ("tab\there", "tab%09here"),
    ("café", "caf%C3%A9"),
    ("", "%00"),
])
func namesEscapeIntoOneTokenAndBack(name: String, token: String) {
    #expect(NATSSubject.token(for: name) == token)
    #expect(NATSSubject.name(fromToken: token) == name)
}

@Test func subjectsHaveThreeTokens() {
    #expect(NATSSubject.subject(app: "my.app", typeName: "Box<Int>") == "eventbus.my%2Eapp.Box<Int%3E")
}

@Test func tokensEscapingDidNotMakeAreRejected() {
    #expect(NATSSubject.name(fromToken: "a%2") == nil)
    #expect(NATSSubject.name(fromToken: "a%zz") == nil)
    #expect(NATSSubject.name(fromToken: "a.b") == nil)
    #expect(NATSSubject.name(fromToken: "%FF") == nil)
}
