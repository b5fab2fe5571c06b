import EventBus
import Foundation
import TestSupport
import Testing

@testable import BusMonitor
@testable import BusWire

/// How records become trace events, read back with ``TraceFile``'s rules.
@Suite("Chrome trace")
struct ChromeTraceTests {
    private static let second = 1_700_000_000_000_000_000
    private static let main = TraceThread(id: 100, isMain: true)
    private static let worker = TraceThread(id: 200, isMain: false)

    private static func trace(
        _ records: [FeedRecord], dropped: Int = 0, droppedEvents: Int = 0, droppedLifecycle: Int = 0
    ) throws -> TraceFile {
        var trace = ChromeTrace { ChromeTrace.AppName(name: "app", pid: 42) }
        var batch = SourceBatch(records: records, droppedEvents: droppedEvents)
        batch.droppedCalls = dropped
        batch.droppedLifecycle = droppedLifecycle
        trace.add(batch)
        var bytes = trace.take()
        bytes += trace.finish()
        return try TraceFile(data: Data(bytes))
    }

    private static func event(
        _ id: UInt64, at time: Int, on thread: TraceThread?, cause: UInt64? = nil, origin: FeedOrigin? = nil
    ) -> FeedRecord {
        .event(
            FeedEvent(
                sequence: Int(id), time: Double(time) / 1e9, typeName: "Tick", payload: .description("tick"),
                receivers: 1, origin: origin,
                trace: PublishTrace(
                    eventID: id, causeID: cause, site: PublishSite(fileID: "App/Tick.swift", line: 3),
                    thread: thread, publishedAtNanoseconds: thread == nil ? nil : time)))
    }

    private static func call(
        _ id: UInt64, at start: Int, for duration: Int, on thread: TraceThread, waited: Int? = nil,
        observer: String? = "Screen", origin: FeedOrigin? = nil
    ) -> FeedRecord {
        .call(
            FeedHandlerCall(
                eventID: id, eventTypeName: "Tick", observerTypeName: observer, observerID: 1, thread: thread,
                startNanoseconds: start, durationNanoseconds: duration, waitedNanoseconds: waited,
                origin: origin))
    }

    @Test("an event stamped far ahead of the others holds back no more than the limit of later ones")
    func aFarFutureEventDoesNotHoldEverything() {
        var trace = ChromeTrace { ChromeTrace.AppName(name: "app", pid: 42) }
        trace.add(SourceBatch(records: [Self.event(1, at: 4_294_967_296 * 1_000_000_000, on: nil)]))
        let count = ChromeTrace.maximumHeldEvents + 1_000
        trace.add(
            SourceBatch(
                records: (0..<count).map { Self.event(UInt64($0 + 2), at: Self.second + $0 * 1_000, on: nil) }
            ))
        let written = String(decoding: trace.take(), as: UTF8.self)
        // Once the oldest, stamped far ahead, is written, the rest are older than it by more
        // than the hold-back and follow at once.
        #expect(written.components(separatedBy: "publish Tick").count - 1 == count + 1)
    }

