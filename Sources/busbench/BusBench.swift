import BusMonitor
import Foundation

/// Measures the EventBus side by side with NotificationCenter, a naive bus and a closure array,
/// and prints the figures, their ratios and the targets they are held against.
@main
@MainActor
struct BusBench {
    static let subscriberCounts = [1, 10, 100]

    static func main() async {
        let quick: Bool
        let sections: Set<BenchSection>
        switch BenchOptions.parse(CommandLine.arguments.dropFirst()) {
        case .run(let isQuick, let chosen):
            quick = isQuick
            sections = chosen
        case .help:
            print(BenchOptions.usage)
            exit(0)
        case .invalid(let message):
            FileHandle.standardError.write(Data((message + "\n" + BenchOptions.usage + "\n").utf8))
            exit(2)
        }
        var bench = BusBench(sampler: quick ? .quick : .full, quick: quick, sections: sections)
        await bench.run()
        exit(bench.sanityFailures.isEmpty ? 0 : 1)
    }

    let sampler: Sampler
    let quick: Bool
    let sections: Set<BenchSection>
    private(set) var sanityFailures: [String] = []
    private var checks: [TargetCheck] = []

    init(sampler: Sampler, quick: Bool, sections: Set<BenchSection> = Set(BenchSection.allCases)) {
        self.sampler = sampler
        self.quick = quick
        self.sections = sections
    }

    mutating func run() async {
        printHeader()
        if sections.contains(.deliveries) { measureDeliveries() }
        if sections.contains(.mainactor) { await measureMainActorDelivery() }
        if sections.contains(.threads) { measureThreadScaling() }
        if sections.contains(.monitor) { measureMonitorOverhead() }
        if sections.contains(.why) {
            let why = WhyCosts.run(sampler: sampler)
            checks += why.checks
            sanityFailures += why.failures
        }
        if sections.contains(.churn) { measureObserverChurn() }
        if sections.contains(.snapshot) { measureSnapshotCost() }
        if sections.contains(.attach) { measureAttach() }
        if sections.contains(.busmon) { measureBusmonCPU() }
        if sections.contains(.flood) { measureBusmonFlood() }
        if sections.contains(.bridge) {
            let bridge = BridgeBench.run(quick: quick, sampler: sampler)
            checks += bridge.checks
            sanityFailures += bridge.failures
        }
        printTargets()
    }

    private func printHeader() {
        let machine = MachineDescription.current()
        print("busbench - EventBus delivery costs")
        print("date:    \(machine.date)")
        print("cpu:     \(machine.cpuModel), \(machine.onlineCores) cores online")
        print("load:    \(machine.loadAverage) (1/5/15 min)")
        #if DEBUG
            print("build:   debug - figures are not meaningful; use swift run -c release busbench")
        #else
            print("build:   release")
        #endif
        if quick { print("mode:    --quick (tiny iteration counts; checks that the code runs)") }
        let roundMilliseconds = String(format: "%.0f", sampler.roundNanoseconds / 1e6)
        print(
            "timing:  ContinuousClock; calibration and warm-up, then the median of \(sampler.rounds) rounds "
                + "of ~\(roundMilliseconds) ms\n         (two-thread runs: 15 rounds of ~20 ms), "
                + "rounds interleaved between the variants compared\n")
    }

    // MARK: - Per-delivery cost

