import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// simapp's fastest publish rate alone and with `busmon --attach --headless` reading its tap, as
/// separate processes, the way a person watches an app.
///
/// Both programs are looked up next to busbench (`swift build -c release` builds them there).
/// Runs alternate, alone then attached, so drifting machine load hits both alike.
struct AttachThroughput {
    let simapp: String
    let busmon: String
    let seconds: Double

    /// The two programs next to this executable, or `nil` when they are not built.
    init?(seconds: Double) {
        let folder = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]))
            .resolvingSymlinksInPath()
            .deletingLastPathComponent()
        let simapp = folder.appendingPathComponent("simapp").path
        let busmon = folder.appendingPathComponent("busmon").path
        guard FileManager.default.isExecutableFile(atPath: simapp),
            FileManager.default.isExecutableFile(atPath: busmon)
        else { return nil }
        self.simapp = simapp
        self.busmon = busmon
        self.seconds = seconds
    }

    /// Events per second simapp reported, alone and attached, for each round.
    func measure(rounds: Int) throws -> (alone: [Double], attached: [Double], monitorEvents: Int) {
        var alone: [Double] = []
        var attached: [Double] = []
        var monitorEvents = 0
        for round in 0..<rounds {
            alone.append(try runApp(socket: socketPath(round, "alone"), attach: false).rate)
            let watched = try runApp(socket: socketPath(round, "attached"), attach: true)
            attached.append(watched.rate)
            monitorEvents += watched.monitorEvents
        }
        return (alone, attached, monitorEvents)
    }

    private func socketPath(_ round: Int, _ label: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "busbench-\(getpid())-\(round)-\(label).sock"
        )
        .path
    }

    private func runApp(socket: String, attach: Bool) throws -> (rate: Double, monitorEvents: Int) {
        let app = Process()
        app.executableURL = URL(fileURLWithPath: simapp)
        // Far above what one thread can publish, so the app runs flat out.
        app.arguments = ["--tap", socket, "--rate", "10000000", "--duration", String(seconds)]
        let output = Pipe()
        app.standardOutput = output
        try app.run()

        var monitor: Process?
        let monitorOutput = Pipe()
        if attach {
            let deadline = Date().addingTimeInterval(5)
            while !FileManager.default.fileExists(atPath: socket), Date() < deadline { usleep(5_000) }
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
        if attach { reader.start() }

        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        app.waitUntilExit()
        if let monitor {
            monitor.terminate()
            monitor.waitUntilExit()
            while !reader.isFinished { usleep(5_000) }
        }
        guard let line = text.split(separator: "\n").last(where: { $0.contains("events/s)") }),
            let open = line.lastIndex(of: "("),
            let rate = Double(line[line.index(after: open)...].split(separator: " ").first ?? "")
        else {
            throw BenchFailure(description: "simapp printed no rate: \(text)")
        }
        return (rate, counter.events)
    }

    struct BenchFailure: Error, CustomStringConvertible {
        var description: String
    }
}

/// Counts the event lines a headless monitor wrote.
final class LineCounter: @unchecked Sendable {
    private(set) var events = 0

    func count(_ handle: FileHandle) {
        let marker = Array("\"kind\":\"event\"".utf8)
        while true {
            let data = handle.availableData
            if data.isEmpty { return }
            // Counting markers per chunk may miss one split across chunks; a few in millions.
            data.withUnsafeBytes { bytes in
                guard bytes.count >= marker.count else { return }
                var index = 0
                while index <= bytes.count - marker.count {
                    if bytes[index] == marker[0],
                        marker.indices.allSatisfy({ bytes[index + $0] == marker[$0] })
                    {
                        events += 1
                        index += marker.count
                    } else {
                        index += 1
                    }
                }
            }
        }
    }
}
