// A simulated app that other processes can watch: it runs the simulator on a bus and opens a
// tap on that bus, so `busmon --attach PATH` shows it live. It is also the example of how an
// app embeds the tap: one line, `let tap = try BusTap(bus: bus, socketPath: path)`.
//
//     swift run simapp --tap /tmp/simapp.sock [--rate N] [--seed N] [--duration S]
import BusTap
import EventBus
import Foundation
import Simulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

let usage = """
    usage: simapp --tap PATH [--rate N] [--seed N] [--duration SECONDS]

    Runs a simulated app (logins, data loads, screens opening and closing) on an EventBus and
    streams its bus activity to monitors connected to the Unix socket at PATH:
        busmon --attach PATH

      --tap PATH          where to create the tap socket (required)
      --rate N            events per second, 1 to 10000000 (default 200)
      --seed N            seed for a repeatable run (default 1)
      --duration SECONDS  stop after SECONDS (default: run until SIGINT or SIGTERM)
      -h, --help          show this help

    On exit simapp prints how many events it published.

    """

struct Options {
    var tapPath: String?
    var rate = 200.0
    var seed: UInt64 = 1
    var duration: Double?
}

/// Reads the command line; exits 0 for help and 2 with a message for a bad one.
func parseOptions(_ arguments: [String]) -> Options {
    func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("simapp: \(message)\n\n\(usage)".utf8))
        exit(2)
    }
    var options = Options()
    var index = 0
    func value(for flag: String) -> String {
        index += 1
        guard index < arguments.count, !arguments[index].hasPrefix("--") else {
            fail("\(flag) needs a value")
        }
        return arguments[index]
    }
    while index < arguments.count {
        let argument = arguments[index]
        switch argument {
        case "-h", "--help":
            print(usage, terminator: "")
            exit(0)
        case "--tap":
            options.tapPath = value(for: argument)
        case "--rate":
            let text = value(for: argument)
            guard let rate = Double(text), rate >= 1, rate <= SimulatedApp.maximumRate else {
                fail("--rate must be a number from 1 to \(Int(SimulatedApp.maximumRate)), not '\(text)'")
            }
            options.rate = rate
        case "--seed":
            let text = value(for: argument)
            guard let seed = UInt64(text) else { fail("--seed must be a whole number, not '\(text)'") }
            options.seed = seed
        case "--duration":
            let text = value(for: argument)
            guard let duration = Double(text), duration > 0, duration.isFinite else {
                fail("--duration must be a positive number of seconds, not '\(text)'")
            }
            options.duration = duration
        default:
            fail("unknown option '\(argument)'")
        }
        index += 1
    }
    guard options.tapPath != nil else { fail("--tap PATH is required") }
    return options
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
let bus = EventBus(name: "simapp")

// The one line an app adds to be watched.
let tap: BusTap
do {
    tap = try BusTap(bus: bus, socketPath: options.tapPath!)
} catch {
    FileHandle.standardError.write(Data("simapp: \(error)\n".utf8))
    exit(1)
}

let app = SimulatedApp(bus: bus, seed: options.seed, rate: options.rate)
let started = Date()
app.start()
print("simapp: pid \(getpid()), publishing about \(Int(options.rate)) events/s; tap at \(options.tapPath!)")

// Stop on SIGINT/SIGTERM or when the duration ends, whichever comes first.
let stop = DispatchSemaphore(value: 0)
signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
let signalSources = [SIGINT, SIGTERM].map { number in
    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
    source.setEventHandler { stop.signal() }
    source.resume()
    return source
}
if let duration = options.duration {
    _ = stop.wait(timeout: .now() + duration)
} else {
    stop.wait()
}

app.stop()
tap.close()
let seconds = Date().timeIntervalSince(started)
let published = app.statistics.eventsPublished
print(
    "simapp: published \(published) events in \(String(format: "%.1f", seconds)) s"
        + " (\(Int(Double(published) / max(seconds, 0.001))) events/s)")
withExtendedLifetime(signalSources) {}