    private mutating func measureDeliveries() {
        var nanoseconds: [DeliveryVariantKind: [Int: Double]] = [:]
        for subscribers in Self.subscriberCounts {
            let kinds = DeliveryVariantKind.allCases
            let variants = kinds.map { $0.make(subscribers: subscribers) }
            let medians = sampler.medianNanosecondsPerUnit(variants.map(\.workload))
            for (index, kind) in kinds.enumerated() {
                nanoseconds[kind, default: [:]][subscribers] = medians[index]
                let variant = variants[index]
                sanityCheck(
                    variant.verify(), "\(kind.label), \(subscribers) subscribers: handler sums are wrong")
                sanityCheck(
                    variant.countersAreExact(),
                    "\(kind.label), \(subscribers) subscribers: bus counters disagree with deliveries")
                variant.tearDown()
            }
        }

        print("Per-delivery cost, ns per handler call (lower is better)")
        let rows = DeliveryVariantKind.allCases.map { kind in
            [kind.label] + Self.subscriberCounts.map { TextTable.nanoseconds(nanoseconds[kind]?[$0] ?? .nan) }
        }
        print(TextTable.render(header: ["variant"] + Self.subscriberCounts.map { "\($0) subs" }, rows: rows))
        print()

        func cost(_ kind: DeliveryVariantKind, _ subscribers: Int) -> Double {
            nanoseconds[kind]?[subscribers] ?? .nan
        }
        checks.append(
            .atLeast(
                "token form vs NotificationCenter, 100 subscribers (times faster)",
                cost(.notificationCenter, 100) / cost(.busToken, 100), 10))
        checks.append(
            .atMost(
                "token form / closure array, 100 subscribers (times the floor)",
                cost(.busToken, 100) / cost(.closureArray, 100), 0.55))
        checks.append(
            .atLeast(
                "observer form vs NotificationCenter, 10 subscribers (times faster)",
                cost(.notificationCenter, 10) / cost(.busObserver, 10), 5))
        checks.append(
            .atLeast(
                "observer form vs naive bus, 10 subscribers (times faster)",
                cost(.naiveBus, 10) / cost(.busObserver, 10), 3))
    }

    // MARK: - Main-actor handlers

    private mutating func measureMainActorDelivery() async {
        measureMainActorParity()
        let subscribers = 10
        print("Handlers on the main actor, \(subscribers) subscribers, ns per handler call (lower is better)")
        print("Published on the main actor: the handler runs before publish returns")
        let onMain: [MainActorVariantKind] = [.busMainActor, .assumeIsolated]
        let onMainVariants = onMain.map { MainActorDelivery($0, subscribers: subscribers) }
        let onMainCosts = sampler.medianNanosecondsPerUnit(onMainVariants.map(\.publishingOnMainActor))
        print(
            TextTable.render(
                header: ["variant", "ns per call", "vs EventBus"],
                rows: onMain.indices.map { index in
                    [
                        onMain[index].label, TextTable.nanoseconds(onMainCosts[index]),
                        TargetCheck.format(onMainCosts[index] / onMainCosts[0]) + "x",
                    ]
                }))

        print("Published from another thread: queued to the main actor, the publisher does not wait")
        let elsewhere: [MainActorVariantKind] = [.busMainActor, .dispatchMainAsync]
        let elsewhereVariants = elsewhere.map { MainActorDelivery($0, subscribers: subscribers) }
        let events = quick ? 20 : 2_000
        let rounds = quick ? 2 : 15
        var perCall = Array(repeating: [Double](), count: elsewhere.count)
        var perPublish = Array(repeating: [Double](), count: elsewhere.count)
        // One warm-up round each, then rounds interleaved between the variants.
        for variant in elsewhereVariants { _ = await variant.publishFromAnotherThread(events: events) }
        for _ in 0..<rounds {
            for (index, variant) in elsewhereVariants.enumerated() {
                let cost = await variant.publishFromAnotherThread(events: events)
                perCall[index].append(cost.perCall)
                perPublish[index].append(cost.perPublish)
            }
        }
        func median(_ samples: [Double]) -> Double { samples.sorted()[samples.count / 2] }
        print(
            TextTable.render(
                header: ["variant", "ns per call, until run", "vs EventBus", "publisher ns per publish"],
                rows: elsewhere.indices.map { index in
                    [
                        elsewhere[index].label, TextTable.nanoseconds(median(perCall[index])),
                        TargetCheck.format(median(perCall[index]) / median(perCall[0])) + "x",
                        TextTable.nanoseconds(median(perPublish[index])),
                    ]
                }))
        print(
            "(from another thread: wall time from the first publish until the main actor has run every\n"
                + " handler call, over \(events) publishes; the median of \(rounds) rounds)")
        print()
        for (kind, variant) in zip(onMain + elsewhere, onMainVariants + elsewhereVariants) {
            sanityCheck(variant.verify(), "main actor, \(kind.label): sums or counters are wrong")
            variant.tearDown()
        }
    }

