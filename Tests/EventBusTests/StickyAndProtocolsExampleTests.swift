// The examples run as child processes, which only macOS and Linux test hosts can start (the
// condition is the manifest's for ProcessTestSupport: canImport would depend on build order).
#if os(macOS) || os(Linux)
    import Foundation
    import ProcessTestSupport
    import TestSupport
    import Testing

    @Suite("Examples: sticky events, protocols and streams")
    struct StickyAndProtocolsExampleTests {
        @Test(
            "StickyAndProtocols: a late screen gets the sticky status, the badge every AuthEvent, the stream its drops"
        )
        func output() throws {
            let executable = try #require(
                BuiltProduct.path(named: "StickyAndProtocols"), "StickyAndProtocols was not built")
            let output = try ChildProcess.run(
                executable, [], environment: ProcessInfo.processInfo.environment)
            #expect(output.status == 0)
            let lines = output.standardOutput.split(separator: "\n").map(String.init)
            #expect(
                lines == [
                    "inbox opened after the status changed: offline banner",
                    "then the network came back: no banner",
                    "sticky now: online true",
                    "after removing it: none",
                    "the badge saw: UserLoggedInEvent 42, UserLoggedOutEvent 42",
                    "snapshot row: any AuthEvent, 1 live, 2 calls",
                    "the stream read [7, 8, 9, 10] and missed 6",
                    "snapshot: 6 DataLoadedEvent dropped",
                ])
        }
    }
#endif
