// A simulated app that other processes can watch: it runs the simulator on a bus and opens a
// tap on that bus, so `busmon --attach PATH` shows it live, or bridges the bus through NATS, so
// `busmon --attach nats://…` shows it among a fleet. It is also the example of how an app embeds
// either: one line, `let tap = try BusTap(bus: bus, socketPath: path)`, or
// `let bridge = try NATSBridge(bus: bus, url: url, app: "checkout")`.
//
//     swift run simapp --tap /tmp/simapp.sock [--rate N] [--seed N] [--duration S]
//     swift run --traits NATS simapp --nats nats://127.0.0.1:4222 --app checkout [--stream]
//     swift run simapp --connect 127.0.0.1:7777 --token TOKEN [--app NAME]
import BusTap
import EventBus
import EventBusNATS
import Foundation
import Simulator
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

let usage = """
    usage: simapp (--tap PATH | --connect HOST:PORT --token TOKEN | --nats URL [--stream])
                  [--app NAME] [--rate N] [--seed N] [--duration SECONDS]

    Runs a simulated app (logins, data loads, screens opening and closing) on an EventBus and
    streams its bus activity to monitors connected to the Unix socket at PATH:
        busmon --attach PATH
    or dials in to a busmon that listens (busmon --listen HOST:PORT), as an app on a phone does,
    or bridges it through a NATS server, where busmon watches every bridged app at once:
        busmon --attach nats://127.0.0.1:4222

      --tap PATH          where to create the tap socket
      --connect HOST:PORT dial in to the busmon listening there; with no busmon there yet,
                          keep running and connect once it starts
      --token TOKEN       the token that busmon shows (also BUSMON_TOKEN), with --connect
      --nats URL          bridge the bus through the NATS server at URL (nats://HOST:PORT);
                          needs a build with the NATS trait: swift run --traits NATS simapp …
      --app NAME          the app's name in busmon, with --connect or --nats (default simapp)
      --stream            have the bridge keep the fleet's history in the JetStream stream
                          EVENTBUS (the server needs -js), for busmon --since
      --rate N            events per second, 1 to 10000000, fractions allowed (default 200)
      --seed N            seed of the random choices (default 1)
      --duration SECONDS  stop after SECONDS (default: run until SIGINT or SIGTERM)
      -h, --help          show this help

    At least one of --tap, --connect and --nats is required; several may be given. On exit simapp prints
    how many events of each type its bus counted, then how many it published.

    """