    /// Main-actor handlers against the same handlers written outside any actor, both published
    /// on the main actor, where app code publishes.
    private mutating func measureMainActorParity() {
        var mainActorAgainstNotificationCenter = Double.nan
        print("Main-actor handlers against the same handlers written outside any actor, published on")
        print("the main actor, ns per handler call (lower is better)")
        var rows: [[String]] = []
        for subscribers in Self.subscriberCounts {
            for form in MainActorParity.Form.allCases {
                let variants = [false, true].map {
                    MainActorParity(form: form, mainActor: $0, subscribers: subscribers)
                }
                // The app's commonest case, one main-actor screen hearing an event posted on the
                // main actor, against NotificationCenter doing the same, side by side.
                let notificationCenter =
                    subscribers == 1 && form == .token
                    ? DeliveryVariantKind.notificationCenter.make(subscribers: 1) : nil
                let costs = sampler.medianNanosecondsPerUnit(
                    variants.map(\.workload) + (notificationCenter.map { [$0.workload] } ?? []))
                if let notificationCenter {
                    sanityCheck(
                        notificationCenter.verify(), "NotificationCenter, 1 subscriber: sums are wrong")
                    notificationCenter.tearDown()
                    mainActorAgainstNotificationCenter = costs[2] / costs[1]
                }
                for variant in variants {
                    sanityCheck(
                        variant.verify(),
                        "main-actor parity, \(form.label), \(subscribers): sums or counters are wrong")
                    variant.tearDown()
                }
                let ratio = costs[1] / costs[0]
                let check = TargetCheck.atMost(
                    "main-actor handler vs outside any actor, \(form.label), \(subscribers) subscribers",
                    ratio,
                    1.5)
                checks.append(check)
                rows.append([
                    "\(subscribers)", form.label, TextTable.nanoseconds(costs[0]),
                    TextTable.nanoseconds(costs[1]),
                    check.formattedValue, check.passes ? "PASS" : "MISS",
                ])
            }
        }
        print(
            TextTable.render(
                header: ["subscribers", "form", "outside any actor", "main actor", "ratio", "≤ 1.5x"],
                rows: rows))
        print(
            "(one main-actor subscriber, token form, against NotificationCenter posting to one observer on "
                + "the main thread: " + TargetCheck.format(mainActorAgainstNotificationCenter) + "x faster)")
        print()
        checks.append(
            .atLeast(
                "main-actor handler, 1 subscriber, published on the main actor: token form vs NotificationCenter",
                mainActorAgainstNotificationCenter, 10))
    }

    // MARK: - Two publishing threads

    private mutating func measureThreadScaling() {
        let subscribers = 10
        print("Two publishing threads against one, token form, \(subscribers) subscribers per type")
        var rows: [[String]] = []
        for streams in [ThreadScaling.Streams.distinctTypes, .sameType, .closureArrays] {
            let scaling = ThreadScaling(streams: streams, subscribers: subscribers)
            // Longer rounds, so that starting two threads is a small part of each.
            let costs = sampler.withRounds(15, lasting: 20e6).medianCostPerUnit([
                scaling.oneThread, scaling.twoThreads,
            ])
            sanityCheck(scaling.verify(), "two threads, \(streams.label): sums or counters are wrong")
            scaling.tearDown()
            let ratio = costs[0].wallNanoseconds / costs[1].wallNanoseconds
            rows.append([
                streams.label, TextTable.nanoseconds(costs[0].wallNanoseconds),
                TextTable.nanoseconds(costs[1].wallNanoseconds), TargetCheck.format(ratio) + "x",
                TextTable.nanoseconds(costs[0].cpuNanoseconds),
                TextTable.nanoseconds(costs[1].cpuNanoseconds),
            ])
            switch streams {
            case .distinctTypes:
                checks.append(.atLeast("two threads / one, own type per thread (throughput)", ratio, 1.3))
            case .sameType:
                checks.append(.atLeast("two threads / one, same type (throughput, stress case)", ratio, 1.3))
            case .closureArrays:
                // The machine's own ceiling: a reference for the two rows above, not a target.
                break
            }
        }
        print(
            TextTable.render(
                header: [
                    "streams", "1 thread", "2 threads", "throughput 2/1", "CPU 1 thread", "CPU 2 threads",
                ],
                rows: rows))
        print(
            "(ns per publish, wall clock; CPU = process CPU time per publish, all threads. Equal CPU\n"
                + " figures with a throughput below 2x mean the cores were busy elsewhere, not contention.)")
        print()
    }

    // MARK: - Wildcard monitor

