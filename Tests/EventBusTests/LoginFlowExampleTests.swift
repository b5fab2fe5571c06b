// The examples run as child processes, which only macOS and Linux test hosts can start (the
// condition is the manifest's for ProcessTestSupport: canImport would depend on build order).
#if os(macOS) || os(Linux)
    import Foundation
    import ProcessTestSupport
    import TestSupport
    import Testing

    @Suite("Examples")
    struct LoginFlowExampleTests {
        @Test(
            "LoginFlow: a background login updates the main-actor screen; screens go away and are reclaimed; a leak is caught"
        )
        func loginFlowOutput() throws {
            let executable = try #require(BuiltProduct.path(named: "LoginFlow"), "LoginFlow was not built")
            let output = try ChildProcess.run(
                executable, [], environment: ProcessInfo.processInfo.environment)
            #expect(output.status == 0)
            let text = output.standardOutput
            #expect(text.contains("LoginService: Ada logged in (published from a background thread)"))
            #expect(text.contains("LoginViewController: shows \"Welcome, Ada\""))
            #expect(text.contains("ProfileViewController: loading the profile of Ada"))
            #expect(text.contains("main actor: the login screen reads \"Welcome, Ada\""))
            #expect(
                text.contains("main actor: right after publish, the login screen reads \"Welcome, Alan\""))
            #expect(text.contains("unsubscribed 1 UserLoggedInEvent subscription by LoginViewController"))
            #expect(text.contains("[profile screen gone] UserLoggedInEvent: live 1, dead awaiting cleanup 1"))
            #expect(
                text.contains("reclaimed 1 dead UserLoggedInEvent subscription of ProfileViewController #2"))
            #expect(!text.contains("loading the profile of Grace"))
            // The chat screen's handler holds it: reported as a suspect, with the fix, then cleared.
            #expect(
                text.contains(
                    "bus: leak suspected: ChatViewController #3 still alive")
                    && text.contains("after \"screen closed\", subscribed to UserLoggedInEvent"))
            #expect(
                text.contains(
                    "leak suspect: ChatViewController #3, \"screen closed\", still subscribed to UserLoggedInEvent"
                ))
            #expect(
                text.contains(
                    "fix: capture self weakly in its handler: { [weak self] (event: UserLoggedInEvent)")
            )
            #expect(text.contains("bus: leak cleared: ChatViewController #3 deallocated"))
            #expect(text.contains("leak suspects after unsubscribing it: 0"))
            // The login and profile screens went in time: no report names them.
            #expect(
                !text.contains("leak suspected: LoginViewController")
                    && !text.contains("leak suspected: Profile")
            )
            #expect(text.contains("done: published 4, delivered 8, reclaimed 1"))
        }
    }
#endif
