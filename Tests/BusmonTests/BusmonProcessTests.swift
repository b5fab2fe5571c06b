import Foundation
import ProcessTestSupport
import TestSupport
import Testing

/// busmon's command line and start-up checks, run as a real process without tmux.
@Suite struct BusmonProcessTests {
    private var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        return environment
    }

    @Test func helpPrintsUsageToStdoutAndSucceeds() throws {
        let result = try ChildProcess.run(BusmonBinary.require(), ["--help"], environment: environment)
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("usage: busmon"))
        #expect(result.standardOutput.contains("--duration SECONDS"))
        #expect(result.standardOutput.contains("to watch\nit, start with --rate 5 or slow down with -."))
        #expect(result.standardError.isEmpty)
    }

    @Test(arguments: [
        (["--rate", "abc"], "busmon: --rate needs a whole number from 1 to 10000000, got 'abc'"),
        (["--rate", "-5"], "busmon: --rate needs a whole number from 1 to 10000000, got '-5'"),
        (["--duration"], "busmon: --duration needs a value"),
        (["--frob"], "busmon: unknown option '--frob'"),
    ])
    func badCommandLinesExitTwoWithAMessageAndUsage(arguments: [String], message: String) throws {
        let result = try ChildProcess.run(BusmonBinary.require(), arguments, environment: environment)
        #expect(result.status == 2)
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false)
        // The reason, and a line saying where the options are: not the whole help, which would
        // scroll the reason out of sight.
        #expect(lines.map(String.init) == [message, "usage: busmon [options]; busmon --help lists them", ""])
        #expect(result.standardOutput.isEmpty)
    }

    @Test func headlessOutputIntoAPipeThatClosesEndsQuietly() throws {
        // Given `busmon --headless | head -1`, as a script would write it
        let busmon = try BusmonBinary.require()
        let started = ContinuousClock.now
        let result = try ChildProcess.run(
            "/bin/bash",
            [
                "-c",
                "\"$0\" --headless --seed 1 --duration 20 | head -1; echo \"busmon exit ${PIPESTATUS[0]}\"",
                busmon,
            ],
            environment: environment, timeout: 60)
        // Then busmon stops at its next write after head has gone, quietly, with status 0.
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 2, "\(result.standardOutput)")
        #expect(lines.first?.hasPrefix("{\"kind\":") == true)
        #expect(lines.last == "busmon exit 0")
        #expect(result.standardError.isEmpty, "\(result.standardError)")
        #expect(ContinuousClock.now - started < .seconds(15))
    }

    @Test("output to a closed or full stdout is an error, not lost in silence")
    func outputThatCannotBeWrittenIsAnError() throws {
        let busmon = try BusmonBinary.require()
        var cases = [
            (#""$0" --headless --seed 1 --duration 1 >&-"#, "busmon: cannot write to stdout: it is closed"),
            (#""$0" --help >&-"#, "busmon: cannot write the help to stdout: it is closed"),
        ]
        #if os(Linux)
            // No /dev/full on a Mac: the closed stdout cases stand for it there.
            cases += [
                (
                    #""$0" --help > /dev/full"#,
                    "busmon: cannot write the help to stdout: No space left on device"
                ),
                (
                    #""$0" --headless --seed 1 --duration 5 > /dev/full"#,
                    "busmon: cannot write to stdout: No space left on device"
                ),
            ]
        #endif
        for (command, message) in cases {
            let result = try ChildProcess.run(
                "/bin/sh", ["-c", command, busmon], environment: environment, timeout: 60)
            #expect(result.status == 1, "\(command): \(result.standardError)")
            #expect(result.standardError == message + "\n", "\(command)")
        }
        // The help into a pipe whose reader has gone (as `| head -1` may be, once it has its
        // line) is no error: the write fails with EPIPE, which busmon takes as "done". The
        // reader exits before busmon starts, so the write always meets a closed pipe.
        let piped = try ChildProcess.run(
            "/bin/bash",
            ["-c", #"{ sleep 0.3; "$0" --help; echo "busmon exit $?" >&2; } | true"#, busmon],
            environment: environment)
        #expect(piped.standardError == "busmon exit 0\n")
    }

    @Test func attachingToAPathInAMissingFolderIsAnError() throws {
        let result = try ChildProcess.run(
            BusmonBinary.require(), ["--attach", "/nosuch-folder/app.sock", "--headless"],
            environment: environment)
        #expect(result.status == 1)
        #expect(
            result.standardError
                == "busmon: cannot attach to /nosuch-folder/app.sock: no such folder /nosuch-folder\n")
    }

    @Test func aHeadlessRunThatNeverAttachesExitsOneAndSaysWhy() throws {
        let directory = TemporaryDirectory()
        let socket = directory.file("nosuch.sock")
        let result = try ChildProcess.run(
            BusmonBinary.require(), ["--attach", socket, "--headless", "--duration", "1"],
            environment: environment)
        #expect(result.status == 1)
        #expect(
            result.standardError
                == "busmon: never attached to \(socket): waiting for \(socket) to appear (no such file)\n")
        #expect(
            result.standardOutput.contains("\"status\":\"waiting for \(socket) to appear (no such file)\""))
    }

    @Test func refusesToDrawWhenStdoutIsNotATerminal() throws {
        let result = try ChildProcess.run(BusmonBinary.require(), [], environment: environment)
        #expect(result.status == 1)
        #expect(result.standardError == "busmon: stdout is not a terminal (use --headless for scripts)\n")
        #expect(result.standardOutput.isEmpty)
    }

    @Test func reportsAnUnknownTerminalTypeInsteadOfCrashing() throws {
        let terminal = try PseudoTerminal()
        var environment = environment
        environment["TERM"] = "nonexistent-term"
        let result = try ChildProcess.run(
            BusmonBinary.require(), [], environment: environment, terminal: terminal)
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("busmon: unknown terminal type 'nonexistent-term' (TERM)"))
        #expect(result.standardError.split(separator: "\n").count == 1)
    }

    @Test func refusesATerminalThatCannotMoveItsCursor() throws {
        let terminal = try PseudoTerminal()
        var environment = environment
        environment["TERM"] = "dumb"
        let result = try ChildProcess.run(
            BusmonBinary.require(), [], environment: environment, terminal: terminal)
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("busmon: terminal type 'dumb' cannot move the cursor"))
        // Refused before curses starts, which would have blanked a screenful first.
        #expect(terminal.drain() == 0, "nothing written to the terminal")
    }

    @Test func reportsAMissingTerm() throws {
        let terminal = try PseudoTerminal()
        var environment = environment
        environment["TERM"] = nil
        let result = try ChildProcess.run(
            BusmonBinary.require(), [], environment: environment, terminal: terminal)
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("busmon: TERM is not set"))
    }

    /// A terminal that stopped taking output (a frozen emulator, a stalled ssh link) held
    /// busmon's write, and with it the way out that restores the screen: SIGTERM was noted and
    /// never acted on. Nothing reads this terminal; a while after SIGTERM busmon ends anyway.
    @Test func aTerminalThatStoppedReadingDoesNotHoldAnExit() async throws {
        let terminal = try PseudoTerminal()
        var environment = environment
        environment["LINES"] = "45"
        environment["COLUMNS"] = "150"
        let busmon = try ChildProcess.start(
            BusmonBinary.require(), ["--rate", "5000"], environment: environment, terminal: terminal)
        // Frames fill the terminal's buffer within a second or two, and then the writes wait.
        try await Task.sleep(for: .seconds(3))
        busmon.send(SIGTERM)
        // busmon's last resort ends it 10 s after the signal (SignalWatcher.lastResortSeconds).
        let result = try busmon.wait(timeout: 30)
        #expect(result.status == 128 + SIGTERM)
        withExtendedLifetime(terminal) {}
    }

    @Test func runsInAPseudoTerminalAndStopsAfterItsDuration() throws {
        let terminal = try PseudoTerminal()
        let result = try ChildProcess.run(
            BusmonBinary.require(), ["--duration", "0.3"], environment: environment, terminal: terminal)
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
    }

    @Test func headlessStopsOnASigtermSentAsItStarts() throws {
        // A script that starts busmon and stops it at once: the signal may come while busmon
        // sets up its signal handling, and must not be lost there.
        for _ in 0..<10 {
            let child = try ChildProcess.start(
                BusmonBinary.require(), ["--attach", "/tmp/busmon-no-such-tap.sock", "--headless"],
                environment: environment)
            child.send(SIGTERM)
            let result = try child.wait(timeout: 10)
            // Ended by the signal before busmon handled it, or having handled it: 143 either
            // way, though it never attached (which it says), so a script tells a kill apart.
            #expect(result.status == 143, "\(result.standardError)")
        }
    }

    @Test(
        "SIGHUP, as when the terminal of a headless recorder closes, finishes its files and exits 129",
        arguments: [SIGHUP, SIGTERM])
    func aHangupFinishesAHeadlessRunsFiles(signal: Int32) throws {
        let directory = TemporaryDirectory()
        let trace = directory.file("run.trace.json")
        let recording = directory.file("run.jsonl")
        let child = try ChildProcess.start(
            BusmonBinary.require(),
            ["--headless", "--seed", "3", "--trace", trace, "--record", recording, "--duration", "30"],
            environment: environment)
        try waitFor("events on stdout") { child.standardOutput.contains(#""kind":"event""#) }
        child.send(signal)
        let result = try child.wait(timeout: 10)
        #expect(result.status == 128 + signal, "\(result.standardError)")
        // The trace closed as valid JSON, the recording ended on whole lines, and the run's last
        // line is its summary.
        let traceData = try Data(contentsOf: URL(fileURLWithPath: trace))
        #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: traceData) }
        let recorded = try String(contentsOfFile: recording, encoding: .utf8)
        #expect(recorded.hasSuffix("\n"))
        let last = result.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix(#"{"kind":"summary""#), "\(last)")
    }

    @Test("a signal ends a headless run that never saw an app with 128 + the signal, and says so")
    func aSignalBeforeAnyAppIsReportedAsTheSignal() throws {
        let port = try NATSServer.freePort()
        let child = try ChildProcess.start(
            BusmonBinary.require(), ["--listen", "127.0.0.1:\(port)", "--headless", "--duration", "20"],
            environment: environment.merging(["BUSMON_TOKEN": "a-token-of-16-chars"]) { $1 })
        try waitFor("busmon to listen") { child.standardError.contains("listening on") }
        child.send(SIGINT)
        let result = try child.wait(timeout: 10)
        #expect(result.status == 130, "\(result.standardError)")
        #expect(result.standardError.contains("no app dialled in to 127.0.0.1:\(port)"))
    }
}