    private mutating func measureMonitorOverhead() {
        let subscribers = 10
        let overhead = MonitorOverhead(subscribers: subscribers)
        var rows: [[String]] = []
        var busmonRatio = Double.nan
        var everyEventRatio = Double.nan
        for interval in [CaptureDrainer.defaultInterval, MonitorOverhead.keepingEveryEventInterval] {
            let monitored = overhead.monitored(drainInterval: interval)
            let medians = sampler.medianNanosecondsPerUnit([overhead.withoutMonitor, monitored.workload])
            monitored.drainer.stop()
            sanityCheck(monitored.verify(), "busmon capture: sums, counters or captured events are wrong")
            monitored.tearDown()
            let ratio = medians[1] / medians[0]
            let isBusmon = interval == CaptureDrainer.defaultInterval
            if isBusmon { busmonRatio = ratio } else { everyEventRatio = ratio }
            let label =
                isBusmon
                ? "drained \(Int((1 / interval).rounded()))/s (busmon)" : "every event kept"
            rows.append([
                label, TextTable.nanoseconds(medians[0]), TextTable.nanoseconds(medians[1]),
                TargetCheck.format(ratio) + "x", "\(monitored.drainer.drains)",
                String(format: "%.0f%%", monitored.droppedShare * 100),
            ])
        }
        sanityCheck(overhead.verify(), "busmon capture: the unmonitored bus's sums or counters are wrong")
        overhead.tearDown()
        print("Publish with busmon's capture attached (BusCapture), token form, \(subscribers) subscribers")
        print(
            TextTable.render(
                header: ["capture", "without", "with", "with / without", "drains", "events dropped"],
                rows: rows))
        print(
            "(ns per publish. The capture holds \(BusCapture.defaultCapacity) events between drains. "
                + "Drained as busmon does,\n a publisher flat out fills it early in each frame, and the "
                + "capture counts the rest as\n dropped without copying them; drained every "
                + Self.milliseconds(MonitorOverhead.keepingEveryEventInterval)
                + " it keeps each event, its full cost per event.)")
        print()
        checks.append(
            .atMost("publish with monitor / without, \(subscribers) subscribers", busmonRatio, 1.25))
        checks.append(
            .atMost(
                "publish with monitor keeping every event / without, \(subscribers) subscribers",
                everyEventRatio, 1.5))
    }

    private static func milliseconds(_ seconds: Double) -> String {
        String(format: "%g ms", seconds * 1000)
    }

    // MARK: - Observer churn

    private mutating func measureObserverChurn() {
        let churn = ObserverChurn(observers: quick ? 20_000 : 1_000_000, batchSize: 1_000)
        let duration = Sampler.time { _ = churn.run() }
        // Run once more for the figures; the first run also warms the allocator.
        let result = churn.run()
        sanityCheck(result.handlerCalls == 0, "observer churn: a never-published type's handler ran")
        print(
            "Observer churn: \(result.observersCreated) observers, \(churn.batchSize) alive at a time, "
                + "subscribed to a never-published type, freed batch by batch")
        print(
            TextTable.render(
                header: ["", "value"],
                rows: [
                    ["entries left (live + dead)", "\(result.entriesLeft)"],
                    ["peak entries at a batch boundary", "\(result.peakEntries)"],
                    ["peak observer records (live + dead objects)", "\(result.peakRecords)"],
                    ["objects counted as reclaimed", "\(result.reclaimedObjects)"],
                    ["reclaimed by the bus", "\(result.reclaimed)"],
                    ["resident memory before", TextTable.megabytes(result.residentBytesBefore)],
                    ["peak resident during the churn", TextTable.megabytes(result.peakResidentBytes)],
                    ["resident memory after", TextTable.megabytes(result.residentBytesAfter)],
                    // Linux keeps the high-water mark across exec, so under `swift run` this
                    // includes swift-run's own footprint.
                    [
                        "max resident (getrusage, whole process)",
                        TextTable.megabytes(result.maxResidentBytes),
                    ],
                    ["time per run", String(format: "%.2f s", duration / 1e9)],
                ]))
        print()
        let limit = 5_000
        checks.append(.countAtMost("observer churn: entries the bus still holds", result.entriesLeft, limit))
        checks.append(.countAtMost("observer churn: most observer records held", result.peakRecords, limit))
        sanityCheck(
            result.reclaimedObjects + result.recordsLeft == result.observersCreated,
            "observer churn: objects reclaimed and left do not add up to those created")
    }

