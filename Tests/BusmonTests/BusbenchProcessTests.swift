import Foundation
import Testing

/// busbench's command line, run as a real process.
@Suite struct BusbenchProcessTests {
    private func busbench() throws -> String {
        try #require(BuiltProduct.path(named: "busbench"), "busbench was not built next to the test runner")
    }

    @Test(arguments: [
        (["--only", "nope"], "busbench: unknown section 'nope' for --only"),
        (["--only", "threads,"], "busbench: unknown section '' for --only"),
        (["--only"], "busbench: --only needs a list of sections"),
        (["--only", "--quick"], "busbench: --only needs a list of sections"),
        (["--fast"], "busbench: unknown argument '--fast'"),
    ])
    func badCommandLinesExitTwoWithAMessageAndUsage(arguments: [String], message: String) throws {
        let result = try ChildProcess.run(
            busbench(), arguments, environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix(message + "\n"))
        #expect(result.standardError.contains("usage: busbench"))
        #expect(result.standardOutput.isEmpty)
    }

    @Test func onlyMeasuresTheSectionsNamed() throws {
        let result = try ChildProcess.run(
            busbench(), ["--quick", "--only", "threads,churn"],
            environment: ProcessInfo.processInfo.environment,
            timeout: 120)
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Two publishing threads against one"))
        #expect(result.standardOutput.contains("Observer churn"))
        #expect(!result.standardOutput.contains("Per-delivery cost"))
        #expect(!result.standardOutput.contains("busmon's capture"))
        #expect(result.standardOutput.contains("two threads / one, same type"))
        #expect(!result.standardOutput.contains("token form vs NotificationCenter"))
    }
}
