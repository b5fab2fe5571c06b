import BusMonitor
import BusWire
import EventBus
import Foundation
import ScreenGrid
import Simulator
import TestSupport
import Testing

@testable import BusMonitor
@testable import Dashboard

/// Well-formed records with the numbers and names an app or a stranger may send (0, 1, `Int.max`,
/// anything between; names made up or repeated; origins from several apps or none), fed to a
/// dashboard that draws every pane at several sizes and opens what Enter opens: nothing traps,
/// no cell holds a control character, and no count drawn is negative.
@Suite("Hostile records")
struct HostileRecordsFuzzTests {
    private struct Generator {
        var random: SplitMix64

        mutating func count() -> Int {
            switch random.next() % 6 {
            case 0: return 0
            case 1: return 1
            case 2: return .max
            case 3: return .max - Int(random.next() % 1_000)
            default: return Int(random.next() % 1_000_000)
            }
        }

        mutating func duration() -> Duration {
            switch random.next() % 4 {
            case 0: return .zero
            case 1: return .seconds(1_000_000_000)
            default: return .microseconds(Int64(random.next() % 10_000_000))
            }
        }

        mutating func name(_ kind: String) -> String {
            random.next() % 4 == 0 ? "\(kind)\(random.next() % 100_000)" : "\(kind)\(random.next() % 5)"
        }

        mutating func origin() -> EventOrigin? {
            random.next() % 3 == 0 ? nil : EventOrigin(app: name("app"), host: "h", pid: count())
        }

        mutating func time(near now: Double) -> Double {
            switch random.next() % 5 {
            case 0: return 0
            case 1: return FeedRecord.latestTime
            default: return now + Double(random.next() % 1_000) / 1_000
            }
        }

        mutating func snapshot() -> BusSnapshot {
            BusSnapshot(
                busName: name("bus"),
                eventTypes: (0..<Int(random.next() % 6)).map { _ in
                    EventTypeStatistics(
                        typeName: name("Type"), liveSubscribers: count(), deadSubscribers: count(),
                        reclaimedSubscribers: count(), unsubscribedSubscribers: count(),
                        cancelledSubscribers: count(), duplicateSubscriptions: count(), published: count(),
                        delivered: count(), unheard: count(), handlerFailures: count(), dropped: count())
                },
                wildcardObservers: count(), deadWildcardObservers: count(),
                reclaimedWildcardObservers: count(),
                wildcardDeliveries: count(),
                observers: (0..<Int(random.next() % 4)).map { _ in
                    ObserverStatistics(
                        className: name("Screen"), liveInstances: count(), deadInstances: count(),
                        liveSubscriptions: count(), deadSubscriptions: count(), reclaimedInstances: count(),
                        leakSuspects: count(), handlerFailures: count())
                },
                leakSuspects: (0..<Int(random.next() % 3)).map { _ in
                    LeakSuspect(
                        observerID: UInt64(count()), className: name("Screen"), reason: "r",
                        overdue: duration(),
                        subscriptions: [name("Type")])
                },
                instances: (0..<Int(random.next() % 4)).map { _ in
                    ObserverInstance(
                        observerID: UInt64(count()), className: name("Screen"), age: duration(),
                        subscriptions: [name("Type")],
                        state: ObserverState.allCases[Int(random.next() % 3)])
                },
                handlers: (0..<Int(random.next() % 4)).map { _ in
                    HandlerStatistics(
                        observerTypeName: random.next() % 4 == 0 ? nil : name("Screen"),
                        eventTypeName: name("Type"),
                        calls: count(), total: duration(), maximum: duration(), slowCalls: count(),
                        failures: count(), dropped: count(),
                        waits: DeliveryWaits(
                            count: count(), p50: duration(), p99: duration(), maximum: duration(),
                            slowDeliveries: count()))
                })
        }