    // MARK: - Snapshot cost

    private mutating func measureSnapshotCost() {
        let observers = quick ? 200 : 10_000
        let result = SnapshotCost(observers: observers, rounds: quick ? 3 : 41).run()
        print(
            "snapshot() on a bus with \(observers) live observers of 4 classes, 2 subscriptions each, 100 suspects"
        )
        print(
            TextTable.render(
                header: ["call", "ms (median)"],
                rows: [
                    ["snapshot()", String(format: "%.2f", result.plain)],
                    ["snapshot(instancesPerClass: 50)", String(format: "%.2f", result.withInstances)],
                ]))
        print()
        sanityCheck(result.observerRows == 4, "snapshot: \(result.observerRows) observer classes, not 4")
        sanityCheck(result.liveInstances == observers, "snapshot: \(result.liveInstances) live observers")
        sanityCheck(result.suspects == 100, "snapshot: \(result.suspects) leak suspects, not 100")
        checks.append(.millisecondsAtMost("snapshot() at \(observers) observers", result.plain, 5))
    }

    // MARK: - Results

    // MARK: - An app watched from another process

    private mutating func measureAttach() {
        guard let throughput = AttachThroughput(seconds: quick ? 0.5 : 2) else {
            print("Attach: skipped; build simapp and busmon next to busbench (swift build -c release)\n")
            return
        }
        print("simapp's fastest publish rate: alone, with busmon --attach --headless reading its tap, with")
        print("busmon's dashboard attached, and dialled in to busmon --listen --headless over loopback TCP;")
        print("each watched run between two runs alone, and judged against their mean")
        do {
            let rounds = try throughput.measure(rounds: quick ? 1 : 5)
            func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
            func thousands(_ rate: Double?) -> String { String(format: "%.0f", (rate ?? .nan) / 1000) }
            var rows = rounds.enumerated().map { index, round in
                ["\(index + 1)", round.alone.map(thousands).joined(separator: " ")]
                    + AttachThroughput.Link.watched.map { link in
                        "\(thousands(round.watched[link])) (\(String(format: "%.2fx", round.ratio(link))))"
                    }
            }
            let ratios = AttachThroughput.Link.watched.map { link in median(rounds.map { $0.ratio(link) }) }
            rows.append(["median", ""] + ratios.map { String(format: "%.2fx", $0) })
            print(
                TextTable.render(
                    header: ["round", "alone, thousand/s", "attached", "dashboard", "dialled in"], rows: rows)
            )
            let attachedEvents = rounds.map(\.attachedMonitorEvents).reduce(0, +)
            let dialledInEvents = rounds.map(\.dialledInMonitorEvents).reduce(0, +)
            print(
                "(busmon received \(attachedEvents) events attached and "
                    + "\(dialledInEvents) dialled in; the tap drops the oldest for a")
            print(" reader that falls behind, and never makes the app wait; the dashboard used")
            print(
                " \(TextTable.percent(median(rounds.map(\.dashboardCPU)))) of a core meanwhile, its start included)\n"
            )
            checks.append(.atLeast("simapp attached / alone (publish rate)", ratios[0], 0.95))
            checks.append(.atLeast("simapp, dashboard attached / alone (publish rate)", ratios[1], 0.95))
            checks.append(.atLeast("simapp dialled in / alone (publish rate)", ratios[2], 0.95))
            sanityCheck(attachedEvents > 0, "attach: busmon received no events")
            sanityCheck(dialledInEvents > 0, "dial-in: busmon --listen received no events")
        } catch {
            sanityCheck(false, "attach: \(error)")
        }
    }

    // MARK: - busmon's own CPU

