import BusWire
import EventBus
import EventBusNATS
import Foundation
import NATSClient
import TestSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The NATS bridge measured against its floor, on a nats-server of busbench's own: forwarding
/// rate against nats.c publishing the same bytes from a bare loop, the publisher's cost with a
/// bridge attached (server up, and server down) against none, and the latency from a publish on
/// one bus to a handler on another at 10,000 events a second.
///
/// Only with the package's `NATS` trait; without it the section says how to get it.
enum BridgeBench {
    /// What the section measured, for the report's targets and sanity list.
    struct Outcome {
        var checks: [TargetCheck] = []
        var failures: [String] = []
    }

    static func run(quick: Bool, sampler: Sampler) -> Outcome {
        #if NATS
            guard let executable = BenchNATSServer.executable else {
                print("NATS bridge: skipped; nats-server not installed: apt-get install nats-server\n")
                return Outcome()
            }
            do {
                return try measure(executable: executable, quick: quick, sampler: sampler)
            } catch {
                return Outcome(failures: ["NATS bridge: \(error)"])
            }
        #else
            print(
                "NATS bridge: skipped; built without the NATS trait "
                    + "(swift run -c release --traits NATS busbench)\n")
            return Outcome()
        #endif
    }
}

/// The event the publisher's cost is measured with: `Codable`, and as small as ``BenchEvent``
/// (two words, which an existential holds inline), so that the rows compare with the capture's.
struct BridgeCostEvent: BenchPayload, Codable {
    let value: Int
    let lane: Int
}

/// The event the throughput and latency measurements publish: `Codable`, carrying its publish
/// time.
struct BridgeBenchEvent: BenchPayload, Codable {
    let value: Int
    let lane: Int
    /// Monotonic seconds when it was published, for the latency measurement.
    var sentAt: Double = 0
    var note = "bench"

    init(value: Int, lane: Int) {
        self.value = value
        self.lane = lane
    }
}

