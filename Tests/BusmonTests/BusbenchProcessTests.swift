import Foundation
import ProcessTestSupport
import TestSupport
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

    /// The flood rows come from busmon's own exit line, read off a pseudo-terminal after the
    /// escapes that close its screen: a summary busmon no longer prints, or prints otherwise,
    /// fails the run rather than leaving the rows out.
    @Test func measuresBusmonUnderAFloodFromItsExitLine() throws {
        let result = try ChildProcess.run(
            busbench(), ["--quick", "--only", "flood"], environment: ProcessInfo.processInfo.environment,
            timeout: 120)
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        for source in ["its simulated app (--rate)", "simapp's tap (--attach)"] {
            let rows = result.standardOutput.split(separator: "\n").filter {
                $0.hasPrefix("busmon at 100k events/s") && $0.contains(source)
            }
            #expect(rows.count == 2, "\(source): \(result.standardOutput)")
            #expect(rows.contains { $0.contains(": frames") && $0.contains("/s ") })
            #expect(rows.contains { $0.contains(": peak memory") && $0.contains(" MB ") })
        }
        #expect(!result.standardOutput.contains("SANITY FAILURE"))
    }
}

/// wirefuzz built without libFuzzer: it checks the files it is given.
@Suite struct WirefuzzProcessTests {
    private func wirefuzz() throws -> String {
        try #require(BuiltProduct.path(named: "wirefuzz"), "wirefuzz was not built next to the test runner")
    }

    @Test func checksEachFileAndSaysSo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wirefuzz-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let valid = folder.appendingPathComponent("valid.jsonl")
        let garbage = folder.appendingPathComponent("garbage")
        try Data(
            #"{"kind":"hello","version":1,"pid":42,"process":"app","bus":"main","time":1.5}"#.utf8 + [0x0A]
        ).write(to: valid)
        try Data([0x7B, 0x22, 0xFF, 0x00, 0x0A, 0x5D]).write(to: garbage)

        let result = try ChildProcess.run(
            wirefuzz(), [valid.path, garbage.path], environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 0)
        // The valid file's newline ends its only line; the empty text after it counts as a line.
        #expect(
            result.standardOutput
                == "\(valid.path): 2 line(s), 1 record(s), all checks passed\n"
                + "\(garbage.path): 2 line(s), 0 record(s), all checks passed\n")
    }

    @Test(arguments: [
        ([], 2, "wirefuzz: no input files"),
        (["--frob"], 2, "wirefuzz: unknown option"),
        (["/nonexistent/input"], 1, "wirefuzz: cannot read '/nonexistent/input': No such file or directory"),
    ])
    func badCommandLinesFailWithAMessage(arguments: [String], status: Int32, message: String) throws {
        let result = try ChildProcess.run(
            wirefuzz(), arguments, environment: ProcessInfo.processInfo.environment)
        #expect(result.status == status)
        #expect(result.standardError.hasPrefix(message + "\n"))
        #expect(result.standardOutput.isEmpty)
    }
}
