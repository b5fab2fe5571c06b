import Foundation
import ProcessTestSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// busmon's dashboard under a flood: an app publishing 100,000 events a second, drawn on a
/// pseudo-terminal of 120x40 that is read as fast as a terminal would, with the frames a second
/// and the peak memory that busmon's own exit line reports (`busmon: 250 frames in 10.0 s (25.0
/// frames/s), …, peak memory 21 MB`), the line a person reads after quitting.
///
/// Two ways in: the simulated app inside busmon (`busmon --rate 100000`, the bus in busmon's
/// process, its capture on the publisher's path) and simapp's tap (`busmon --attach`, every
/// event a wire line busmon reads and decodes). The app's own count says that it did publish
/// at the rate: simapp prints how many it published, and busmon its simulated app's.
struct BusmonFlood {
    /// The programs, as ``BusmonCPU`` finds them.
    let busmon: String
    let simapp: String
    let build: String
    /// Events a second the app is asked for.
    let rate: Int
    /// Seconds busmon runs.
    let seconds: Double

    /// What one run reported.
    struct Reading {
        /// Frames drawn a second, over busmon's whole run.
        var framesPerSecond: Double
        /// busmon's peak resident memory, in MiB.
        var peakMegabytes: Int
        /// Events a second the app published, by its own count.
        var publishedPerSecond: Double
    }

    /// Where the events come from.
    enum Source {
        /// busmon's simulated app, in its process.
        case inProcess
        /// simapp, through its tap.
        case attached
    }

    init?(quick: Bool) {
        guard let cpu = BusmonCPU(quick: quick) else { return nil }
        busmon = cpu.busmon
        simapp = cpu.simapp
        build = cpu.build
        rate = 100_000
        seconds = quick ? 1 : 10
    }

    /// Runs `busmon` watching `source` for ``seconds`` and returns what it reported.
    func measure(_ busmon: String, watching source: Source) throws -> Reading {
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm-256color"
        environment["LINES"] = "40"
        environment["COLUMNS"] = "120"
        var arguments = ["--duration", String(seconds)]
        var app: RunningChild?
        let socket = FileManager.default.temporaryDirectory
            .appendingPathComponent("busbench-flood-\(getpid()).sock").path
        defer {
            unlink(socket)
            unlink(socket + ".lock")
        }
        switch source {
        case .inProcess:
            arguments += ["--rate", String(rate)]
        case .attached:
            // The app outlives busmon's run, so that busmon watches a flood from start to end.
            let started = try ChildProcess.start(
                simapp, ["--tap", socket, "--rate", String(rate), "--duration", String(seconds + 5)],
                environment: environment)
            app = started
            let deadline = Date().addingTimeInterval(5)
            while !FileManager.default.fileExists(atPath: socket), Date() < deadline { usleep(5_000) }
            guard FileManager.default.fileExists(atPath: socket) else {
                throw BenchFailure(description: "simapp made no tap at \(socket) within 5 s")
            }
            arguments += ["--attach", socket]
        }
        defer {
            app?.send(SIGTERM)
            _ = try? app?.wait(timeout: 10)
        }

        let terminal = try PseudoTerminal()
        let monitor = try ChildProcess.start(busmon, arguments, environment: environment, terminal: terminal)
        var tail: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds + 30)
        while monitor.isRunning, Date() < deadline {
            terminal.drain(keepingTailIn: &tail)
            usleep(10_000)
        }
        let result = try monitor.wait(timeout: 1)
        terminal.drain(keepingTailIn: &tail)
        guard result.status == 0 else {
            throw BenchFailure(description: "busmon exited with \(result.status): \(result.standardError)")
        }
        let summary = String(decoding: tail, as: UTF8.self)
        guard let reading = Self.reading(ofSummary: summary) else {
            throw BenchFailure(description: "busmon printed no summary line: \(summary.suffix(300))")
        }
        var published = Double(reading.events ?? 0) / seconds
        if let app {
            app.send(SIGTERM)
            let ended = try app.wait(timeout: 10)
            published = try SimappOutput.publishedPerSecond(in: ended.standardError + ended.standardOutput)
        }
        return Reading(
            framesPerSecond: reading.framesPerSecond, peakMegabytes: reading.peakMegabytes,
            publishedPerSecond: published)
    }

    /// The frame rate, events and peak memory of busmon's exit line in `text`, such as
    /// `busmon: 250 frames in 10.0 s (25.0 frames/s), 2000 events, peak memory 21 MB`.
    static func reading(
        ofSummary text: String
    ) -> (framesPerSecond: Double, events: Int?, peakMegabytes: Int)? {
        // The line follows the escapes that closed the screen, on the same row.
        guard let start = text.range(of: "busmon: ", options: .backwards)?.lowerBound else { return nil }
        let line = text[start...].prefix { !$0.isNewline }
        guard let framesEnd = line.range(of: " frames/s)"),
            let open = line[..<framesEnd.lowerBound].lastIndex(of: "("),
            let frames = Double(line[line.index(after: open)..<framesEnd.lowerBound]),
            let memory = line.range(of: "peak memory "),
            let megabytes = Int(line[memory.upperBound...].prefix { $0.isNumber })
        else { return nil }
        var events: Int?
        if let count = line.range(of: " events")?.lowerBound {
            let digits = line[..<count].reversed().prefix { $0.isNumber }
            events = Int(String(digits.reversed()))
        }
        return (frames, events, megabytes)
    }

    struct BenchFailure: Error, CustomStringConvertible {
        var description: String
    }
}

/// What simapp prints when it ends.
enum SimappOutput {
    /// The rate of simapp's last line, `simapp: published 237134 events in 2.0 s (118362 events/s)`.
    static func publishedPerSecond(in text: String) throws -> Double {
        guard let line = text.split(separator: "\n").last(where: { $0.contains("events/s)") }),
            let open = line.lastIndex(of: "("),
            let rate = Double(line[line.index(after: open)...].split(separator: " ").first ?? "")
        else {
            throw BusmonFlood.BenchFailure(description: "simapp printed no rate: \(text)")
        }
        return rate
    }
}
