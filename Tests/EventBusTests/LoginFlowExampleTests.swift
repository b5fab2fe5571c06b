import Foundation
import TestSupport
import Testing

@Suite("Examples")
struct LoginFlowExampleTests {
    @Test("LoginFlow: a background login updates the main-actor screen; screens go away and are reclaimed")
    func loginFlowOutput() throws {
        let executable = try #require(BuiltProduct.path(named: "LoginFlow"), "LoginFlow was not built")
        let output = try ChildProcess.run(executable, [], environment: ProcessInfo.processInfo.environment)
        #expect(output.status == 0)
        let text = output.standardOutput
        #expect(text.contains("LoginService: Ada logged in (published from a background thread)"))
        #expect(text.contains("LoginViewController: shows \"Welcome, Ada\""))
        #expect(text.contains("ProfileViewController: loading the profile of Ada"))
        #expect(text.contains("main actor: the login screen reads \"Welcome, Ada\""))
        #expect(text.contains("main actor: right after publish, the login screen reads \"Welcome, Alan\""))
        #expect(text.contains("unsubscribed 1 UserLoggedInEvent subscription by LoginViewController"))
        #expect(text.contains("[profile screen gone] UserLoggedInEvent: live 0, dead awaiting cleanup 1"))
        #expect(text.contains("reclaimed 1 dead UserLoggedInEvent subscription"))
        #expect(!text.contains("loading the profile of Grace"))
        #expect(text.contains("done: published 4, delivered 5, reclaimed 1"))
    }
}