    private mutating func measureBusmonCPU() {
        guard let cpu = BusmonCPU(quick: quick) else {
            print(
                "busmon's CPU: skipped; build busmon and simapp next to busbench (swift build -c release)\n")
            return
        }
        print("busmon's own CPU: its dashboard at 150x45 on a pseudo-terminal, attached to a tap")
        var rows: [[String]] = []
        do {
            let idle = try cpu.share(of: cpu.busmon, watching: .idle)
            let busy = try cpu.share(of: cpu.busmon, watching: .simappDefaultRate)
            rows.append([cpu.build, "an app publishing nothing", TextTable.percent(idle)])
            rows.append([cpu.build, "simapp at its default rate (200/s)", TextTable.percent(busy)])
            // The goals are a release build's, and a debug build's at the default rate.
            if cpu.build == "release" {
                checks.append(.shareAtMost("busmon's CPU, release, an app publishing nothing", idle, 0.002))
            }
            checks.append(
                .shareAtMost(
                    "busmon's CPU, \(cpu.build), simapp at its default rate", busy,
                    cpu.build == "release" ? 0.01 : 0.03))
            if let debug = cpu.debugBusmon {
                let debugBusy = try cpu.share(of: debug, watching: .simappDefaultRate)
                rows.append(["debug", "simapp at its default rate (200/s)", TextTable.percent(debugBusy)])
                checks.append(
                    .shareAtMost("busmon's CPU, debug, simapp at its default rate", debugBusy, 0.03))
            }
        } catch {
            sanityCheck(false, "busmon's CPU: \(error)")
        }
        print(TextTable.render(header: ["busmon", "watching", "CPU, share of a core"], rows: rows))
        print(
            "(CPU time from wait4, user and system, of a \(Self.seconds(cpu.longRun)) run less that of a "
                + "\(Self.seconds(cpu.shortRun)) one,\n per second between them: busmon's start left out; "
                + "the median of \(cpu.rounds) rounds."
                + (cpu.debugBusmon == nil ? "\n The debug row needs `swift build` first.)" : ")"))
        print()
    }

    // MARK: - busmon under a flood

    private mutating func measureBusmonFlood() {
        guard let flood = BusmonFlood(quick: quick) else {
            print(
                "busmon under a flood: skipped; build busmon and simapp next to busbench (swift build -c release)\n"
            )
            return
        }
        print(
            "busmon's dashboard at 120x40 on a pseudo-terminal, an app publishing \(flood.rate) events a second for "
                + Self.seconds(flood.seconds))
        var rows: [[String]] = []
        for source in [BusmonFlood.Source.inProcess, .attached] {
            let watching = source == .inProcess ? "its simulated app (--rate)" : "simapp's tap (--attach)"
            do {
                let reading = try flood.measure(flood.busmon, watching: source)
                rows.append([
                    flood.build, watching, String(format: "%.0f", reading.publishedPerSecond),
                    String(format: "%.1f", reading.framesPerSecond), "\(reading.peakMegabytes) MB",
                ])
                let label = "busmon at \(flood.rate / 1000)k events/s, \(flood.build), \(watching)"
                checks.append(.perSecondAtLeast(label + ": frames", reading.framesPerSecond, 20))
                checks.append(.megabytesAtMost(label + ": peak memory", reading.peakMegabytes, 64))
                // Far below the rate, the rows would not say what busmon does under a flood.
                if !quick {
                    sanityCheck(
                        reading.publishedPerSecond >= Double(flood.rate) * 0.8,
                        "busmon under a flood: the app published \(Int(reading.publishedPerSecond)) events/s, "
                            + "not \(flood.rate)")
                }
            } catch {
                sanityCheck(false, "busmon under a flood: \(error)")
            }
        }
        print(
            TextTable.render(
                header: ["busmon", "watching", "published/s", "frames/s", "peak memory"], rows: rows))
        print(
            "(frames a second and peak resident memory as busmon's exit line reports them; published, by the\n"
                + " app's own count, its handlers' cascades included. Goals: at least 20 frames a second, under 64 MB.)"
        )
        print()
    }

    private static func seconds(_ value: Double) -> String {
        String(format: "%g s", value)
    }

    private func printTargets() {
        print("Targets")
        let rows = checks.map { check in
            [check.label, check.formattedValue, check.target, check.passes ? "PASS" : "MISS"]
        }
        print(TextTable.render(header: ["measure", "measured", "target", "result"], rows: rows))
        if quick { print("(--quick: the figures above mean nothing; only the sanity checks count)") }
        print()
        if sanityFailures.isEmpty {
            print("sanity checks: all handler sums and bus counters are exact")
        } else {
            for failure in sanityFailures { print("SANITY FAILURE: \(failure)") }
        }
    }

    private mutating func sanityCheck(_ condition: Bool, _ failure: String) {
        if !condition { sanityFailures.append(failure) }
    }
}
