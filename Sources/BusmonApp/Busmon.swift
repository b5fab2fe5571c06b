package import BusMonitor
internal import BusMonitorNATS
internal import BusWire
internal import Dashboard
internal import EventBus
internal import EventBusNATS
internal import Foundation
internal import Simulator
internal import Synchronization
internal import TerminalUI

#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// busmon's command: reads the command line, picks what to run, and turns every outcome into
/// an exit status.
///
/// Exit status: 0 done (q or `--duration`); 1 cannot run (no terminal, unknown `TERM`, a mode
/// this build lacks) or a file it wrote stopped early (a full disk); 2 bad command line; 128 + the
/// signal number after SIGINT (130), SIGTERM (143), SIGHUP (129) or another signal that would
/// end it (``endingSignals``), as shells report a program killed by that signal.
package enum Busmon {
    /// Runs busmon with `arguments` (without the program name) and returns its exit status.
    ///
    /// - Parameter undecodable: The positions in `arguments` of those that were not UTF-8 on
    ///   the command line (``undecodableArguments()``), which are refused: Swift's strings
    ///   replace their bad bytes, so a path would name another file than the one given.
    package static func run(
        arguments: [String], environment: [String: String], undecodable: [Int] = []
    ) -> Int32 {
        if let position = undecodable.first, arguments.indices.contains(position) {
            printError(
                "busmon: argument \(position + 1) ('\(arguments[position])') is not valid UTF-8, and "
                    + "busmon would read another name than the one given; use a UTF-8 name")
            writeToStandardError("usage: busmon [options]; busmon --help lists them")
            return 2
        }
        let closedDescriptors = System.occupyClosedStandardDescriptors()
        // Anyone on the machine may read a command line (ps): the token leaves it at once.
        if let token = commandLineToken(arguments) { System.hideArgument(token) }
        // And so do the passwords and tokens of NATS URLs (nats://alice:secret@host:4222).
        for argument in arguments {
            let url =
                argument.hasPrefix("--attach=") ? String(argument.dropFirst("--attach=".count)) : argument
            guard BusmonOptions.looksLikeAURL(url) else { continue }
            for secret in NATSServerURL.secrets(in: url) { System.hideArgument(secret, anywhere: true) }
        }
        // A file grown past `ulimit -f` raises SIGXFSZ, which would end busmon at once (the
        // terminal raw, the recording's last lines lost); ignored, the write fails with EFBIG
        // and the recording stops with that reason, which the exit status reports.
        signal(SIGXFSZ, SIG_IGN)
        let options: BusmonOptions
        do {
            switch try CommandLineParser.parse(arguments) {
            case .help:
                return writeToStandardOutput(
                    CommandLineParser.usage, what: "the help",
                    isClosed: closedDescriptors.contains(STDOUT_FILENO))
            case .run(let parsed):
                options = parsed
            }
        } catch {
            // The reason, then where to read more: the whole help would scroll the reason away.
            printError("busmon: \(error)")
            writeToStandardError("usage: busmon [options]; busmon --help lists them")
            return 2
        }

        if let clash = fileClash(options) {
            printError("busmon: \(clash)")
            writeToStandardError("usage: busmon [options]; busmon --help lists them")
            return 2
        }

        // Its output would go nowhere (/dev/null holds the descriptor's place): a mistake, unless
        // a file takes what is watched and stdout was closed to keep only that.
        let writesAFile = options.recordPath != nil || options.tracePath != nil || options.graphPath != nil
        if options.headless, !writesAFile, closedDescriptors.contains(STDOUT_FILENO) {
            printError("busmon: cannot write to stdout: it is closed")
            return 1
        }

        if case .fleet = options.source, !NATSFleetSource.isAvailable {
            writeToStandardError("busmon: \(notBuiltWithNATS)")
            return 2
        }

        // The app in this process starts threads; only the one that will draw takes Ctrl-Z.
        if case .simulator = options.source, !options.headless { MainRunLoop.keepDrawingThreadSignals() }

        if !options.headless {
            do {
                try Terminal.checkStandardStreams(environment: environment)
            } catch {
                printError("busmon: \(error)")
                return 1
            }
        }
        // The one place that decides how to run: what to watch, then how to show it.
        let session: Session
        do {
            session = try makeSession(options: options, environment: environment)
        } catch let error as NATSBridgeError {
            printError("busmon: \(error)")
            // A URL that is not one is a bad command line.
            if case .invalidURL = error { return 2 }
            return 1
        } catch {
            printError("busmon: \(error)")
            return 1
        }
        defer { session.stop() }
        if options.headless { return runHeadless(session: session, options: options) }
        return runDashboard(session: session, options: options, environment: environment)
    }

    /// What busmon says to `--attach nats://…` when it was built without the `NATS` trait.
    package static let notBuiltWithNATS = """
        --attach nats://… watches a fleet through NATS, and this busmon was built without it.
        Build it with the NATS trait (nats.c is needed: apt-get install libnats-dev):
            swift run --traits NATS busmon --attach nats://HOST:PORT
        """

    /// Opens what `options` asks to watch, recording it too with `--record`.
    ///
    /// - Parameter environment: Read for `BUSMON_FLEET_QUIET_AFTER` and
    ///   `BUSMON_FLEET_GONE_AFTER`, which shorten a fleet's presence times for tests.
    package static func makeSession(
        options: BusmonOptions, environment: [String: String] = [:]
    ) throws -> Session {
        var session: Session
        switch options.source {
        case .simulator:
            session = startSimulation(options: options)
        case .attach(let path):
            try checkAttachable(path)
            let source = AttachSource(socketPath: path)
            session = Session(source: source, stop: { source.close() })
        case .fleet(let url, let since):
            let source = try NATSFleetSource(
                url: url, since: since, presence: .fromEnvironment(environment))
            session = Session(source: source, stop: { source.close() })
        case .listen(let address, let token):
            let source = try ListenSource(
                address: address, token: token ?? environment["BUSMON_TOKEN"],
                presence: .fromEnvironment(environment),
                // Headless output is kept by scripts and logs: the token stays out of it.
                statusNamesToken: !options.headless)
            session = Session(source: source, stop: { source.close() })
        case .replay(let given, let speed):
            // `-` is standard input, as for most tools that read a file.
            let path = given == "-" ? "/dev/stdin" : given
            // Input that is not a file (a pipe, a FIFO) is read to its end before it plays, and
            // nothing is on the screen meanwhile: say so, where the screen will be.
            if System.isStream(path) {
                printError(
                    "busmon: reading \(path) to its end before playing it (it is not a file); Ctrl-C stops")
            }
            // Its warnings arrive as notices: in the dashboard's log, or on stderr when headless.
            let replay = try ReplaySource(path: path, speed: speed)
            if let at = options.at, let problem = replay.pause(at: at) {
                throw RecordingError.unreadable(path: path, reason: problem)
            }
            if let at = options.at,
                ReplaySource.clockText(min(at, replay.duration)) != ReplaySource.clockText(at)
            {
                // What is shown is the end's; whoever asked for more should hear so.
                let warning =
                    "--at \(ReplaySource.clockText(at)) is past the recording's end, "
                    + "\(ReplaySource.clockText(replay.duration)): the state is at its end"
                if options.headless {
                    printError("busmon: warning: " + warning)
                } else {
                    replay.warn(warning)
                }
            }
            session = Session(source: replay, stop: {})
        }
        if let recordPath = options.recordPath {
            let writer = try RecordingWriter(path: recordPath)
            let recording = RecordingSource(wrapping: session.source, writer: writer)
            session = session.wrapped(in: recording) {
                recording.recordRemaining()
                writer.close()
            }
        }
        if let tracePath = options.tracePath {
            let tracing = try TracingSource(wrapping: session.source, path: tracePath)
            // What a recording inside took last comes out of it here once more.
            session = session.wrapped(in: tracing) { _ = tracing.drainLast() }
        }
        if let graphPath = options.graphPath {
            let graphing = try GraphingSource(wrapping: session.source, path: graphPath)
            session = session.wrapped(in: graphing) { _ = graphing.drainLast() }
        }
        return session
    }

    /// Refuses a path that can never be a tap: an existing file that is not a socket, a socket
    /// this user may not open, or a path in a folder that does not exist. A missing socket in an
    /// existing folder is fine: the app may start later.
    package static func checkAttachable(_ path: String) throws {
        guard path.utf8.count <= UnixSocket.maximumPathLength else {
            // connect would fail on every try: say so now rather than wait for ever.
            throw AttachError(
                description: "cannot attach to \(path): the path is \(path.utf8.count) bytes, and a socket's "
                    + "address holds \(UnixSocket.maximumPathLength)")
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT {
                // The socket may appear later, but not in a folder that does not exist.
                let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
                var folderStatus = stat()
                if !folder.isEmpty, stat(folder, &folderStatus) != 0 {
                    throw AttachError(
                        description: "cannot attach to \(path): no such folder \(folder)")
                }
                return
            }
            throw AttachError(description: "cannot attach to \(path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else {
            throw AttachError(
                description: "cannot attach to \(path): not a socket (start the app with a tap there)")
        }
        if let problem = AttachSource.ownerProblem(of: status) {
            throw AttachError(description: "cannot attach to \(path): \(problem)")
        }
        guard access(path, R_OK | W_OK) == 0 else {
            throw AttachError(description: "cannot attach to \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Why a path cannot be attached to.
    package struct AttachError: Error, CustomStringConvertible, Equatable {
        /// The message busmon prints.
        package var description: String

        /// An error saying `description`.
        package init(description: String) { self.description = description }
    }

    /// Writes `text` (`what` it is, for a message) to stdout, unless stdout `isClosed`.
    ///
    /// - Returns: 0 when it was written, or its reader closed the pipe (`busmon --help | head
    ///   -1` took what it wanted); 1, with a message, when it cannot be written.
    private static func writeToStandardOutput(_ text: String, what: String, isClosed: Bool) -> Int32 {
        guard !isClosed else {
            printError("busmon: cannot write \(what) to stdout: it is closed")
            return 1
        }
        signal(SIGPIPE, SIG_IGN)
        let failure = Array(text.utf8).withUnsafeBytes { BusWire.System.writeAll(STDOUT_FILENO, $0) }
        guard let failure, failure != EPIPE else { return 0 }
        printError("busmon: cannot write \(what) to stdout: \(String(cString: strerror(failure)))")
        return 1
    }

    /// Prints the state of a replay paused at `--at` as one JSON line: the records up to the
    /// cursor taken in as the dashboard takes them, then ``DashboardState/reportLine(cursor:now:)``.
    /// They pass through the session's files on the way (`--trace`, `--graph`), which then hold
    /// what the state was built from, and are closed before busmon says whether they are whole.
    private static func printState(of replay: ReplaySource, session: Session) -> Int32 {
        replay.warnings.forEach { printError("busmon: warning: \($0)") }
        // What a trace written meanwhile will hold, as a headless replay says it. The replay's
        // own notices are not said: a state is read from a stretch before the cursor, and
        // they would depend on how long that stretch is.
        if let tracing = session.tracingSource { printError("busmon: \(tracing.announcement)") }
        let dashboard = SourceDashboard(source: session.source)
        dashboard.update(now: WallClock.now())
        let cursor = replay.cursor
        let line = dashboard.stateReport(cursor: cursor, now: replay.recordingTime(at: cursor))
        let written = writeToStandardOutput(line, what: "the state", isClosed: false)
        session.stop()
        let failures = session.outputFailures
        for failure in failures { printError("busmon: \(failure)") }
        return failures.isEmpty && replay.malformedLines == 0 ? written : 1
    }

    /// Writes JSON Lines to stdout until `--duration` passes, a replay ends, or SIGINT, SIGTERM
    /// or SIGHUP.
    private static func runHeadless(session: Session, options: BusmonOptions) -> Int32 {
        if let replay = session.watchedSource as? ReplaySource, replay.isEmpty {
            // Its warnings (a cut-off line, say) explain what little there was.
            replay.warnings.forEach { printError("busmon: warning: \($0)") }
            printError("busmon: \(replay.path): the recording is empty")
            return 1
        }
        if options.at != nil, let replay = session.watchedSource as? ReplaySource {
            return printState(of: replay, session: session)
        }
        // Notices (attached, detached, a recording's warnings) go to stderr, beside the output.
        // The warnings told are remembered, so that a file that stopped is not told twice.
        let toldWarnings = LockedValue(Set<String>())
        let runner = HeadlessRunner(
            source: session.source, duration: options.duration,
            onNotice: { notice in
                if notice.isWarning { toldWarnings.withLock { _ = $0.insert(notice.text) } }
                // A notice names apps and sockets that strangers choose: printError escapes it.
                printError("busmon: \(notice.isWarning ? "warning: " : "")\(notice.text)")
            }, stopPublishing: session.stopPublishing)
        // A closed pipe ends the run as the writes' EPIPE, not as a death by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let stopped = LockedSignal()
        // Until the sources below hear signals, a handler notes the first one: ignored meanwhile,
        // a SIGTERM sent just after busmon started was lost, and busmon ran on.
        // Touched here first, so that a handler never runs a global's lazy initialization.
        signalBeforeSources.store(0, ordering: .relaxed)
        // SIGHUP too: a recorder left running in a terminal that closes (an ssh session that
        // ends) finishes its files and says 129, as the dashboard does.
        let endingSignals = [SIGINT, SIGTERM, SIGHUP]
        for number in endingSignals {
            signal(number) { number in signalBeforeSources.store(number, ordering: .relaxed) }
        }
        let registered = DispatchGroup()
        let sources = endingSignals.map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                stopped.record(number)
                runner.stop()
            }
            registered.enter()
            source.setRegistrationHandler { registered.leave() }
            source.resume()
            return source
        }
        _ = registered.wait(timeout: .now() + 1)
        let early = signalBeforeSources.load(ordering: .relaxed)
        if early != 0 {
            stopped.record(early)
            runner.stop()
        }
        let outcome =
            session.runsMainActorWork
            ? MainRunLoop.serve(whileRunning: "busmon headless") { runner.run() } : runner.run()
        sources.forEach { $0.cancel() }
        // A run a signal ended says so in its status, as shells report a program it killed,
        // whatever else it says: a script tells a kill apart from a failure.
        let unwatched: Int32 = outcome == .stopped ? stopped.signal.map { 128 + $0 } ?? 1 : 1
        if let attach = session.watchedSource as? AttachSource, attach.hello == nil {
            // A script must not mistake a run that never saw the app for a quiet one.
            printError("busmon: never attached to \(attach.socketPath): \(attach.drain().status ?? "no app")")
            return unwatched
        }
        if let listen = session.watchedSource as? ListenSource, !listen.anyAppConnected {
            printError("busmon: no app dialled in to \(listen.address)")
            return unwatched
        }
        if let fleet = session.watchedSource as? NATSFleetSource, !fleet.hasConnected {
            printError(
                "busmon: never reached the NATS server at \(fleet.shownURL)"
                    + (fleet.connectionProblem.map { ": \($0)" } ?? ""))
            return unwatched
        }
        let unwritten = runner.unwrittenOutput
        if unwritten.bytes > 0 {
            // Its reader stopped reading (a paused program at the end of a pipe): the run ended
            // on time, without the lines the reader never took.
            printError(
                "busmon: stdout's reader stopped reading: up to \(unwritten.lines) lines "
                    + "(\(unwritten.bytes) bytes) of output not written")
        }
        if outcome != .outputClosed, let lost = runner.losses.phrase {
            // The `dropped` lines say it, but they may be in a file nobody reads to the end.
            printError("busmon: \(lost), as the output's dropped lines count them")
        }
        let failures = session.outputFailures
        if !failures.isEmpty {
            // The watching went on, but a file it wrote is not whole: a script must hear of it,
            // once (a failure seen while running was told then, as a warning).
            let told = toldWarnings.withLock { $0 }
            for failure in failures where !told.contains(failure) { printError("busmon: \(failure)") }
            if outcome != .stopped { return 1 }
        }
        // Played, but not all of it: the warning named the first line skipped.
        let damaged = (session.watchedSource as? ReplaySource).map { $0.malformedLines > 0 } ?? false
        switch outcome {
        case .durationElapsed, .sourceFinished:
            return damaged || unwritten.bytes > 0 ? 1 : 0
        case .outputClosed:
            // A reader that closes the pipe (`busmon --headless | head -1`) got what it wanted.
            return 0
        case .stopped:
            return stopped.signal.map { 128 + $0 } ?? 0
        case .outputFailed(let reason):
            printError("busmon: cannot write to stdout: \(reason)")
            return 1
        }
    }

    /// The signal that stopped a headless run, set from a dispatch queue.
    final class LockedSignal: Sendable {
        private let value = LockedValue<Int32?>(nil)
        func record(_ number: Int32) { value.withLock { $0 = $0 ?? number } }
        var signal: Int32? { value.current }
    }

    /// What the dashboard watches, and how to stop it when busmon quits.
    package struct Session {
        /// The source under the recording and the graph wrapped around it, if any: what is
        /// watched.
        var watchedSource: any DashboardSource {
            var source = self.source
            while let wrapping = source as? any WrappingSource { source = wrapping.wrapped }
            return source
        }

        /// The same session watched through `wrapper` (a recording, a trace, a graph around its
        /// source), which `finish` winds up once the session has stopped.
        func wrapped(in wrapper: any DashboardSource, finish: @escaping () -> Void) -> Session {
            let inner = self
            // Once: a run that stops early to say what its files hold stops again on its way out.
            let stopped = LockedValue(false)
            return Session(
                source: wrapper,
                stop: {
                    let wasStopped = stopped.withLock { wasStopped in
                        defer { wasStopped = true }
                        return wasStopped
                    }
                    guard !wasStopped else { return }
                    inner.stop()
                    finish()
                }, eventsPublished: inner.eventsPublished, stopPublishing: inner.stopPublishing,
                runsMainActorWork: inner.runsMainActorWork)
        }

        /// The source writing `--trace`, if one is.
        var tracingSource: TracingSource? {
            var source = self.source
            while true {
                if let tracing = source as? TracingSource { return tracing }
                guard let wrapping = source as? any WrappingSource else { return nil }
                source = wrapping.wrapped
            }
        }

        /// Why the files busmon writes (`--record`, `--trace`, `--graph`) are not whole, if one
        /// is not: a full disk, a file too large.
        var outputFailures: [String] {
            var failures: [String] = []
            var source = self.source
            while true {
                if let recording = source as? RecordingSource, let error = recording.writer.error {
                    failures.append(error)
                }
                if let tracing = source as? TracingSource, let error = tracing.failure {
                    failures.append(error)
                }
                if let graphing = source as? GraphingSource, let error = graphing.failure {
                    failures.append(error)
                }
                guard let wrapping = source as? any WrappingSource else { return failures }
                source = wrapping.wrapped
            }
        }

        /// Where the dashboard's data comes from.
        package let source: any DashboardSource
        /// Stops the source (and the simulated app or the recording behind it).
        package let stop: () -> Void
        /// Events the watched app has published, when busmon can know it.
        package var eventsPublished: () -> Int? = { nil }
        /// Stops the simulated app publishing, while its source stays open for a last drain
        /// that takes all it published; nothing for a source fed from outside.
        package var stopPublishing: @Sendable () -> Void = {}
        /// Whether the watched app runs in this process, with work for the main actor.
        package var runsMainActorWork = false
    }

    /// Starts the simulated app in this process, watched through its bus.
    static func startSimulation(options: BusmonOptions) -> Session {
        let bus = EventBus(name: "simulated app")
        // Without --seed every run differs; the header shows the seed so a run can be repeated.
        let seed = options.seed ?? UInt64.random(in: 1...99_999)
        let app = SimulatedApp(bus: bus, seed: seed, rate: Double(options.rate))
        let source = LocalBusSource(
            bus: bus, title: "simulated app (seed \(seed))",
            supportedCommands: SourceCommandDescription.simulatedApp
        ) { command in
            switch command {
            case .increaseRate: return "rate \(Int(app.increaseRate()))/s"
            case .decreaseRate: return "rate \(Int(app.decreaseRate()))/s"
            case .destroyScreens: return "destroyed \(app.destroyScreens()) screens"
            case .toggleLeakyScreens: return app.toggleLeakyScreens()
            case .startPublishLoop: return app.startRefreshLoop()
            default: return nil
            }
        }
        app.start()
        return Session(
            source: source, stop: { app.stop() }, eventsPublished: { bus.snapshot().totalPublished },
            stopPublishing: { app.stop() }, runsMainActorWork: true)
    }

    /// Why two of the files named on the command line cannot be used together: an output that
    /// is the recording `--replay` reads (writing it empties the recording as it plays), or two
    /// outputs in one file (their lines interleaved, neither readable); `nil` when none clash.
    package static func fileClash(_ options: BusmonOptions) -> String? {
        let outputs = [
            ("--record", options.recordPath), ("--graph", options.graphPath), ("--trace", options.tracePath),
        ].compactMap { flag, path in path.map { (flag, $0) } }
        if let input = options.replayPath {
            for (flag, path) in outputs where System.areOneFile(path, input) {
                return "\(flag) \(path) is the recording --replay reads; writing it would destroy it"
            }
        }
        for (index, (flag, path)) in outputs.enumerated() {
            for (otherFlag, otherPath) in outputs[(index + 1)...] where System.areOneFile(path, otherPath) {
                return "\(flag) and \(otherFlag) name one file, \(path): each needs its own"
            }
        }
        if options.headless {
            // `busmon --headless > out.json --trace out.json`: two writers in one file.
            for (flag, path) in outputs where System.isStandardOutput(path) {
                return
                    "\(flag) \(path) is where --headless writes its output (stdout): each needs its own file"
            }
            // `busmon --replay r.jsonl --headless >> r.jsonl`: the replay would read its own output.
            if let input = options.replayPath, System.isStandardOutput(input) {
                return "--headless writes its output (stdout) to \(input), the recording --replay reads"
            }
        }
        return nil
    }

    /// The value of `--token` on the command line (`--token T` or `--token=T`), if any.
    static func commandLineToken(_ arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument == "--token", index + 1 < arguments.count { return arguments[index + 1] }
            if argument.hasPrefix("--token=") { return String(argument.dropFirst("--token=".count)) }
        }
        return nil
    }

    /// The signals whose default action would end busmon with the terminal left raw on the
    /// alternate screen: each is caught, and the frame loop restores the terminal and exits
    /// 128 + its number. (SIGWINCH is curses's; SIGXFSZ is ignored, so that a recording past
    /// `ulimit -f` stops with an error instead.)
    static let endingSignals = [
        SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF,
    ]

    private static func runDashboard(
        session: Session, options: BusmonOptions, environment: [String: String]
    ) -> Int32 {
        let signals: SignalWatcher
        do {
            // Before curses starts, so curses leaves SIGINT/SIGTERM to us.
            signals = try SignalWatcher(signals: endingSignals)
        } catch {
            printError("busmon: \(error)")
            return 1
        }
        defer { signals.restore() }

        let terminal = Terminal()
        let capabilities: TerminalCapabilities
        do {
            let colorAllowed = TerminalSupport.colorAllowed(
                noColorFlag: options.noColor, environment: environment)
            capabilities = try terminal.start(colorAllowed: colorAllowed, environment: environment)
        } catch {
            printError("busmon: \(error)")
            return 1
        }
        defer { terminal.stop() }

        let dashboardOptions = DashboardOptions(
            ascii: options.ascii || !capabilities.unicode, color: capabilities.color)
        let screen = SourceDashboard(source: session.source, options: dashboardOptions)
        let loop = FrameLoop(terminal: terminal, signals: signals, screen: screen, duration: options.duration)
        // An app in this process gets the main thread, as its main-actor handlers expect.
        let report =
            session.runsMainActorWork
            ? MainRunLoop.serve(whileRunning: "busmon frames") { loop.run() } : loop.run()
        terminal.stop()
        session.stop()

        switch report.end {
        case .quit, .durationElapsed:
            printSummary(report, events: session.eventsPublished(), losses: screen.losses)
            let failures = session.outputFailures
            if !failures.isEmpty {
                for failure in failures { printError("busmon: \(failure)") }
                return 1
            }
            return 0
        case .signal(let signal):
            // After SIGHUP the terminal is gone; there is nobody to tell.
            if signal != SIGHUP {
                printSummary(report, events: session.eventsPublished(), losses: screen.losses)
            }
            return 128 + signal
        }
    }

    /// One line after the screen closes, such as
    /// "busmon: 250 frames in 10.0 s (25.0 frames/s), 2000 events, peak memory 21 MB",
    /// which is also how the frame rate and memory goals are measured; what was lost on the way
    /// follows the events, since the header that showed it is gone.
    private static func printSummary(_ report: LoopReport, events: Int?, losses: RecordLosses) {
        let tenths = Int((report.seconds * 10).rounded())
        let rate = report.seconds > 0 ? Double(report.frames) / report.seconds : 0
        var line = "busmon: \(report.frames) frames in \(tenths / 10).\(tenths % 10) s"
        line += " (\(Double(Int(rate * 10)) / 10) frames/s)"
        if let events { line += ", \(events) events" }
        if let lost = losses.phrase { line += ", \(lost)" }
        if let peak = System.peakResidentKiB() { line += ", peak memory \(peak / 1024) MB" }
        print(line)
    }

    /// Writes one line to stderr, unbuffered, so it is never lost or mixed with curses output.
    ///
    /// Every control character in it, newlines included, is escaped on the way
    /// (``UntrustedText``): an error or a notice may quote a path, a name or a reason that an app
    /// or a stranger on a port chose, and must not move the cursor, retitle the window or forge
    /// a line of its own.
    static func printError(_ message: String) {
        writeToStandardError(UntrustedText.escaped(message))
    }

    /// Writes busmon's own text (usage, help), which may span lines, to stderr as it is.
    static func writeToStandardError(_ text: String) {
        var line = text
        if !line.hasSuffix("\n") { line += "\n" }
        // Nothing more can be done when stderr itself fails.
        _ = line.withUTF8 { BusWire.System.writeAll(STDERR_FILENO, UnsafeRawBufferPointer($0)) }
    }
}

/// The first SIGINT, SIGTERM or SIGHUP that came while a headless run set up its signal sources,
/// or 0.
/// Written by a signal handler: an atomic store is safe there.
private let signalBeforeSources = Atomic<Int32>(0)

extension Busmon {
    /// The positions of this process's arguments (without the program name) that are not
    /// valid UTF-8, as ``run(arguments:environment:undecodable:)`` takes them.
    package static func undecodableArguments() -> [Int] {
        System.undecodableArguments()
    }
}