    @Test("calls made in the publish nest in its delivery slice, which begins after its instant")
    func inlineCallsNest() throws {
        let t = Self.second
        // The calls arrive first (they ran inside the publish), then the event.
        let trace = try Self.trace([
            Self.call(1, at: t + 1_000, for: 500, on: Self.main),
            Self.call(1, at: t + 1_600, for: 300, on: Self.main, observer: nil),
            Self.event(1, at: t + 900, on: Self.main),
        ])
        #expect(trace.problems.isEmpty, "\(trace.problems)")
        let track = try #require(trace.slices[42]?[100])
        #expect(track.map(\.name) == ["publish Tick", "deliver Tick", "Screen Tick", "token Tick"])
        let deliver = track[1]
        #expect(deliver.start <= track[2].start && deliver.end >= track[3].end)
        #expect(trace.events("X").first { $0["name"] as? String == "Screen Tick" }?["dur"] as? Double == 0.5)
        #expect(trace.processNames == [42: "app (pid 42)"])
        // An arrow from the delivery to each call, as to calls that waited elsewhere.
        #expect(
            Set(trace.arrows.map { [$0.from.name, $0.to.name] }) == [
                ["deliver Tick", "Screen Tick"], ["deliver Tick", "token Tick"],
            ])
        let threadName = trace.events("M").first { $0["name"] as? String == "thread_name" }
        #expect((threadName?["args"] as? [String: String])?["name"] == "main thread")
    }

    @Test("a queued call gets its wait and an arrow from its delivery, whichever record came first")
    func queuedCallsHaveArrowsAndWaits() throws {
        let t = Self.second
        for order in [false, true] {
            let event = Self.event(7, at: t, on: Self.worker)
            let call = Self.call(7, at: t + 50_000, for: 2_000, on: Self.main, waited: 49_000)
            let trace = try Self.trace(order ? [call, event] : [event, call])
            #expect(trace.problems.isEmpty, "\(trace.problems)")
            #expect(trace.arrows.count == 1)
            #expect(trace.arrows.first?.from.name == "deliver Tick")
            #expect(trace.arrows.first?.to.name == "Screen Tick")
            let wait = try #require(trace.events("b").first)
            #expect(wait["cat"] as? String == "wait")
            #expect(
                abs((wait["ts"] as? Double ?? 0) - (trace.events("e").first?["ts"] as? Double ?? 0) + 49)
                    < 0.001)
        }
    }

    @Test("an event published by a handler gets an arrow from that handler to its publish")
    func causeChainsAreArrows() throws {
        let t = Self.second
        let trace = try Self.trace([
            // Event 2 is published inside the handler of event 1, which runs from t+100 to t+900.
            Self.event(2, at: t + 400, on: Self.main, cause: 1),
            Self.call(1, at: t + 100, for: 800, on: Self.main),
            Self.event(1, at: t + 50, on: Self.main),
        ])
        #expect(trace.problems.isEmpty, "\(trace.problems)")
        #expect(
            Set(trace.arrows.map { [$0.from.name, $0.to.name] }) == [
                ["Screen Tick", "publish Tick"], ["deliver Tick", "Screen Tick"],
            ])
    }

    @Test("two apps with the same pid on two hosts are two processes; lifecycle and counters are per app")
    func fleetsAreProcesses() throws {
        let t = Self.second
        let alpha = FeedOrigin(app: "alpha", host: "one", pid: 7)
        let beta = FeedOrigin(app: "beta", host: "two", pid: 7)
        let snapshot = BusSnapshot(
            busName: "shared",
            eventTypes: [
                EventTypeStatistics(typeName: "Tick", liveSubscribers: 3, published: 10),
                EventTypeStatistics(typeName: "any Timed", liveSubscribers: 1, delivered: 4),
            ],
            wildcardObservers: 0)
        let later = BusSnapshot(
            busName: "shared",
            eventTypes: [
                EventTypeStatistics(typeName: "Tick", liveSubscribers: 3, published: 30),
                EventTypeStatistics(typeName: "any Timed", liveSubscribers: 1, delivered: 10),
            ],
            wildcardObservers: 0)
        let trace = try Self.trace([
            Self.event(1, at: t, on: Self.main, origin: alpha),
            Self.event(1, at: t, on: Self.main, origin: beta),
            .lifecycle(
                FeedLifecycle(
                    time: Double(t) / 1e9,
                    change: SubscriberLifecycleEvent(
                        kind: .reclaimed, eventTypeName: "Tick", observerTypeName: "Screen"),
                    origin: beta)),
            .lifecycle(
                FeedLifecycle(
                    time: Double(t) / 1e9,
                    change: SubscriberLifecycleEvent(
                        kind: .leakSuspected, eventTypeName: "Tick", observerTypeName: "Screen"),
                    origin: beta)),
            .snapshot(FeedSnapshot(time: Double(t) / 1e9, snapshot: snapshot, origin: alpha)),
            .snapshot(FeedSnapshot(time: Double(t) / 1e9 + 2, snapshot: later, origin: alpha)),
        ])
        #expect(trace.problems.isEmpty, "\(trace.problems)")
        #expect(Set(trace.processNames.values) == ["alpha on one (pid 7)", "beta on two (pid 7)"])
        #expect(trace.processNames.count == 2)
        let reclaimed = try #require(trace.events("i").first { $0["cat"] as? String == "lifecycle" })
        #expect(reclaimed["name"] as? String == "reclaimed Screen")
        // Named in words, as the docs and the dashboard name them, not as the wire spells them.
        #expect(trace.events("i").contains { $0["name"] as? String == "leak suspected Screen" })
        #expect(reclaimed["s"] as? String == "p")
        #expect(trace.processNames[reclaimed["pid"] as? Int ?? 0] == "beta on two (pid 7)")
        let rate = try #require(trace.events("C").first { $0["name"] as? String == "events per second" })
        #expect((rate["args"] as? [String: Double])?["Tick"] == 10)
        #expect(
            (rate["args"] as? [String: Double])?["any Timed"] == 3, "a protocol's rate is of its deliveries")
        #expect(trace.counterNames == ["live subscribers", "events per second"])
    }

    @Test("a batch that spans an app's restart splits its records where the new hello stands")
    func aRestartSplitsWhereItsHelloStands() throws {
        let t = Self.second
        let first = FeedHello(pid: 11, process: "shop", bus: "main", time: Double(t) / 1e9)
        let again = FeedHello(pid: 11, process: "shop", bus: "main", time: Double(t) / 1e9 + 1)
        let second = FeedHello(pid: 12, process: "shop", bus: "main", time: Double(t) / 1e9 + 2)
        // The source would name the app after the hello it has now: the newest.
        var trace = ChromeTrace { ChromeTrace.AppName(name: "shop", pid: 12) }
        trace.add(
            SourceBatch(records: [
                .hello(first),
                Self.event(1, at: t, on: Self.main),
                Self.call(1, at: t + 1_000, for: 500, on: Self.main),
                // Attached again to the same process: still its track.
                .hello(again),
                Self.event(2, at: t + 1_000_000_000, on: Self.main),
                Self.call(2, at: t + 1_000_001_000, for: 500, on: Self.main),
                .hello(second),
                // Event numbers start over in a new process.
                Self.event(1, at: t + 2_000_000_000, on: Self.main),
                Self.call(1, at: t + 2_000_001_000, for: 500, on: Self.main),
            ]))
        var bytes = trace.take()
        bytes += trace.finish()
        let file = try TraceFile(data: Data(bytes))
        #expect(file.problems.isEmpty, "\(file.problems)")
        #expect(file.processNames == [11: "shop (pid 11)", 12: "shop (pid 12)"])
        #expect(file.handlerSlices(of: 11).count == 2)
        #expect(file.handlerSlices(of: 12).count == 1)
    }

    @Test("an event whose thread was not recorded goes on its app's publishes track")
    func untracedEventsHaveATrackOfTheirOwn() throws {
        let trace = try Self.trace([Self.event(1, at: Self.second, on: nil)])
        #expect(trace.problems.isEmpty)
        let names = trace.events("M").compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(names.contains("publishes (thread not recorded)"))
        #expect(trace.events("X").isEmpty)
    }

    @Test(
        "events and lifecycle changes the monitor dropped are said at the end: the trace lacks their publishes"
    )
    func droppedEventsAreTold() throws {
        let trace = try Self.trace(
            [Self.event(1, at: Self.second, on: Self.main)], droppedEvents: 36_663, droppedLifecycle: 2)
        let names = trace.events("i").compactMap { $0["name"] as? String }
        #expect(names.contains("36663 events lost on the way, not in this trace"))
        #expect(names.contains("2 lifecycle changes lost on the way, not in this trace"))
        #expect(!names.contains { $0.contains("handler calls lost") }, "none were")
    }

    @Test("calls lost on the way are said at the end; a trace cut short still reads")
    func lossesAreToldAndCutTracesRead() throws {
        let trace = try Self.trace(
            [
                Self.event(1, at: Self.second, on: Self.main),
                Self.event(2, at: Self.second + 5_000_000_000, on: Self.main),
            ],
            dropped: 12)
        let lost = try #require(
            trace.events("i").first { $0["name"] as? String == "12 handler calls lost on the way" })
        // At the newest record's time (the trace's zero is a minute before the first), not at 0
        let publishedAt =
            trace.events("X").compactMap { $0["ts"] as? Double }
            + trace.events("i").compactMap {
                $0["name"] as? String == "12 handler calls lost on the way" ? nil : $0["ts"] as? Double
            }
        #expect(publishedAt.count >= 2)
        #expect(
            (lost["ts"] as? Double).map { $0 >= (publishedAt.max() ?? .infinity) - 1 } == true,
            "\(lost) \(publishedAt)")
        var cut = ChromeTrace { ChromeTrace.AppName(name: "app", pid: 42) }
        cut.add(SourceBatch(records: [Self.call(1, at: Self.second, for: 10, on: Self.main)]))
        let partial = try TraceFile(data: Data(cut.take()))
        #expect(partial.handlerSlices().count == 1)
    }

    @Test("names from the app show their control characters as visible escapes, as --graph writes them")
    func hostileNamesAreEscaped() throws {
        var trace = ChromeTrace { ChromeTrace.AppName(name: "app\u{7}", pid: 42) }
        // A type named to retitle the terminal of whoever lists the counters' series (`jq`)
        let title = "Ty\u{1B}]0;PWNED\u{7}"
        let snapshot = { (published: Int) in
            BusSnapshot(
                busName: "shared",
                eventTypes: [EventTypeStatistics(typeName: title, liveSubscribers: 2, published: published)],
                wildcardObservers: 0)
        }
        trace.add(
            SourceBatch(records: [
                Self.call(1, at: Self.second, for: 10, on: Self.main, observer: "Evil\u{1B}[2J\"\n"),
                .snapshot(FeedSnapshot(time: Double(Self.second) / 1e9, snapshot: snapshot(10))),
                .snapshot(FeedSnapshot(time: Double(Self.second) / 1e9 + 2, snapshot: snapshot(30))),
            ]))
        let bytes = trace.take() + trace.finish()
        #expect(!bytes.contains { $0 < 0x20 && $0 != 0x0A }, "no raw control character in the file")
        let read = try TraceFile(data: Data(bytes))
        #expect(read.handlerSlices().first?["name"] as? String == #"Evil\u{1B}[2J"\u{A} Tick"#)
        #expect(read.processNames.values.contains(#"app\u{7} (pid 42)"#), "\(read.processNames)")
        // Then the counters' series names decode to visible escapes too, not to ESC and BEL
        let series = read.events("C").flatMap { ($0["args"] as? [String: Any])?.keys.map { $0 } ?? [] }
        #expect(series.count == 3, "live subscribers twice, a rate once: \(series)")
        #expect(series.allSatisfy { $0 == #"Ty\u{1B}]0;PWNED\u{7}"# }, "\(series)")
    }
}
