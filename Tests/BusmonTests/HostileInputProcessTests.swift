import Foundation
import ProcessTestSupport
import TestSupport
import Testing

/// busmon as a stranger on its port would try it: whatever an app or a peer sends, nothing it
/// chose reaches busmon's stderr as a control character.
@Suite struct HostileInputProcessTests {
    private let environment = ProcessInfo.processInfo.environment

    /// A window title, a screen clear, a bell and a forged line, in one app name.
    private static let hostileName = "x\\u001b]0;OWNED\\u0007\\u001b[2J\\u009b31mforged\\nbusmon: all clear"

    /// Sends `lines` to busmon's port from a shell, one `printf` each (taken as data, not as a
    /// format), then holds the connection for `seconds`.
    private func send(_ lines: [String], to port: Int, holding seconds: Double) throws {
        let script =
            "exec 3<>/dev/tcp/127.0.0.1/\(port); for line in \"$@\"; do printf '%s\\n' \"$line\" >&3; done; "
            + "sleep \(seconds); exec 3>&-"
        _ = try ChildProcess.run("/bin/bash", ["-c", script, "dial"] + lines, environment: environment)
    }

    /// The token the listening tests give busmon.
    private static let token = "s3cret-token-42"

    /// `busmon --listen` on a free loopback port, headless, with ``token``, once it listens.
    private func startListening(duration: Int) throws -> (monitor: RunningChild, port: Int) {
        let port = try NATSServer.freePort()
        let monitor = try ChildProcess.start(
            try BusmonBinary.require(),
            ["--listen", "127.0.0.1:\(port)", "--headless", "--duration", "\(duration)"],
            environment: environment.merging(["BUSMON_TOKEN": Self.token]) { $1 })
        try waitFor("busmon to listen") { monitor.standardError.contains("listening on") }
        return (monitor, port)
    }

    /// Sends `line` on a connection of its own and returns the first line busmon answers.
    private func answer(to line: String, port: Int) throws -> String {
        let script = "exec 3<>/dev/tcp/127.0.0.1/\(port); printf '%s\\n' \"$1\" >&3; timeout 5 head -n 1 <&3"
        return try ChildProcess.run("/bin/bash", ["-c", script, "dial", line], environment: environment)
            .standardOutput
    }

