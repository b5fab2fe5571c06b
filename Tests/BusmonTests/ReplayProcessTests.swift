import Foundation
import ProcessTestSupport
import TestSupport
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `busmon --replay` as a process: what it says about a recording, and what a large one costs.
@Suite struct ReplayProcessTests {
    private let environment = ProcessInfo.processInfo.environment

    @Test func anEmptyRecordingExitsOneAndSaysSo() throws {
        let directory = TemporaryDirectory()
        let recording = directory.file("empty.jsonl")
        try "\n\n".write(toFile: recording, atomically: true, encoding: .utf8)
        let result = try ChildProcess.run(
            BusmonBinary.require(), ["--replay", recording, "--headless"], environment: environment)
        #expect(result.status == 1)
        #expect(result.standardError == "busmon: \(recording): the recording is empty\n")
        #expect(result.standardOutput.isEmpty)
    }

    @Test func atAMomentHeadlessPrintsTheStateThenAsOneLine() throws {
        let directory = TemporaryDirectory()
        let recording = try TimelineRecording.write(seconds: 30, in: directory)
        let result = try ChildProcess.run(
            BusmonBinary.require(), ["--replay", recording, "--at", "0:12", "--headless"],
            environment: environment)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 1)
        let state = try #require(
            try JSONSerialization.jsonObject(with: Data(lines.first.map { Array($0.utf8) } ?? []))
                as? [String: Any])
        #expect(state["kind"] as? String == "state")
        #expect(state["at"] as? Double == 12)
        let types = try #require(state["types"] as? [[String: Any]])
        // The events of the first twelve seconds, 0 to 120, and ten a second.
        #expect(types.first { $0["typeName"] as? String == "T" }?["published"] as? Int == 121)
        // 10.0 s to 12.0 s, both ends' events included (21), over two seconds: read from where
        // second 10 began, as the dashboard reads it while playing
        #expect(types.first { $0["typeName"] as? String == "T" }?["rate"] as? Double == 10.5)
        let log = try #require(state["log"] as? [[String: Any]])
        #expect(log.count == 20)
        #expect(log.last?["payload"] as? String == "120")
    }

    @Test(
        "--at with --headless writes --trace and --graph of what the state was built from, and says when one stopped"
    )
    func atAMomentHeadlessWritesItsFiles() throws {
        let directory = TemporaryDirectory()
        let recording = try TimelineRecording.write(
            seconds: 30, publishedAt: "App/Tick.swift", line: 3, in: directory)
        let trace = directory.file("t.json")
        let graph = directory.file("g.dot")
        let result = try ChildProcess.run(
            BusmonBinary.require(),
            ["--replay", recording, "--at", "0:12", "--headless", "--trace", trace, "--graph", graph],
            environment: environment)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let events = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: trace)))
                as? [[String: Any]])
        // The publishes of the twelve seconds read, each on the track of unrecorded threads
        let publishes = events.filter { $0["ph"] as? String == "i" && $0["cat"] as? String != "monitor" }
        #expect(publishes.count == 121, "\(events.prefix(5))")
        #expect(try String(contentsOfFile: graph, encoding: .utf8).contains("Tick.swift:3"))
        if let full = TestHost.fullDevice {
            let stopped = try ChildProcess.run(
                BusmonBinary.require(),
                ["--replay", recording, "--at", "0:12", "--headless", "--trace", full],
                environment: environment)
            #expect(stopped.status == 1)
            #expect(
                stopped.standardError.contains("busmon: trace to \(full) stopped: No space left on device"))
        }
    }

    @Test("--at past the end prints the end's state and says so on stderr")
    func atPastTheEndSaysSo() throws {
        let directory = TemporaryDirectory()
        let recording = try TimelineRecording.write(seconds: 30, in: directory)
        let result = try ChildProcess.run(
            BusmonBinary.require(), ["--replay", recording, "--at", "99", "--headless"],
            environment: environment)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(
            result.standardError
                == "busmon: warning: --at 01:39.0 is past the recording's end, 00:29.9: the state is at its end\n"
        )
        let state = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(state["at"] as? Double == 29.9)
    }

    @Test func atAMomentHeadlessSaysWhatItsTraceWillHold() throws {
        // Given a recording made without --trace, so without handler calls
        let directory = TemporaryDirectory()
        let recording = try TimelineRecording.write(seconds: 30, in: directory)
        let trace = directory.file("at.json")
        // When its state at a moment is printed while a trace is written
        let result = try ChildProcess.run(
            BusmonBinary.require(), ["--replay", recording, "--at", "0:12", "--headless", "--trace", trace],
            environment: environment)
        // Then busmon says, as a headless replay does, that the trace has no calls to show
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(
            result.standardError
                == "busmon: tracing to \(trace); the recording has no handler calls (a recording made with "
                + "--trace has them), so the trace shows its events without the calls they caused\n")
        #expect(FileManager.default.fileExists(atPath: trace))
    }

    @Test func atAMomentHeadlessCountsTheLossesBeforeIt() throws {
        let directory = TemporaryDirectory()
        // Losses counted at 29.95 s: past a cursor at 0:12, before one at 0:29.96 (the end).
        let recording = try Self.timelineLosing(events: 7, lifecycleChanges: 2, in: directory)
        for (at, events, lifecycle) in [("0:12", 0, 0), ("29.96", 7, 2)] {
            let result = try ChildProcess.run(
                BusmonBinary.require(), ["--replay", recording, "--at", at, "--headless"],
                environment: environment)
            #expect(result.status == 0, "stderr: \(result.standardError)")
            let state = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            #expect(state["dropped"] as? Int == events, "at \(at)")
            #expect(state["lifecycleDropped"] as? Int == lifecycle, "at \(at)")
        }
    }

    @Test func aHeadlessReplayEndsBySayingWhatWasLostOnTheWay() throws {
        // Given a recording whose app dropped events and lifecycle changes on the way
        let directory = TemporaryDirectory()
        let recording = try Self.timelineLosing(events: 7, lifecycleChanges: 1, in: directory)
        // When it is replayed headless, into a file nobody may read to its end
        let result = try ChildProcess.run(
            BusmonBinary.require(), ["--replay", recording, "--headless", "--speed", "2000000"],
            environment: environment)
        // Then the losses are said on stderr too, as the output counts them
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains(#""dropped":7,"lifecycleDropped":1"#))
        #expect(
            result.standardError
                == "busmon: 7 events and 1 lifecycle change dropped on the way, as the output's dropped lines count them\n"
        )
        // And said too when a file written beside the output stopped on a full disk
        if let full = TestHost.fullDevice {
            let stopped = try ChildProcess.run(
                BusmonBinary.require(),
                ["--replay", recording, "--headless", "--speed", "2000000", "--trace", full],
                environment: environment)
            #expect(stopped.status == 1)
            #expect(stopped.standardError.contains("7 events and 1 lifecycle change dropped on the way"))
            #expect(
                stopped.standardError.contains("stopped: No space left on device"), "\(stopped.standardError)"
            )
        }
    }

    @Test func aHeadlessReplayWithoutLossesSaysNothingOfThem() throws {
        let directory = TemporaryDirectory()
        let recording = try TimelineRecording.write(seconds: 30, in: directory)
        let result = try ChildProcess.run(
            BusmonBinary.require(), ["--replay", recording, "--headless", "--speed", "2000000"],
            environment: environment)
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty, "\(result.standardError)")
    }

    /// A 30-second ``TimelineRecording`` whose last line, at 29.95 s, counts `events` and
    /// `lifecycleChanges` lost on the way.
    private static func timelineLosing(
        events: Int, lifecycleChanges: Int, in directory: TemporaryDirectory
    ) throws -> String {
        let recording = try TimelineRecording.write(seconds: 30, in: directory)
        let handle = try #require(FileHandle(forWritingAtPath: recording))
        handle.seekToEndOfFile()
        let line = #"{"kind":"dropped","time":1029.95,"events":\#(events),"lifecycle":\#(lifecycleChanges)}"#
        handle.write(Data(line.utf8 + [0x0A]))
        handle.closeFile()
        return recording
    }

    /// Writes a recording of at least `bytes` bytes: a hello, then a block of 2,000 events (about
    /// 400 bytes each, one second of recording) repeated with the times moved on each time.
    private static func writeRecording(at path: String, bytes: Int) throws -> Int {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw ChildProcess.Failure(description: "cannot create \(path)") }
        defer { close(descriptor) }
        let note = String(repeating: "x", count: 300)
        let tails = (0..<2_000).map { index in
            let micros = String(index * 400)
            let fraction = String(repeating: "0", count: 6 - micros.count) + micros
            return Array(
                (".\(fraction),\"typeName\":\"Tick\",\"receivers\":1,\"payload\":{\"n\":\(index),\"note\":\"\(note)\"}}\n")
                    .utf8)
        }
        let head = Array(#"{"kind":"event","seq":1,"time":"#.utf8)
        var written = 0
        var block: [UInt8] = []
        block.reserveCapacity(1 << 20)
        func put(_ bytes: [UInt8]) throws {
            var offset = 0
            while offset < bytes.count {
                let count = bytes[offset...].withUnsafeBytes {
                    writeToDescriptor(descriptor, $0.baseAddress, $0.count)
                }
                guard count > 0 else { throw ChildProcess.Failure(description: "cannot write \(path)") }
                offset += count
            }
            written += bytes.count
        }
        try put(
            Array(
                #"{"kind":"hello","version":1,"pid":1,"process":"big","bus":"shared","time":1700000000}"#.utf8
            ) + [0x0A])
        var second = 1_700_000_000
        while written < bytes {
            let seconds = Array(String(second).utf8)
            block.removeAll(keepingCapacity: true)
            for tail in tails {
                block += head
                block += seconds
                block += tail
            }
            try put(block)
            second += 1
        }
        return written
    }

    @Test(
        "replaying a 200 MB recording as fast as it can peaks under 100 MB of memory",
        .disabled(if: underSanitizer, "sanitizer builds are slow and their memory figures mean nothing"))
    func largeRecordingStreams() throws {
        // Given a recording of over 200 MB, made here and not kept.
        let directory = TemporaryDirectory()
        let recording = directory.file("large.jsonl")
        let size = try Self.writeRecording(at: recording, bytes: 200 << 20)
        #expect(size >= 200 << 20)

        // When busmon replays it headless as fast as possible, its output thrown away...
        let child = try ChildProcess.start(
            "/bin/sh",
            [
                "-c", "exec \"$0\" --replay \"$1\" --headless --speed 1e9 >/dev/null", BusmonBinary.require(),
                recording,
            ],
            environment: environment)
        // The high-water mark is read while it runs (Linux) or when it is reaped (macOS).
        let result = try child.wait(timeout: 300)
        let peak = try #require(result.peakResidentKiB, "the peak was read")

        // ...then it plays every event and stays well under the size of the file.
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty, "\(result.standardError)")
        #expect(peak > 0)
        #expect(peak < 100 << 10, "peak resident memory \(peak / 1024) MB for a \(size >> 20) MB recording")
    }
}

/// `write(2)`, called where a local function named `write` would hide it.
private func writeToDescriptor(_ descriptor: Int32, _ pointer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, pointer, count)
}
