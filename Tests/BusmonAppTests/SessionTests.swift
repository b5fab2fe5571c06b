import BusMonitor
import BusWire
import BusmonApp
import Foundation
import TestSupport
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite("Building busmon's session from its options")
struct SessionTests {
    @Test("a replay session reads the recording it is given")
    func replay() throws {
        let directory = TemporaryDirectory()
        let recording = directory.file("in.jsonl")
        let hello = FeedRecord.hello(FeedHello(pid: 1, process: "app", bus: "shared", time: 1_700_000_000))
        try hello.encodeLine().write(toFile: recording, atomically: true, encoding: .utf8)
        let options = try #require(try Self.options(["--replay", recording, "--headless"]))

        let session = try Busmon.makeSession(options: options)
        defer { session.stop() }

        #expect(session.source.title.contains("in.jsonl"))
    }

    @Test("with --record, the simulated app's session is recorded as it is watched")
    func simulationRecorded() throws {
        let directory = TemporaryDirectory()
        let options = try #require(
            try Self.options(["--seed", "7", "--headless", "--record", directory.file("out.jsonl")]))

        let session = try Busmon.makeSession(options: options)
        _ = drainUntil(session.source, timeout: 10) { batches in batches.contains { !$0.events.isEmpty } }
        session.stop()

        let written = try String(contentsOfFile: directory.file("out.jsonl"), encoding: .utf8)
        #expect(written.hasPrefix("{\"kind\":\"hello\""))
        #expect(written.contains("\"kind\":\"event\""))
    }

    @Test("attaching refuses a path that can never be a tap, and accepts one not there yet")
    func attachablePaths() throws {
        let directory = TemporaryDirectory()
        let plainFile = directory.file("plain")
        try "".write(toFile: plainFile, atomically: true, encoding: .utf8)

        #expect(throws: Busmon.AttachError.self) { try Busmon.checkAttachable(plainFile) }
        #expect(
            throws: Busmon.AttachError(
                description: "cannot attach to /nosuch-folder/app.sock: no such folder /nosuch-folder")
        ) {
            try Busmon.checkAttachable("/nosuch-folder/app.sock")
        }
        #expect(throws: Never.self) { try Busmon.checkAttachable(directory.file("later.sock")) }
    }

    @Test("an output that is the recording being replayed, or another output, is refused, however spelled")
    func outputsThatClash() throws {
        let directory = TemporaryDirectory()
        let recording = directory.file("in.jsonl")
        try "{}\n".write(toFile: recording, atomically: true, encoding: .utf8)
        #expect(link(recording, directory.file("hard.jsonl")) == 0)
        #expect(symlink(recording, directory.file("soft.jsonl")) == 0)
        let spelledOtherwise = directory.path + "/./sub/../in.jsonl"
        func clash(_ arguments: [String]) throws -> String? {
            try Self.options(arguments).flatMap(Busmon.fileClash)
        }
        // The recording itself, as any output, and through a hard link or a symbolic link
        for flag in ["--trace", "--graph"] {
            let said = try clash(["--replay", recording, flag, spelledOtherwise])
            #expect(
                said
                    == "\(flag) \(spelledOtherwise) is the recording --replay reads; writing it would destroy it"
            )
        }
        #expect(
            try clash(["--replay", directory.file("soft.jsonl"), "--trace", directory.file("hard.jsonl")])
                != nil)
        // Two outputs in one file, before it exists
        let both = directory.file("out.json")
        #expect(
            try clash(["--record", both, "--trace", both])
                == "--record and --trace name one file, \(both): each needs its own")
        // Two outputs not there yet, one reached through a folder's symbolic link
        try FileManager.default.createDirectory(
            atPath: directory.file("real"), withIntermediateDirectories: false)
        #expect(symlink(directory.file("real"), directory.file("linked")) == 0)
        #expect(
            try clash([
                "--graph", directory.file("real") + "/g.dot", "--trace", directory.file("linked") + "/g.dot",
            ])
                != nil)
        // Devices take any number of writers, and different files do not clash
        #expect(try clash(["--record", "/dev/null", "--trace", "/dev/null", "--graph", "/dev/null"]) == nil)
        #expect(
            try clash(["--replay", recording, "--trace", directory.file("t.json"), "--graph", both]) == nil)
        #expect(FileManager.default.fileExists(atPath: both) == false)
    }

    private static func options(_ arguments: [String]) throws -> BusmonOptions? {
        if case .run(let options) = try CommandLineParser.parse(arguments) { return options }
        return nil
    }
}