#if NATS
    extension BridgeBench {
        fileprivate struct Failure: Error, CustomStringConvertible {
            var description: String
        }

        private static func measure(executable: String, quick: Bool, sampler: Sampler) throws -> Outcome {
            var outcome = Outcome()
            let server = try BenchNATSServer(executable: executable)
            defer { server.stop() }

            // Throughput: events forwarded end to end, bridge against bare nats.c, alternating.
            let events = quick ? 2_000 : 200_000
            let rounds = quick ? 1 : 5
            var bridgeRates: [Double] = []
            var directRates: [Double] = []
            var sample: (subject: String, payload: [UInt8])?
            for _ in 0..<rounds {
                let bridged = try bridgeThroughput(url: server.url, events: events)
                bridgeRates.append(bridged.rate)
                sample = sample ?? bridged.sample
                guard let sample else { throw Failure(description: "the bridge sent nothing") }
                directRates.append(
                    try directThroughput(
                        url: server.url, subject: sample.subject, payload: sample.payload, count: events)
                )
                if bridged.received != events {
                    outcome.failures.append(
                        "NATS bridge throughput: \(bridged.received) of \(events) arrived")
                }
            }
            let bridgeRate = Sampler.median(bridgeRates)
            let directRate = Sampler.median(directRates)
            print("NATS bridge throughput: \(events) events, published flat out, until a subscriber has all")
            print(
                TextTable.render(
                    header: ["sender", "events/s (median of \(rounds))", "vs nats.c"],
                    rows: [
                        ["nats.c, same bytes, no bus", String(format: "%.0f", directRate), "1.00x"],
                        [
                            "EventBus + NATSBridge", String(format: "%.0f", bridgeRate),
                            TargetCheck.format(bridgeRate / directRate) + "x",
                        ],
                    ]))
            print(
                "(\(sample?.payload.count ?? 0)-byte envelopes on one subject; a second connection subscribed to "
                    + "their subject;\n the bridge's queue holds every event, so none is dropped)\n")
            outcome.checks.append(
                .atLeast("bridge / nats.c direct (events forwarded per s)", bridgeRate / directRate, 0.8))

            // The publisher's cost: no bridge, a bridge with the server up, one with it down.
            let subscribers = 10
            let plain = BridgedBus(subscribers: subscribers, url: nil)
            let up = BridgedBus(subscribers: subscribers, url: server.url)
            let down = BridgedBus(
                subscribers: subscribers, url: "nats://127.0.0.1:\(try LoopbackPort.free())")
            let medians = sampler.medianNanosecondsPerUnit([plain.workload, up.workload, down.workload])
            for bus in [plain, up, down] {
                if !bus.accumulators.verify() {
                    outcome.failures.append("NATS bridge publish: sums are wrong")
                }
                bus.tearDown()
            }
            print(
                "Publish with a NATSBridge attached, token form, \(subscribers) subscribers, ns per publish")
            print(
                TextTable.render(
                    header: ["bridge", "ns per publish", "vs no bridge", "forwarded", "dropped"],
                    rows: [
                        ["none", TextTable.nanoseconds(medians[0]), "1.00x", "-", "-"],
                        [
                            "server up", TextTable.nanoseconds(medians[1]),
                            TargetCheck.format(medians[1] / medians[0]) + "x", "\(up.statistics.forwarded)",
                            "\(up.statistics.dropped)",
                        ],
                        [
                            "server down", TextTable.nanoseconds(medians[2]),
                            TargetCheck.format(medians[2] / medians[0]) + "x", "\(down.statistics.forwarded)",
                            "\(down.statistics.dropped)",
                        ],
                    ]))
            print(
                "(a publisher flat out outruns any network: the queue keeps the newest 10,000 and drops the\n"
                    + " oldest, on the publisher's thread, without waiting; rounds interleaved)\n")
            outcome.checks.append(
                .atMost("publish with bridge, server up / no bridge", medians[1] / medians[0], 1.5))
            outcome.checks.append(
                .atMost("publish with bridge, server down / no bridge", medians[2] / medians[0], 1.5))

            // Latency between two bridged buses at 10,000 events/s.
            let latency = try latencyBetweenBridges(
                url: server.url, count: quick ? 200 : 20_000, rate: 10_000)
            print("NATS bridge latency, publish on one bus to the handler on another, 10,000 events/s")
            print(
                TextTable.render(
                    header: ["events", "received", "p50", "p99", "max"],
                    rows: [
                        [
                            "\(latency.sent)", "\(latency.received)", microseconds(latency.p50),
                            microseconds(latency.p99), microseconds(latency.max),
                        ]
                    ]))
            print("(two buses and bridges in this process, each with its own connection to the server)\n")
            if latency.received != latency.sent {
                outcome.failures.append("NATS bridge latency: \(latency.received) of \(latency.sent) arrived")
            }
            outcome.checks.append(
                TargetCheck(
                    label: "bridge latency p99 at 10,000 events/s", value: latency.p99, target: "< 1 ms",
                    passes: latency.p99 < 1e-3, formattedValue: microseconds(latency.p99)))
            return outcome
        }

        private static func microseconds(_ seconds: Double) -> String {
            String(format: "%.0f us", seconds * 1e6)
        }

        /// Publishes `events` on a bridged bus as fast as it can and times them until a plain
        /// subscriber has them all.
        private static func bridgeThroughput(
            url: String, events: Int
        ) throws -> (
            rate: Double, received: Int, sample: (subject: String, payload: [UInt8])?
        ) {
            let counter = try NATSProbe(url: url)
            defer { counter.close() }
            // The event type's subject only: the bridge also sends its monitoring records
            // (snapshots, its state) under `eventbus.bench.`, which are not the events counted.
            counter.count("eventbus.*.\(String(describing: BridgeBenchEvent.self))", expected: events)
            let bus = EventBus(name: "bridge-throughput")
            let bridge = try NATSBridge(
                bus: bus, url: url, app: "bench", options: NATSBridgeOptions(queueCapacity: events))
            defer { bridge.close() }
            let start = monotonicSeconds()
            for value in 0..<events { bus.publish(BridgeBenchEvent(value: value, lane: 0)) }
            let received = counter.waitForCount(timeout: 60)
            let elapsed = (counter.lastArrival ?? monotonicSeconds()) - start
            if bridge.statistics.dropped > 0 {
                throw Failure(description: "the bridge dropped \(bridge.statistics.dropped) events")
            }
            return (Double(received) / elapsed, received, counter.firstMessage)
        }

        /// Publishes `payload` on `subject` `count` times from a bare nats.c loop, timed until a
        /// plain subscriber has them all.
        private static func directThroughput(
            url: String, subject: String, payload: [UInt8], count: Int
        ) throws
            -> Double
        {
            let counter = try NATSProbe(url: url)
            defer { counter.close() }
            counter.count(subject, expected: count)
            let publisher = try NATSProbe(url: url)
            defer { publisher.close() }
            let start = monotonicSeconds()
            publisher.publish(subject: subject, payload: payload, count: count)
            let received = counter.waitForCount(timeout: 60)
            return Double(received) / ((counter.lastArrival ?? monotonicSeconds()) - start)
        }

        private static func latencyBetweenBridges(
            url: String, count: Int, rate: Double
        ) throws -> (
            sent: Int, received: Int, p50: Double, p99: Double, max: Double
        ) {
            let senderBus = EventBus(name: "latency-sender")
            let receiverBus = EventBus(name: "latency-receiver")
            let sender = try NATSBridge(bus: senderBus, url: url, app: "latency-sender")
            let receiver = try NATSBridge(bus: receiverBus, url: url, app: "latency-receiver")
            defer {
                sender.close()
                receiver.close()
            }
            receiver.receive(BridgeBenchEvent.self)
            let delays = LockedValue<[Double]>([])
            delays.withLock { $0.reserveCapacity(count) }
            let token = receiverBus.subscribe(to: BridgeBenchEvent.self) { event in
                let delay = monotonicSeconds() - event.sentAt
                delays.withLock { $0.append(delay) }
            }
            defer { token.cancel() }
            _ = receiver.flush()
            // Paced to the rate by sleeping to each slot: spinning would take a core from the
            // threads measured, on a machine with two.
            let interval = 1 / rate
            let start = monotonicSeconds()
            for value in 0..<count {
                let wait = start + Double(value) * interval - monotonicSeconds()
                if wait > 0 { usleep(UInt32(wait * 1e6)) }
                var event = BridgeBenchEvent(value: value, lane: 0)
                event.sentAt = monotonicSeconds()
                senderBus.publish(event)
            }
            _ = sender.flush()
            let deadline = monotonicSeconds() + 5
            while delays.withLock({ $0.count }) < count && monotonicSeconds() < deadline { usleep(1_000) }
            let sorted = delays.withLock { $0 }.sorted()
            guard !sorted.isEmpty else { throw Failure(description: "no event crossed between the bridges") }
            func percentile(_ share: Double) -> Double {
                sorted[min(sorted.count - 1, Int(Double(sorted.count) * share))]
            }
            return (count, sorted.count, percentile(0.5), percentile(0.99), sorted.last!)
        }
    }

    /// A bus with token subscribers, bridged to `url` (or not bridged at all), for the
    /// publisher's cost.
    private final class BridgedBus {
        let accumulators: Accumulators
        let bus = EventBus(name: "busbench-bridged")
        private var tokens: [Subscription] = []
        private let bridge: NATSBridge?

        init(subscribers: Int, url: String?) {
            let accumulators = Accumulators(subscribers: subscribers)
            let bus = bus
            self.accumulators = accumulators
            // A bridge to a server that is down starts anyway and keeps trying: the case where
            // the publisher must not wait.
            bridge = url.flatMap {
                try? NATSBridge(
                    bus: bus, url: $0, app: "publish-cost",
                    options: NATSBridgeOptions(whenUnreachable: .keepTrying))
            }
            tokens = (0..<subscribers).map { index in
                let cell = accumulators.cell(index)
                return bus.subscribe(to: BridgeCostEvent.self) { event in cell.add(event) }
            }
        }

        var statistics: NATSBridgeStatistics { bridge?.statistics ?? NATSBridgeStatistics() }

        var workload: Workload {
            Workload(unitsPerIteration: 1) { count in
                for value in 0..<count { self.bus.publish(BridgeCostEvent(value: value, lane: 0)) }
                self.accumulators.expectPublished(count: count)
            }
        }

        func tearDown() {
            bridge?.close()
            for token in tokens { token.cancel() }
            tokens = []
        }
    }

    /// A nats-server on a free loopback port, for the length of the section. busbench cannot use
    /// the tests' fixture (TestSupport is not a product), so it keeps this small launcher; the
    /// port helpers are BusWire's, shared with that fixture.
    private final class BenchNATSServer {
        static let executable: String? = {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
            let folders =
                path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/usr/local/bin"]
            return folders.map { $0 + "/nats-server" }.first {
                FileManager.default.isExecutableFile(atPath: $0)
            }
        }()

        let url: String
        private let process = Process()

        init(executable: String) throws {
            let port = try LoopbackPort.free()
            url = "nats://127.0.0.1:\(port)"
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["-a", "127.0.0.1", "-p", String(port)]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = monotonicSeconds() + 10
            while !LoopbackPort.accepts(port) {
                guard process.isRunning, monotonicSeconds() < deadline else {
                    stop()
                    throw BridgeBench.Failure(description: "nats-server did not listen on port \(port)")
                }
                usleep(10_000)
            }
        }

        deinit {
            stop()
        }

        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// Monotonic seconds, the clock the probes' arrival times are read on.
    private func monotonicSeconds() -> Double {
        NATSProbe.monotonicSeconds()
    }
#endif