    @Test("names from a wrong-token dial and from an app that joined reach stderr escaped")
    func escapeSequencesInAppNamesAreEscapedOnStderr() throws {
        let (monitor, port) = try startListening(duration: 4)

        let dial = { (token: String) in
            #"{"kind":"dial","version":1,"token":"\#(token)","app":"\#(Self.hostileName)","host":"h\u001b[5m","pid":7}"#
        }
        // The app that gets in first: a wrong token keeps its address waiting a moment.
        let hello =
            #"{"kind":"hello","version":1,"pid":7,"process":"p\u001b]52;c;ZXZpbA==\u0007","bus":"b","time":1700000000}"#
        try send([dial("s3cret-token-42"), hello], to: port, holding: 0.5)
        try send([dial("wrong")], to: port, holding: 0.2)

        let result = try monitor.wait(timeout: 30)
        let bytes = Array(result.standardError.utf8)
        #expect(!bytes.contains(0x1B), "no ESC on stderr: \(result.standardError.debugDescription)")
        #expect(!bytes.contains(0x07), "no BEL on stderr")
        #expect(
            !result.standardError.unicodeScalars.contains { (0x80...0x9F).contains($0.value) },
            "no C1 control")
        #expect(result.standardError.contains(#"wrong token"#))
        #expect(
            result.standardError.contains(
                #"x\u{1B}]0;OWNED\u{7}\u{1B}[2J\u{9B}31mforged\u{A}busmon: all clear"#))
        let lines = result.standardError.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("busmon: all clear") }, "no line was forged")
        #expect(result.standardError.contains("joined"), "\(result.standardError)")
    }

    /// The lines of an app that says every count it has is `Int.max`: well formed, and summed
    /// with another such app's they overflow any plain addition.
    private static func hugeCountLines(app: String) -> [String] {
        let most = String(Int.max)
        let time = "1700000000.5"
        let counts = { (names: [String]) in names.map { #""\#($0)":\#(most)"# }.joined(separator: ",") }
        let type =
            #"{"typeName":"T","qualifiedTypeName":"App.T","#
            + counts([
                "liveSubscribers", "deadSubscribers", "reclaimedSubscribers", "unsubscribedSubscribers",
                "cancelledSubscribers", "duplicateSubscriptions", "published", "delivered", "unheard",
            ]) + "}"
        let observer =
            #"{"className":"Screen","#
            + counts([
                "liveInstances", "deadInstances", "liveSubscriptions", "deadSubscriptions",
                "reclaimedInstances",
                "leakSuspects",
            ]) + "}"
        let handler =
            #"{"observerTypeName":"Screen","eventTypeName":"T","total":1,"maximum":1,"#
            + counts(["calls", "slowCalls", "failures", "dropped"])
            + #","waits":{"p50":0,"p99":0,"maximum":0,"# + counts(["count", "slowDeliveries"]) + "}}"
        let snapshot =
            #"{"kind":"snapshot","time":\#(time),"busName":"\#(app)","#
            + counts([
                "wildcardObservers", "deadWildcardObservers", "reclaimedWildcardObservers",
                "wildcardDeliveries",
            ]) + #","eventTypes":[\#(type)],"observers":[\#(observer)],"handlers":[\#(handler)]}"#
        let lifecycle = ["handlerFailed", "slowHandler", "slowDelivery", "subscribed", "reclaimed"].map {
            #"{"kind":"lifecycle","time":\#(time),"change":"\#($0)","eventTypeName":"T","count":\#(most),"observerTypeName":"Screen","observerID":\#(most)}"#
        }
        return [
            #"{"kind":"dial","version":1,"token":"\#(token)","app":"\#(app)","host":"h","pid":\#(most)}"#,
            #"{"kind":"hello","version":3,"pid":\#(most),"process":"\#(app)","bus":"\#(app)","time":\#(time)}"#,
            snapshot, snapshot,
        ] + lifecycle + lifecycle + [
            #"{"kind":"event","seq":\#(most),"time":\#(time),"typeName":"T","receivers":\#(most),"eventID":\#(most),"fileID":"App/A.swift","line":\#(most),"payload":{"n":\#(most)}}"#,
            #"{"kind":"call","time":\#(time),"startNs":1700000000500000000,"eventID":\#(most),"eventTypeName":"T","observerTypeName":"Screen","observerID":\#(most),"thread":\#(most),"durationNs":1000,"waitedNs":1000}"#,
            #"{"kind":"dropped","time":\#(time),"events":\#(most),"lifecycle":\#(most),"calls":\#(most)}"#,
        ]
    }

    @Test("two apps whose every count is Int.max are watched, recorded, graphed and replayed without a crash")
    func countsTooLargeToAddUp() throws {
        let directory = TemporaryDirectory()
        let recording = directory.file("huge.jsonl")
        let port = try NATSServer.freePort()
        let monitor = try ChildProcess.start(
            try BusmonBinary.require(),
            [
                "--listen", "127.0.0.1:\(port)", "--headless", "--duration", "3", "--record", recording,
                "--graph", directory.file("huge.dot"), "--trace", directory.file("huge.json"),
            ],
            environment: environment.merging(["BUSMON_TOKEN": Self.token]) { $1 })
        try waitFor("busmon to listen") { monitor.standardError.contains("listening on") }
        // Both apps connected at once, so that their snapshots are summed as a fleet's, and still
        // connected when busmon ends: the summary counts the apps that are not gone.
        let first = Self.hugeCountLines(app: "one")
        let second = Self.hugeCountLines(app: "two")
        let script =
            "exec 3<>/dev/tcp/127.0.0.1/\(port) 4<>/dev/tcp/127.0.0.1/\(port); half=$(($# / 2)); i=0; "
            + "for line in \"$@\"; do if [ $i -lt $half ]; then printf '%s\\n' \"$line\" >&3; "
            + "else printf '%s\\n' \"$line\" >&4; fi; i=$((i + 1)); done; sleep 5; exec 3>&- 4>&-"
        _ = try ChildProcess.run(
            "/bin/bash", ["-c", script, "dial"] + first + second, environment: environment)

        let result = try monitor.wait(timeout: 30)
        #expect(result.status == 0, "\(result.standardError)")
        let summary = result.standardOutput.split(separator: "\n").last { $0.contains(#""kind":"summary""#) }
        #expect(summary?.contains(#""published":\#(Int.max)"#) == true, "\(summary ?? "no summary")")
        #expect(summary?.contains(#""events":2"#) == true, "\(summary ?? "no summary")")

        let replay = try ChildProcess.run(
            try BusmonBinary.require(), ["--replay", recording, "--headless", "--speed", "1000"],
            environment: environment)
        #expect(replay.status == 0, "\(replay.standardError)")
        #expect(replay.standardOutput.contains(#""published":\#(Int.max)"#))
    }

    @Test("with stdout closed, the recording gets each record once and no output line")
    func aClosedStdoutLeavesTheRecordingAlone() throws {
        let directory = TemporaryDirectory()
        let recording = directory.file("closed-stdout.jsonl")
        let result = try ChildProcess.run(
            "/bin/sh",
            [
                "-c", #"exec "$0" --headless --duration 1 --record "$1" >&-"#, try BusmonBinary.require(),
                recording,
            ],
            environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n")
        #expect(lines.count > 10)
        #expect(!lines.contains { $0.contains(#""kind":"summary""#) }, "no output line in the recording")
        let sequences = lines.filter { $0.hasPrefix(#"{"kind":"event""#) }.compactMap { line in
            line.range(of: #""seq":"#).map { line[$0.upperBound...].prefix { $0.isNumber } }
        }
        #expect(!sequences.isEmpty)
        #expect(Set(sequences).count == sequences.count, "each event recorded once")
    }

    @Test("a file name that is not UTF-8 is refused as a usage error, not read or written under another name")
    func aFileNameThatIsNotUTF8IsRefused() throws {
        let directory = TemporaryDirectory()
        // The shell makes the names' bytes (0xFF and 0xFE are never UTF-8) and runs busmon in
        // the directory, where the files would appear.
        let script =
            "cd \"$1\" && printf 'x\\n' > \"$(printf 'rec\\377.jsonl')\" && "
            + "\"$0\" --replay \"$(printf 'rec\\377.jsonl')\" --headless; echo \"replay=$?\"; "
            + "\"$0\" --headless --duration 1 --record \"$(printf 'out\\376.jsonl')\"; echo \"record=$?\"; echo \"written=$(ls | grep -c out)\""
        let result = try ChildProcess.run(
            "/bin/sh", ["-c", script, try BusmonBinary.require(), directory.path], environment: environment)
        #expect(result.standardOutput.contains("replay=2\n"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("record=2\n"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("written=0\n"), "no file written under another name")
        #expect(result.standardError.contains("argument 2 ('rec\u{FFFD}.jsonl') is not valid UTF-8"))
        #expect(result.standardError.contains("argument 5 ('out\u{FFFD}.jsonl') is not valid UTF-8"))
    }

    @Test("--attach with a path longer than a socket address holds is refused at once")
    func anOverlongAttachPathIsRefusedAtOnce() throws {
        let path = "/tmp/" + String(repeating: "a", count: 150) + ".sock"
        let result = try ChildProcess.run(
            try BusmonBinary.require(), ["--attach", path, "--headless"], environment: environment,
            timeout: 10)
        #expect(result.status == 1)
        #expect(result.standardError.contains("the path is 160 bytes, and a socket's address holds"))
    }

    @Test(
        "a socket another user made at the path is not attached to, before or after busmon starts",
        .enabled(if: getuid() == 0, "needs root to give a socket to another user"))
    func aSocketOfAnotherUserIsNotAttachedTo() throws {
        let directory = TemporaryDirectory()
        let socket = directory.file("planted.sock")
        let app = try ChildProcess.start(
            try SimappBinary.require(), ["--tap", socket, "--rate", "50", "--duration", "20"],
            environment: environment)
        defer {
            app.send(SIGTERM)
            _ = try? app.wait()
        }
        try waitFor("the tap socket") { FileManager.default.fileExists(atPath: socket) }
        #expect(chown(socket, 65534, 65534) == 0)

        let refused = try ChildProcess.run(
            try BusmonBinary.require(), ["--attach", socket, "--headless", "--duration", "1"],
            environment: environment)
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("the socket belongs to another user (uid 65534)"))

        // Planted while busmon waits for the app (its first summary says it waits): it keeps
        // waiting, and says why.
        let later = directory.file("later.sock")
        let monitor = try ChildProcess.start(
            try BusmonBinary.require(), ["--attach", later, "--headless", "--duration", "4"],
            environment: environment)
        try waitFor("busmon to wait") { monitor.standardOutput.contains(#""kind":"summary""#) }
        #expect(link(socket, later) == 0)
        let result = try monitor.wait(timeout: 30)
        #expect(result.status == 1)
        #expect(result.standardError.contains("never attached to \(later)"), "\(result.standardError)")
        #expect(result.standardError.contains("belongs to another user"), "\(result.standardError)")
        #expect(!result.standardOutput.contains(#""kind":"event""#), "nothing from the planted socket")
    }

    @Test("an app that dials in and ends by itself does not say its connection was lost")
    func aCleanExitIsNotALostConnection() throws {
        let (monitor, port) = try startListening(duration: 20)
        defer { monitor.send(SIGTERM) }
        let app = try ChildProcess.run(
            try SimappBinary.require(),
            [
                "--connect", "127.0.0.1:\(port)", "--token", "s3cret-token-42", "--app", "tidy", "--rate",
                "50",
                "--duration", "2",
            ],
            environment: environment)
        #expect(app.status == 0)
        #expect(app.standardError.contains("connected to busmon"), "\(app.standardError)")
        #expect(!app.standardError.contains("lost"), "\(app.standardError)")
    }

    @Test("a dial line over 4 KiB is refused even with the right token, whole in one write")
    func anOverlongDialIsRefused() throws {
        let (monitor, port) = try startListening(duration: 20)
        defer { monitor.send(SIGTERM) }
        // Well under a read of 64 KiB: the whole line, newline included, arrives at once.
        let name = String(repeating: "n", count: 10_000)
        let dial =
            #"{"kind":"dial","version":1,"token":"s3cret-token-42","app":"\#(name)","host":"h","pid":7}"#
        let reply = try answer(to: dial, port: port)
        #expect(reply.contains(#""kind":"refused""#), "\(reply.prefix(200))")
        #expect(reply.contains("over 4 KiB"))
        #expect(!reply.contains("welcome"))
    }

    /// A short recording of the simulated app, and the number of events in it.
    private func makeRecording(in directory: TemporaryDirectory) throws -> (path: String, events: Int) {
        let path = directory.file("session.jsonl")
        let result = try ChildProcess.run(
            try BusmonBinary.require(), ["--headless", "--duration", "1", "--record", path],
            environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        let events = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .count { $0.hasPrefix(#"{"kind":"event""#) }
        return (path, events)
    }

    /// The events a headless replay printed.
    private static func events(in output: String) -> Int {
        output.split(separator: "\n").count { $0.hasPrefix(#"{"kind":"event""#) }
    }

    /// A headless replay of `recording` piped through `/dev/stdin`, at full speed.
    private func replayPiped(_ recording: String) throws -> ChildResult {
        try ChildProcess.run(
            "/bin/sh",
            [
                "-c", #"cat "$1" | "$0" --replay /dev/stdin --headless --speed 1e6"#,
                try BusmonBinary.require(), recording,
            ],
            environment: environment)
    }

    @Test("a recording piped in, from a FIFO or through /dev/stdin, replays whole")
    func replayFromAPipe() throws {
        let directory = TemporaryDirectory()
        let (recording, events) = try makeRecording(in: directory)
        #expect(events > 10)

        let piped = try replayPiped(recording)
        #expect(piped.status == 0, "\(piped.standardError)")
        #expect(Self.events(in: piped.standardOutput) == events)

        let fifo = directory.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let fromFIFO = try ChildProcess.run(
            "/bin/sh",
            [
                "-c", #"cat "$1" > "$2" & exec "$0" --replay "$2" --headless --speed 1e6"#,
                try BusmonBinary.require(), recording, fifo,
            ],
            environment: environment, timeout: 30)
        #expect(fromFIFO.status == 0, "\(fromFIFO.standardError)")
        #expect(Self.events(in: fromFIFO.standardOutput) == events)
    }

    @Test("a piped recording's line longer than a record is skipped and said, as a file's is")
    func replayFromAPipeSkipsAnOverlongLine() throws {
        let directory = TemporaryDirectory()
        let (recording, events) = try makeRecording(in: directory)
        var lines = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n")
        lines.insert(
            Substring(#"{"kind":"event","junk":""# + String(repeating: "a", count: 2 << 20) + "\"}"), at: 1)
        let damaged = directory.file("damaged.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(toFile: damaged, atomically: true, encoding: .utf8)

        let piped = try replayPiped(damaged)
        // Played whole, then 1, as a damaged file's replay ends.
        #expect(piped.status == 1, "\(piped.standardError)")
        #expect(Self.events(in: piped.standardOutput) == events)
        #expect(
            piped.standardError.contains(
                "/dev/stdin:2: line is longer than the limit of 1048576 bytes (at least 2097178 bytes)"),
            "\(piped.standardError)")
    }

    @Test("an input with no newline, such as /dev/zero, is refused once a line outgrows what is read past")
    func replayOfAnEndlessLine() throws {
        let result = try ChildProcess.run(
            try BusmonBinary.require(), ["--replay", "/dev/zero", "--headless"], environment: environment,
            timeout: 20)
        #expect(result.status == 1)
        #expect(result.standardError.contains("/dev/zero:1:"), "\(result.standardError)")
    }

    /// util-linux's setsid, which starts busmon in a session of its own: its terminal is then
    /// not its controlling terminal, as when a user starts it that way.
    private static let setsid = ["/usr/bin/setsid", "/bin/setsid"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// busmon in a pseudo-terminal, in a session of its own, once it has drawn a screen.
    private func startInOwnSession(_ terminal: PseudoTerminal) throws -> RunningChild {
        var environment = environment
        environment["TERM"] = "xterm"
        environment["LC_ALL"] = TestHost.utf8Locale
        let child = try ChildProcess.start(
            try #require(Self.setsid), ["-w", try BusmonBinary.require()], environment: environment,
            terminal: terminal)
        var drawn = 0
        try waitFor("busmon to draw") {
            drawn += terminal.drain()
            return drawn > 2_000
        }
        return child
    }

    @Test(
        "a terminal lost under setsid ends busmon at once, instead of a loop at full speed",
        .enabled(if: setsid != nil, "needs util-linux's setsid"))
    func aLostTerminalEndsTheRun() throws {
        let terminal = try PseudoTerminal()
        let child = try startInOwnSession(terminal)
        terminal.closePrimary()
        let result = try child.wait(timeout: 10)
        #expect(result.status == 129, "ended as by SIGHUP: \(result.standardError)")
    }

    @Test(
        "Ctrl-C on a terminal that is not the controlling one still quits",
        .enabled(if: setsid != nil, "needs util-linux's setsid"))
    func controlCWithoutAControllingTerminalQuits() throws {
        let terminal = try PseudoTerminal()
        let child = try startInOwnSession(terminal)
        terminal.type([3])
        var running = true
        try waitFor("busmon to quit") {
            terminal.drain()
            running = child.isRunning
            return !running
        }
        #expect(try child.wait().status == 0)
    }

    @Test("a token shorter than 12 characters is refused, from the command line and the environment")
    func aShortTokenIsRefused() throws {
        let busmon = try BusmonBinary.require()
        let flag = try ChildProcess.run(
            busmon, ["--listen", "127.0.0.1:0", "--token", "4821"], environment: environment)
        #expect(flag.status == 2)
        #expect(flag.standardError.hasPrefix("busmon: --token: a token of 4 characters can be guessed"))
        let variable = try ChildProcess.run(
            busmon, ["--listen", "127.0.0.1:0", "--headless", "--duration", "1"],
            environment: environment.merging(["BUSMON_TOKEN": "4821"]) { $1 })
        #expect(variable.status == 1)
        #expect(variable.standardError.contains("a token of 4 characters can be guessed"))
    }

    private static let ps = ["/bin/ps", "/usr/bin/ps"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(
        "the token leaves the command line that ps shows, and headless summaries",
        .enabled(if: ps != nil, "needs ps"))
    func theTokenIsNotShown() throws {
        let port = try NATSServer.freePort()
        let token = "hidden-token-0123"
        let monitor = try ChildProcess.start(
            try BusmonBinary.require(),
            ["--listen", "127.0.0.1:\(port)", "--token", token, "--headless", "--duration", "3"],
            environment: environment)
        try waitFor("busmon to listen") { monitor.standardError.contains("listening on") }
        let ps = try ChildProcess.run(
            try #require(Self.ps), ["-o", "args=", "-p", "\(monitor.pid)"], environment: environment)
        #expect(ps.standardOutput.contains("--listen"), "ps shows busmon: \(ps.standardOutput)")
        #expect(!ps.standardOutput.contains(token), "\(ps.standardOutput)")
        let result = try monitor.wait(timeout: 30)
        let summaries = result.standardOutput.split(separator: "\n").filter {
            $0.contains(#""kind":"summary""#)
        }
        #expect(!summaries.isEmpty)
        #expect(!summaries.contains { $0.contains(token) })
    }

    @Test("wrong tokens from one address are answered ever more slowly: a few guesses, not thousands")
    func guessingIsSlowed() throws {
        let (monitor, port) = try startListening(duration: 20)
        defer { monitor.send(SIGTERM) }
        // As fast as a shell can, for three seconds: each guess on a connection of its own.
        let guess = #"{"kind":"dial","version":1,"token":"guess","app":"g","host":"h","pid":1}"#
        let script = """
            end=$((SECONDS + 3))
            while [ $SECONDS -lt $end ]; do
              exec 3<>/dev/tcp/127.0.0.1/\(port) || continue
              printf '%s\\n' "$1" >&3
              timeout 2 head -n 1 <&3
              exec 3>&-
            done
            """
        let answers = try ChildProcess.run(
            "/bin/bash", ["-c", script, "guess", guess], environment: environment)
        let lines = answers.standardOutput.split(separator: "\n")
        let judged = lines.count { $0.contains(#""wrong token""#) }
        let refusedUnjudged = lines.count { $0.contains("from this app at this address; try again") }
        #expect(judged >= 2 && judged <= 6, "tokens judged: \(judged) of \(lines.count) answers")
        #expect(refusedUnjudged > 0)
        // The right token from the guesser's app (name and process) waits its turn too...
        let guessed = #"{"kind":"dial","version":1,"token":"s3cret-token-42","app":"g","host":"h","pid":1}"#
        let late = try answer(to: guessed, port: port)
        #expect(late.contains("from this app at this address; try again"), "\(late)")
        // ...but another app at the address (the Simulator's all share 127.0.0.1) gets in.
        let right = #"{"kind":"dial","version":1,"token":"s3cret-token-42","app":"ok","host":"h","pid":3}"#
        let welcomed = try answer(to: right, port: port)
        #expect(welcomed.contains(#""kind":"welcome""#), "\(welcomed)")
        // A guesser that makes up a name for each guess is slowed as much: the waits grow with
        // the address's wrong tokens, and four names refused at once refuse the address.
        let namesScript = script.replacing(
            #"printf '%s\n' "$1" >&3"#, with: #"printf '%s\n' "${1/\"app\":\"g\"/\"app\":\"n$RANDOM\"}" >&3"#)
        #expect(namesScript != script)
        let named = try ChildProcess.run(
            "/bin/bash", ["-c", namesScript, "guess", guess], environment: environment)
        let namedLines = named.standardOutput.split(separator: "\n")
        let namedJudged = namedLines.count { $0.contains(#""wrong token""#) }
        #expect(
            namedJudged >= 2 && namedJudged <= 10,
            "tokens judged: \(namedJudged) of \(namedLines.count) answers")
        #expect(namedLines.contains { $0.contains("apps at this address; try again") })
    }

    @Test(
        "an app that sends payloads of nearly a megabyte leaves the dashboard's memory bounded",
        .disabled(if: underSanitizer, "sanitizer builds' memory figures mean nothing"))
    func aFloodOfHugePayloads() throws {
        let port = try NATSServer.freePort()
        let terminal = try PseudoTerminal()
        var environment = environment
        environment["TERM"] = "xterm"
        environment["LC_ALL"] = TestHost.utf8Locale
        environment["BUSMON_TOKEN"] = "s3cret-token-42"
        let monitor = try ChildProcess.start(
            try BusmonBinary.require(), ["--listen", "127.0.0.1:\(port)"], environment: environment,
            terminal: terminal)
        try waitFor("busmon to listen") {
            terminal.drain()
            return LoopbackPort.accepts(port)
        }

        // 400 events of 900 KB each (360 MB), under the wire's 1 MiB line limit, as fast as
        // busmon takes them; the terminal is read meanwhile, so that busmon never waits on it.
        let dial = #"{"kind":"dial","version":1,"token":"s3cret-token-42","app":"flood","host":"h","pid":9}"#
        let hello = #"{"kind":"hello","version":3,"pid":9,"process":"flood","bus":"b","time":1700000000}"#
        let script = """
            exec 3<>/dev/tcp/127.0.0.1/\(port)
            printf '%s\\n%s\\n' "$1" "$2" >&3
            payload=$(head -c 900000 /dev/zero | tr '\\0' a)
            for i in $(seq 1 400); do
              printf '{"kind":"event","seq":%d,"time":1700000001,"typeName":"Huge","receivers":1,"payload":"%s"}\\n' "$i" "$payload" >&3
            done
            exec 3>&-
            """
        let sender = try ChildProcess.start(
            "/bin/bash", ["-c", script, "flood", dial, hello], environment: environment)
        var sent = false
        // busmon's high-water mark is read while it runs (Linux): a process that has exited is a
        // zombie whose status has no VmHWM line, so it is sampled during the flood, not only after.
        try waitFor("the flood to be sent", timeout: 240) {
            terminal.drain()
            _ = monitor.isRunning
            sent = !sender.isRunning
            return sent
        }
        #expect(try sender.wait().status == 0)
        // A moment for the last events to reach the log, then quit.
        let settled = Date().addingTimeInterval(1)
        while Date() < settled {
            terminal.drain()
            _ = monitor.isRunning
        }
        terminal.type(Array("q".utf8))
        try waitFor("busmon to quit") {
            terminal.drain()
            return !monitor.isRunning
        }
        let result = try monitor.wait()
        #expect(result.status == 0, "\(result.standardError)")
        let peak = try #require(result.peakResidentKiB, "the peak was read")
        // Whole payloads kept (5,000 log lines) would take gigabytes; cut to 4 KiB when read,
        // what busmon holds stays within tens of megabytes of its usual size.
        #expect(peak < 160 << 10, "peak resident memory \(peak / 1024) MB")
    }
}