        mutating func batch(at now: Double) -> SourceBatch {
            var records: [FeedRecord] = []
            for _ in 0..<Int(random.next() % 12) {
                switch random.next() % 5 {
                case 4:
                    records.append(
                        .call(
                            FeedHandlerCall(
                                eventID: UInt64(count()), eventTypeName: name("Type"),
                                observerTypeName: name("Screen"),
                                observerID: UInt64(count()),
                                thread: TraceThread(id: UInt64(count()), isMain: true),
                                startNanoseconds: random.next() % 2 == 0
                                    ? FeedRecord.latestNanoseconds
                                    : Int(now * 1e9) + Int(random.next() % 1_000_000),
                                durationNanoseconds: random.next() % 2 == 0
                                    ? FeedRecord.maximumDurationNanoseconds : Int(random.next() % 1_000_000),
                                waitedNanoseconds: random.next() % 2 == 0
                                    ? FeedRecord.maximumDurationNanoseconds : 0,
                                origin: origin())))
                case 0:
                    records.append(
                        .snapshot(FeedSnapshot(time: time(near: now), snapshot: snapshot(), origin: origin()))
                    )
                case 1:
                    let kinds = SubscriberLifecycleEvent.Kind.allCases
                    records.append(
                        .lifecycle(
                            FeedLifecycle(
                                time: time(near: now),
                                change: SubscriberLifecycleEvent(
                                    kind: kinds[Int(random.next() % UInt64(kinds.count))],
                                    eventTypeName: random.next() % 5 == 0 ? "*" : name("Type"),
                                    count: count(),
                                    observerTypeName: name("Screen"), observerID: UInt64(count()),
                                    deadFor: duration(), reason: "r", expectedWithin: duration(),
                                    overdue: duration(), duration: duration()),
                                origin: origin())))
                default:
                    records.append(
                        .event(
                            FeedEvent(
                                sequence: count(), time: time(near: now), typeName: name("Type"),
                                payload: .description("{\"n\":\(count())}"), receivers: count(),
                                origin: origin(),
                                trace: PublishTrace(
                                    eventID: UInt64(count()), causeID: UInt64(count()),
                                    site: PublishSite(fileID: "App/A.swift", line: count())))))
                }
            }
            var batch = SourceBatch(records: records, droppedEvents: count())
            batch.droppedLifecycle = count()
            batch.droppedCalls = count()
            return batch
        }
    }

    @Test("300 batches of records with extreme counts, names and origins are drawn without a trap")
    func extremeRecordsAreDrawn() {
        var generator = Generator(
            random: SplitMix64(
                seed: ProcessInfo.processInfo.environment["HOSTILE_SEED"].flatMap { UInt64($0) } ?? 0xB05_F422
            ))
        let source = ScriptedSource()
        let dashboard = SourceDashboard(source: source)
        let keys: [DashboardKey] = [.tab, .enter, .escape, .down, .up, .end, .home, .tab, .enter, .escape]
        let sizes = [(150, 45), (80, 24), (60, 16), (200, 60)]
        var graph = FlowGraph()
        var trace = ChromeTrace { ChromeTrace.AppName(name: "app", pid: 42) }
        var lines = 0
        var now = 1_700_000_000.0
        for round in 0..<(ProcessInfo.processInfo.environment["HOSTILE_ROUNDS"].flatMap { Int($0) } ?? 300) {
            now += 0.25
            let batch = generator.batch(at: now)
            // The same records through what else reads them: the graph, the trace, and the wire
            // (each written and read back, as a recording is).
            graph.take(batch)
            trace.add(batch)
            lines += trace.take().count
            for record in batch.records {
                #expect(throws: Never.self, "round \(round)") {
                    _ = try FeedRecord.decode(line: record.encodeLine())
                }
            }
            source.enqueue(batch)
            dashboard.update(now: now)
            _ = dashboard.handle(keys[round % keys.count])
            let (width, height) = sizes[round % sizes.count]
            let grid = rendered(dashboard, width: width, height: height, now: now)
            let text = grid.text
            #expect(
                !text.unicodeScalars.contains {
                    $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value)
                },
                "round \(round): a control character on screen")
            #expect(
                text.range(of: #"(^| )-[0-9]"#, options: .regularExpression) == nil,
                "round \(round): a negative number drawn: \(text.split(separator: "\n").filter { $0.range(of: #"(^| )-[0-9]"#, options: .regularExpression) != nil })"
            )
        }
        #expect(!graph.dot(title: "app").isEmpty)
        lines += trace.finish().count
        #expect(lines > 0)
        #expect(dashboard.shown.rows.count <= DashboardState.maximumTypeRows + 1)
        #expect(dashboard.shown.rows.allSatisfy { $0.published >= 0 && $0.unheard >= 0 })
    }
}
