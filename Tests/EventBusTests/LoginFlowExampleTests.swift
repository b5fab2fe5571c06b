import Foundation
import Testing

@Suite("Examples")
struct LoginFlowExampleTests {
    @Test("LoginFlow: a background login updates the main-actor screen; screens go away and are reclaimed")
    func loginFlowOutput() throws {
        let output = try runBuiltProduct("LoginFlow")
        #expect(output.status == 0)
        let text = output.stdout
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

/// Runs an executable built next to the test bundle and returns its exit status and output.
func runBuiltProduct(_ name: String, arguments: [String] = []) throws -> (status: Int32, stdout: String) {
    let productsDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    var candidate = productsDirectory.appendingPathComponent(name)
    // The test runner may live inside a bundle directory one level down.
    if !FileManager.default.isExecutableFile(atPath: candidate.path) {
        candidate = productsDirectory.deletingLastPathComponent().appendingPathComponent(name)
    }
    let process = Process()
    process.executableURL = candidate
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
