import BusWire
import Foundation
import ProcessTestSupport
import TestSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// simapp's fastest publish rate alone, with `busmon --attach --headless` reading its tap, and
/// dialled in to `busmon --listen --headless` over loopback TCP, as separate processes, the way a
/// person watches an app.
///
/// Both programs are looked up next to busbench (`swift build -c release` builds them there).
/// Each watched run comes between two runs of the app alone and is judged against their mean,
/// so that the machine's drift (on this 2-core virtual machine, back-to-back runs alone moved
/// between 350,000 and 660,000 events a second) weighs on both sides of each ratio alike.
struct AttachThroughput {
    let simapp: String
    let busmon: String
    let seconds: Double

    /// The two programs next to this executable, or `nil` when they are not built.
    init?(seconds: Double) {
        guard let programs = System.builtPrograms("simapp", "busmon") else { return nil }
        simapp = programs[0]
        busmon = programs[1]
        self.seconds = seconds
    }

    /// How the app is watched in one run.
    enum Link {
        /// Not at all: a tap nobody reads.
        case none
        /// busmon attached to the tap's Unix socket, writing every record it takes to stdout.
        case tap
        /// busmon's dashboard attached to the tap's Unix socket, drawn on a pseudo-terminal of
        /// 150x45, the way a person watches an app.
        case dashboard
        /// The app dialled in to busmon listening on loopback TCP.
        case dialIn

        /// The ways of watching measured, in the order a round runs them.
        static let watched: [Link] = [.tap, .dashboard, .dialIn]
    }

    /// One round: the app alone before each watched run and after the last, and each watched
    /// run's rate and what its monitor received.
    struct Round {
        /// Events per second alone: before the first watched run, between them, after the last.
        var alone: [Double] = []
        /// Events per second watched, by link.
        var watched: [Link: Double] = [:]
        /// The dashboard's CPU time per second it ran.
        var dashboardCPU = 0.0
        var attachedMonitorEvents = 0
        var dialledInMonitorEvents = 0

        /// The rate watched over `link` against the mean of the runs alone on either side.
        func ratio(_ link: Link) -> Double {
            guard let index = Link.watched.firstIndex(of: link), index + 1 < alone.count,
                let rate = watched[link]
            else { return .nan }
            return rate / ((alone[index] + alone[index + 1]) / 2)
        }
    }

    /// Runs `rounds` rounds: alone, attached, alone, dashboard, alone, dialled in, alone.
    func measure(rounds: Int) throws -> [Round] {
        try (0..<rounds).map { round in
            var result = Round()
            result.alone.append(try runApp(socket: socketPath(round, "alone-0"), link: .none).rate)
            for (index, link) in Link.watched.enumerated() {
                let run = try runApp(socket: socketPath(round, "\(link)"), link: link)
                result.watched[link] = run.rate
                switch link {
                case .tap: result.attachedMonitorEvents += run.monitorEvents
                case .dialIn: result.dialledInMonitorEvents += run.monitorEvents
                case .dashboard: result.dashboardCPU = run.monitorCPU
                case .none: break
                }
                result.alone.append(
                    try runApp(socket: socketPath(round, "alone-\(index + 1)"), link: .none).rate)
            }
            return result
        }
    }

