import BusTap
import EventBus
import Foundation
import ProcessTestSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// busmon's own CPU time, its dashboard drawn on a pseudo-terminal of 150x45 as a person's
/// terminal would show it, attached to an app's tap: one that publishes nothing, and simapp at
/// its default rate.
///
/// The figure is the CPU time `wait4` reports for busmon, user and system, over a short run and
/// a long one (`--duration`), the short run's subtracted from the long one's: what is left is
/// the cost of watching for the difference in time, without busmon's start (loading, curses'
/// setup, the first frames). The two runs alternate over the rounds and the median is taken.
struct BusmonCPU {
    /// The release busmon and simapp next to busbench.
    let busmon: String
    let simapp: String
    /// The build of ``busmon``: `release`, or `debug` when busbench itself is a debug build.
    let build: String
    /// The debug busmon that `swift build` makes beside a release busbench, when there is one.
    let debugBusmon: String?
    /// Seconds of the short and the long run.
    let shortRun: Double
    let longRun: Double
    let rounds: Int

    /// What can be watched.
    enum App {
        /// A bus with subscribers that publishes nothing, tapped in this process.
        case idle
        /// `simapp` at its default rate, 200 events a second.
        case simappDefaultRate
    }

    /// Finds the programs next to this executable; `nil` when they are not built.
    init?(quick: Bool) {
        guard let programs = System.builtPrograms("busmon", "simapp") else { return nil }
        busmon = programs[0]
        simapp = programs[1]
        let folder = System.programFolder
        build = folder.lastPathComponent == "release" ? "release" : "debug"
        // `.build/<triple>/release/busbench` beside `.build/<triple>/debug/busmon`.
        let debug = folder.deletingLastPathComponent().appendingPathComponent("debug/busmon").path
        debugBusmon =
            folder.lastPathComponent == "release" && FileManager.default.isExecutableFile(atPath: debug)
            ? debug : nil
        shortRun = quick ? 0.5 : 2
        longRun = quick ? 1 : 12
        rounds = quick ? 1 : 3
    }

    /// busmon's CPU time per second of watching, as a share of one core (0.01 is 1%): the
    /// median over the rounds.
    func share(of busmon: String, watching app: App) throws -> Double {
        var shares: [Double] = []
        for round in 0..<rounds {
            let short = try cpuSeconds(of: busmon, watching: app, for: shortRun, round: round)
            let long = try cpuSeconds(of: busmon, watching: app, for: longRun, round: round)
            shares.append(max(0, long - short) / (longRun - shortRun))
        }
        return shares.sorted()[shares.count / 2]
    }

    /// Runs busmon attached to `app` for `seconds` and returns the CPU time it used.
    private func cpuSeconds(
        of busmon: String, watching app: App, for seconds: Double, round: Int
    ) throws
        -> Double
    {
        let socket = FileManager.default.temporaryDirectory
            .appendingPathComponent("busbench-cpu-\(getpid())-\(round)-\(Int(seconds * 10)).sock").path
        defer {
            unlink(socket)
            unlink(socket + ".lock")
        }
        var tap: BusTap?
        var observers: [IdleBenchScreen] = []
        var simappChild: RunningChild?
        var environment = ProcessInfo.processInfo.environment
        switch app {
        case .idle:
            let idleBus = EventBus()
            // Subscribers, so that its snapshots have rows to show; nothing is published.
            observers = (0..<10).map { _ in IdleBenchScreen() }
            for observer in observers {
                idleBus.subscribe(observer: observer) { (_: IdleBenchEvent) in }
            }
            tap = try BusTap(bus: idleBus, socketPath: socket, processName: "busbench-idle")
        case .simappDefaultRate:
            simappChild = try ChildProcess.start(simapp, ["--tap", socket], environment: environment)
            let deadline = Date().addingTimeInterval(5)
            while !FileManager.default.fileExists(atPath: socket), Date() < deadline { usleep(5_000) }
            // A busmon waiting for a socket that never came would measure nothing worth printing.
            guard FileManager.default.fileExists(atPath: socket) else {
                throw BenchFailure(description: "simapp made no tap at \(socket) within 5 s")
            }
        }
        defer {
            tap?.close()
            withExtendedLifetime(observers) {}
            simappChild?.send(SIGTERM)
            _ = try? simappChild?.wait(timeout: 5)
        }

        let terminal = try PseudoTerminal()
        environment["TERM"] = "xterm-256color"
        environment["LINES"] = "45"
        environment["COLUMNS"] = "150"
        let monitor = try ChildProcess.start(
            busmon, ["--attach", socket, "--duration", String(seconds)], environment: environment,
            terminal: terminal)
        // Take what it draws as a terminal would, so that it never waits on a full one; a busmon
        // that outlives its --duration by half a minute is killed and reported.
        let deadline = Date().addingTimeInterval(seconds + 30)
        while monitor.isRunning, Date() < deadline {
            terminal.drain()
            usleep(20_000)
        }
        let result = try monitor.wait(timeout: 1)
        guard result.status == 0 else {
            throw BenchFailure(description: "busmon exited with \(result.status): \(result.standardError)")
        }
        return result.cpuSeconds
    }

    struct BenchFailure: Error, CustomStringConvertible {
        var description: String
    }
}

/// The event type the idle bus's subscribers wait for; it is never published.
struct IdleBenchEvent: Event {}

/// An observer of the idle bus, as a screen of an app would be.
final class IdleBenchScreen: Sendable {}
