import BusFeed
import BusmonCore
import Dashboard
import EventBus
import Foundation
import Simulator
import TerminalUI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// busmon's command: reads the command line, picks what to run, and turns every outcome into
/// an exit status.
///
/// Exit status: 0 done (q or `--duration`), 1 cannot run (no terminal, unknown `TERM`, a mode
/// this build lacks), 2 bad command line, 128 + the signal number after SIGINT (130), SIGTERM
/// (143) or SIGHUP (129), as shells report a program killed by that signal.
enum Busmon {
    static func run(arguments: [String], environment: [String: String]) -> Int32 {
        let options: BusmonOptions
        do {
            switch try CommandLineParser.parse(arguments) {
            case .help:
                print(CommandLineParser.usage, terminator: "")
                return 0
            case .run(let parsed):
                options = parsed
            }
        } catch {
            printError("busmon: \(error)\n\n\(CommandLineParser.usage)")
            return 2
        }

        // The one place that decides how to run; each mode plugs in here.
        if options.headless { return unavailable("--headless") }
        switch options.source {
        case .attach: return unavailable("--attach")
        case .replay: return unavailable("--replay")
        case .simulator: break
        }
        if options.recordPath != nil { return unavailable("--record") }
        return runDashboard(options: options, environment: environment)
    }

    /// What the dashboard watches, and how to stop it when busmon quits.
    struct Session {
        let source: any DashboardSource
        let stop: () -> Void
        /// Events the watched app has published, when busmon can know it.
        var eventsPublished: () -> Int? = { nil }
    }

    /// Starts the simulated app in this process, watched through its bus.
    static func startSimulation(options: BusmonOptions) -> Session {
        let bus = EventBus(name: "simulated app")
        // Without --seed every run differs; the header shows the seed so a run can be repeated.
        let seed = options.seed ?? UInt64.random(in: 1...99_999)
        let app = SimulatedApp(bus: bus, seed: seed, rate: Double(options.rate))
        let source = LocalBusSource(bus: bus, title: "simulated app (seed \(seed))") { command in
            switch command {
            case .increaseRate: return "rate \(Int(app.increaseRate()))/s"
            case .decreaseRate: return "rate \(Int(app.decreaseRate()))/s"
            case .destroyScreens: return "destroyed \(app.destroyScreens()) screens"
            }
        }
        app.start()
        return Session(
            source: source, stop: { app.stop() }, eventsPublished: { app.statistics.eventsPublished })
    }

    private static func runDashboard(options: BusmonOptions, environment: [String: String]) -> Int32 {
        let signals: SignalWatcher
        do {
            // Before curses starts, so curses leaves SIGINT/SIGTERM to us.
            signals = try SignalWatcher(signals: [SIGINT, SIGTERM, SIGHUP])
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
        let session = startSimulation(options: options)
        defer { session.stop() }
        let screen = DashboardController(source: session.source, options: dashboardOptions)
        let report = FrameLoop(
            terminal: terminal, signals: signals, screen: screen, duration: options.duration
        )
        .run()
        terminal.stop()
        session.stop()

        switch report.end {
        case .quit, .durationElapsed:
            printSummary(report, events: session.eventsPublished())
            return 0
        case .signal(let signal):
            // After SIGHUP the terminal is gone; there is nobody to tell.
            if signal != SIGHUP { printSummary(report, events: session.eventsPublished()) }
            return 128 + signal
        }
    }

    /// One line after the screen closes, such as
    /// "busmon: 250 frames in 10.0 s (25.0 frames/s), 2000 events, peak memory 21 MB",
    /// which is also how the frame rate and memory goals are measured.
    private static func printSummary(_ report: LoopReport, events: Int?) {
        let tenths = Int((report.seconds * 10).rounded())
        let rate = report.seconds > 0 ? Double(report.frames) / report.seconds : 0
        var line = "busmon: \(report.frames) frames in \(tenths / 10).\(tenths % 10) s"
        line += " (\(Double(Int(rate * 10)) / 10) frames/s)"
        if let events { line += ", \(events) events" }
        var usage = rusage()
        if getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 {
            line += ", peak memory \(usage.ru_maxrss / 1024) MB"  // ru_maxrss is in KiB on Linux
        }
        print(line)
    }

    private static func unavailable(_ flag: String) -> Int32 {
        printError("busmon: \(flag) is not available in this build yet")
        return 1
    }

    /// Writes a line to stderr, unbuffered, so it is never lost or mixed with curses output.
    static func printError(_ message: String) {
        var line = message
        if !line.hasSuffix("\n") { line += "\n" }
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }
}