struct Options {
    var tapPath: String?
    var monitorAddress: String?
    var token: String?
    var natsURL: String?
    var appName = "simapp"
    var stream = false
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
        case "--nats":
            options.natsURL = value(for: argument)
        case "--connect":
            options.monitorAddress = value(for: argument)
        case "--token":
            options.token = value(for: argument)
        case "--app":
            options.appName = value(for: argument)
            guard !options.appName.isEmpty else { fail("--app needs a non-empty name") }
        case "--stream":
            options.stream = true
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
    guard options.tapPath != nil || options.natsURL != nil || options.monitorAddress != nil else {
        fail("--tap PATH, --connect HOST:PORT or --nats URL is required")
    }
    if options.natsURL == nil, options.stream {
        fail("--stream only applies to --nats")
    }
    if options.natsURL == nil, options.monitorAddress == nil, arguments.contains("--app") {
        fail("--app only applies to --connect and --nats")
    }
    if options.monitorAddress != nil {
        options.token = options.token ?? ProcessInfo.processInfo.environment["BUSMON_TOKEN"]
        guard let token = options.token, !token.isEmpty else {
            fail("--connect needs --token TOKEN (the token busmon --listen shows), or BUSMON_TOKEN")
        }
    } else if arguments.contains("--token") {
        fail("--token only applies to --connect")
    }
    return options
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
let bus = EventBus(name: "simapp")

// The one line an app adds to be bridged, before the tap so that a build without NATS says so
// before anything starts.
var bridge: NATSBridge?
if let url = options.natsURL {
    // What simapp prints names the server without its password or token: its output reaches
    // terminals and logs.
    let shownURL = NATSServerURL.redacted(url)
    do {
        bridge = try NATSBridge(
            bus: bus, url: url, app: options.appName, stream: options.stream ? NATSStreamOptions() : nil)
    } catch .builtWithoutNATS {
        FileHandle.standardError.write(
            Data(
                """
                simapp: --nats needs a simapp built with the NATS trait (and nats.c: apt-get install libnats-dev):
                    swift run --traits NATS simapp --nats \(shownURL) --app \(options.appName)

                """.utf8))
        exit(2)
    } catch .invalidURL(_, let reason) {
        FileHandle.standardError.write(
            Data("simapp: --nats: not a NATS server URL: '\(shownURL)' (\(reason))\n".utf8))
        exit(2)
    } catch {
        FileHandle.standardError.write(Data("simapp: \(error)\n".utf8))
        exit(1)
    }
}

// The one line an app adds to be watched.
var tap: BusTap?
if let path = options.tapPath {
    do {
        tap = try BusTap(bus: bus, socketPath: path)
    } catch {
        FileHandle.standardError.write(Data("simapp: \(error)\n".utf8))
        exit(1)
    }
}

// Or the one line an app adds to dial in to a busmon on another machine (a Mac, for a phone).
var dialler: BusTap?
if let address = options.monitorAddress, let token = options.token {
    do {
        dialler = try BusTap(
            bus: bus, monitor: address, token: token, app: options.appName,
            onStatus: { status in
                FileHandle.standardError.write(Data("simapp: \(status)\n".utf8))
            })
    } catch {
        FileHandle.standardError.write(Data("simapp: --connect: \(error)\n".utf8))
        exit(2)
    }
}

let app = SimulatedApp(bus: bus, seed: options.seed, rate: options.rate)
let started = Date()
app.start()
var watchedThrough: [String] = []
if let path = options.tapPath { watchedThrough.append("tap at \(path)") }
if let url = options.natsURL {
    watchedThrough.append("bridged to \(NATSServerURL.redacted(url)) as \(options.appName)")
}
if let address = options.monitorAddress {
    watchedThrough.append("dialling busmon at \(address) as \(options.appName)")
}
// A fractional rate is kept, and shown as given.
let shownRate = options.rate == options.rate.rounded() ? "\(Int(options.rate))" : "\(options.rate)"
print(
    "simapp: pid \(getpid()), publishing about \(shownRate) events/s; "
        + watchedThrough.joined(separator: ", "))

// Stop on SIGINT/SIGTERM or when the duration ends, whichever comes first.
let stop = DispatchSemaphore(value: 0)
// Until the sources hear signals, a handler notes one: ignored meanwhile (libdispatch installs
// its own handler only once a source is registered), a SIGTERM sent just after simapp started
// was lost, and simapp ran on.
EarlySignal.seen.store(false, ordering: .relaxed)
signal(SIGINT) { _ in EarlySignal.seen.store(true, ordering: .relaxed) }
signal(SIGTERM) { _ in EarlySignal.seen.store(true, ordering: .relaxed) }
let signalsRegistered = DispatchGroup()
let signalSources = [SIGINT, SIGTERM].map { number in
    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
    source.setEventHandler {
        stop.signal()
        // Wakes the main run loop below, which sleeps until main-queue work arrives.
        DispatchQueue.main.async {}
    }
    signalsRegistered.enter()
    source.setRegistrationHandler { signalsRegistered.leave() }
    source.resume()
    return source
}
_ = signalsRegistered.wait(timeout: .now() + 1)
if EarlySignal.seen.load(ordering: .relaxed) { stop.signal() }
// The main thread runs the main run loop, as an app's does, until the signal or the end of the
// duration: what waits for the main actor (the app's main-actor handlers) runs as soon as it
// arrives. (Polled every 20 ms instead, the home screen's deliveries waited 10 ms on average.)
// Each turn returns once main-queue work ran; the duration's end and the signal handler wake it.
if let seconds = options.duration {
    DispatchQueue.main.asyncAfter(deadline: .now() + seconds) { stop.signal() }
}
while stop.wait(timeout: .now()) == .timedOut {
    _ = RunLoop.main.run(mode: .default, before: .distantFuture)
}

app.stop()
// The last events reach the server before the bridge's last snapshot says how many there were.
bridge?.flush()
bridge?.close()
tap?.close()
dialler?.close()
let seconds = Date().timeIntervalSince(started)
// Everything published on the bus: the traffic, and the events its handlers set off.
let published = bus.snapshot().totalPublished
let perType = bus.snapshot().eventTypes.filter { $0.published > 0 }.sorted { $0.typeName < $1.typeName }
print("simapp: by type " + perType.map { "\($0.typeName)=\($0.published)" }.joined(separator: " "))
print(
    "simapp: published \(published) events in \(String(format: "%.1f", seconds)) s"
        + " (\(Int(Double(published) / max(seconds, 0.001))) events/s)")
withExtendedLifetime(signalSources) {}

/// Whether SIGINT or SIGTERM came before the signal sources were registered; written by a
/// signal handler, where an atomic store is safe.
enum EarlySignal {
    static let seen = Atomic<Bool>(false)
}