    private func socketPath(_ round: Int, _ label: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "busbench-\(getpid())-\(round)-\(label).sock"
        )
        .path
    }

    /// Runs simapp flat out, watched over `link`: returns its publish rate, the event lines a
    /// headless monitor wrote, and a dashboard's CPU time per second it ran (0 without one).
    private func runApp(
        socket: String, link: Link
    ) throws -> (rate: Double, monitorEvents: Int, monitorCPU: Double) {
        var monitor: Process?
        var dashboard: (child: RunningChild, terminal: PseudoTerminal, started: Date)?
        let monitorOutput = Pipe()
        // Far above what one thread can publish, so the app runs flat out.
        var arguments = ["--tap", socket, "--rate", "10000000", "--duration", String(seconds)]
        if link == .dialIn {
            // busmon first, so that the app's whole run is watched.
            let port = try LoopbackPort.free()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: busmon)
            process.arguments = ["--listen", "127.0.0.1:\(port)", "--token", "busbench-token", "--headless"]
            process.standardOutput = monitorOutput
            process.standardError = FileHandle.nullDevice
            try process.run()
            monitor = process
            let deadline = Date().addingTimeInterval(5)
            while !LoopbackPort.accepts(port), Date() < deadline { usleep(5_000) }
            arguments =
                ["--connect", "127.0.0.1:\(port)", "--token", "busbench-token"] + arguments.dropFirst(2)
        }
        let app = Process()
        app.executableURL = URL(fileURLWithPath: simapp)
        app.arguments = arguments
        let output = Pipe()
        app.standardOutput = output
        app.standardError = FileHandle.nullDevice
        try app.run()

        if link == .tap || link == .dashboard {
            let deadline = Date().addingTimeInterval(5)
            while !FileManager.default.fileExists(atPath: socket), Date() < deadline { usleep(5_000) }
        }
        if link == .dashboard {
            let terminal = try PseudoTerminal()
            var environment = ProcessInfo.processInfo.environment
            environment["TERM"] = "xterm-256color"
            environment["LINES"] = "45"
            environment["COLUMNS"] = "150"
            let child = try ChildProcess.start(
                busmon, ["--attach", socket], environment: environment, terminal: terminal)
            dashboard = (child, terminal, Date())
        }
        if link == .tap {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: busmon)
            process.arguments = ["--attach", socket, "--headless"]
            process.standardOutput = monitorOutput
            // Its notices (attached, detached) are for a person at a terminal, not this report.
            process.standardError = FileHandle.nullDevice
            try process.run()
            monitor = process
        }
        // Drain the monitor's output as it comes, as a script reading it would.
        let counter = LineCounter()
        let reader = Thread { counter.count(monitorOutput.fileHandleForReading) }
        if link == .tap || link == .dialIn { reader.start() }

        // An app that runs on past its duration is a failure to report, not a hang.
        let pid = app.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds + Self.overrun, execute: watchdog)
        var bytesDrawn = 0
        if let dashboard {
            // Take what it draws as a terminal would, so that it never waits on a full one; the
            // app prints a few lines, which its pipe holds meanwhile.
            while app.isRunning {
                bytesDrawn += dashboard.terminal.drain()
                usleep(20_000)
            }
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        app.waitUntilExit()
        watchdog.cancel()
        if app.terminationReason == .uncaughtSignal {
            monitor?.terminate()
            dashboard?.child.send(SIGKILL)
            _ = try? dashboard?.child.wait(timeout: 5)
            throw BenchFailure(
                description: "simapp did not stop within \(Int(Self.overrun)) s of its --duration \(seconds)")
        }
        if let monitor {
            monitor.terminate()
            monitor.waitUntilExit()
            while !reader.isFinished { usleep(5_000) }
        }
        var monitorCPU = 0.0
        if let dashboard {
            dashboard.child.send(SIGTERM)
            bytesDrawn += dashboard.terminal.drain()
            let ended = try dashboard.child.wait(timeout: 10)
            // A dashboard that never ran would leave the app's rate as if alone.
            guard ended.status == 0 || ended.status == 128 + SIGTERM, bytesDrawn > 0 else {
                throw BenchFailure(
                    description:
                        "busmon's dashboard exited with \(ended.status) after drawing \(bytesDrawn) bytes: "
                        + ended.standardError)
            }
            monitorCPU = ended.cpuSeconds / max(0.001, Date().timeIntervalSince(dashboard.started))
        }
        let rate = try SimappOutput.publishedPerSecond(in: text)
        return (rate, counter.events, monitorCPU)
    }

    /// Seconds an app may run past its duration (its start and its last snapshot) before it
    /// is killed and the measurement fails.
    static let overrun = 30.0

    struct BenchFailure: Error, CustomStringConvertible {
        var description: String
    }
}

/// Counts the event lines a headless monitor wrote.
///
/// It runs beside the app and busmon on the same cores, so it reads as a script that only
/// counts would: `memchr` from one line's end to the next, and a look at the first bytes of each
/// line (busmon writes `{"kind":"event"` first on every event line). A byte-by-byte search for
/// the marker took a few percent of a core at the rates simapp reaches, time the rows above
/// would have counted against busmon.
final class LineCounter: @unchecked Sendable {
    private(set) var events = 0

    func count(_ handle: FileHandle) {
        let marker = Array("{\"kind\":\"event\"".utf8)
        // The start of a line cut off at the end of a chunk, until it is long enough to judge.
        var head: [UInt8] = []
        var atLineStart = true
        while true {
            let data = handle.availableData
            if data.isEmpty { return }
            data.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                var index = 0
                while index < bytes.count {
                    if atLineStart {
                        let wanted = marker.count - head.count
                        let taken = min(wanted, bytes.count - index)
                        head.append(
                            contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<index + taken]))
                        guard head.count == marker.count else { return }
                        if head == marker { events += 1 }
                        head.removeAll(keepingCapacity: true)
                        atLineStart = false
                    }
                    guard let newline = memchr(base + index, 0x0A, bytes.count - index) else { return }
                    index = base.distance(to: UnsafeRawPointer(newline)) + 1
                    atLineStart = true
                }
            }
        }
    }
}
