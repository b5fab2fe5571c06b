import BusMonitor
import BusMonitorNATS
import BusTap
import BusWire
import EventBus
import EventBusNATS
import Foundation
import TestSupport
import Testing

@testable import Dashboard

/// Passes another source's batches on and keeps them, and calls `onEveryField` once they hold
/// every field of ``EveryFieldScenario``.
final class KeepingSource: FiniteSource {
    let wrapped: any DashboardSource
    private let kept = LockedValue<[SourceBatch]>([])
    private let onEveryField = LockedValue<(@Sendable () -> Void)?>(nil)

    init(wrapping source: any DashboardSource) {
        wrapped = source
    }

    var title: String { wrapped.title }
    var isFinished: Bool { (wrapped as? any FiniteSource)?.isFinished ?? false }
    var batches: [SourceBatch] { kept.current }

    /// Calls `action` (once) when the batches hold every field.
    func whenEveryField(_ action: @escaping @Sendable () -> Void) {
        onEveryField.withLock { $0 = action }
    }

    func drain() -> SourceBatch { keep(wrapped.drain()) }
    func perform(_ command: SourceCommand) -> String? { wrapped.perform(command) }
    func drainLast() -> SourceBatch { keep(wrapped.drainLast()) }

    private func keep(_ batch: SourceBatch) -> SourceBatch {
        let records = kept.withLock { kept in
            kept.append(batch)
            return kept.flatMap(\.records)
        }
        if EveryField.missing(in: records).isEmpty, let action = onEveryField.withLock({ $0 }) {
            onEveryField.withLock { $0 = nil }
            action()
        }
        return batch
    }
}

/// Every field the wire carries, from every way of watching an app, to every place busmon
/// shows or writes it: the dashboard's state, headless output, a recording, the flow graph; and
/// again from a replay of that recording.
@Suite("One record stream: every field through every source", .serialized)
struct EveryFieldMatrixTests {
    /// What one headless run through a source wrote and kept.
    struct Outputs {
        var batches: [SourceBatch]
        var headless: [FeedRecord]
        var recording: [FeedRecord]
        var recordingPath: String
        var graph: FlowGraph
    }

    /// Runs busmon's headless path over `source` (kept, recorded and graphed, as `--headless
    /// --record --graph` stack them) until it has every field, or a minute has passed.
    static func watch(
        _ source: any DashboardSource, in directory: TemporaryDirectory, name: String,
        run: (@Sendable (KeepingSource) -> Void)? = nil
    ) throws -> Outputs {
        let keeping = KeepingSource(wrapping: source)
        let recordingPath = directory.file("\(name).jsonl")
        let recording = RecordingSource(wrapping: keeping, writer: try RecordingWriter(path: recordingPath))
        let graphing = try GraphingSource(wrapping: recording, path: directory.file("\(name).dot"))
        let headlessPath = directory.file("\(name)-headless.jsonl")
        _ = FileManager.default.createFile(atPath: headlessPath, contents: nil)
        let output = try #require(FileHandle(forWritingAtPath: headlessPath))
        let runner = HeadlessRunner(source: graphing, output: output, duration: 60, drainInterval: 0.02)
        keeping.whenEveryField { runner.stop() }
        if let run { DispatchQueue.global().async { run(keeping) } }
        _ = runner.run()
        recording.writer.close()
        try output.close()
        return Outputs(
            batches: keeping.batches, headless: EveryField.records(inFile: headlessPath),
            recording: EveryField.records(inFile: recordingPath), recordingPath: recordingPath,
            graph: graphing.graph)
    }

    /// What the dashboard's state lacks after taking `batches`.
    static func missingOnDashboard(_ batches: [SourceBatch]) -> [String] {
        var state = DashboardState()
        for (index, batch) in batches.enumerated() {
            state.apply(batch, at: 1_700_000_000 + Double(index) * 0.02)
        }
        var missing: [String] = []
        func require(_ name: String, _ present: Bool) {
            if !present { missing.append(name) }
        }
        var events: [FeedEvent] = []
        var kinds: Set<SubscriberLifecycleEvent.Kind> = []
        for sequence in state.log.sequences {
            switch state.log[sequence]?.content {
            case .event(let event)?: events.append(event)
            case .lifecycle(let change)?: kinds.insert(change.kind)
            case .reclaim?: kinds.insert(.reclaimed)
            default: break
            }
        }
        require("event number", events.contains { $0.typeName == "MatrixPing" && $0.trace.eventID != 0 })
        require("cause", events.contains { $0.typeName == "MatrixPong" && $0.trace.causeID != nil })
        require("call site", events.contains { $0.trace.site != nil })
        require("published count", (state.rows.first { $0.name == "MatrixPing" }?.published ?? 0) > 0)
        require(
            "handler rows",
            state.handlers.rows.contains { $0.observerTypeName == "MatrixScreen" && $0.calls > 0 })
        require("failure counts", state.handlers.failures > 0)
        require("slow calls", state.handlers.slowCalls > 0)
        require("slow deliveries", state.handlers.slowDeliveries > 0)
        require(
            "delivery waits",
            state.handlers.rows.contains { $0.eventTypeName == "MatrixPong" && $0.waits.maximum > .zero })
        require("stream drops", state.handlers.dropped > 0)
        require("cascades", state.handlers.cascadesStopped > 0)
        require("sticky events", state.rows.first { $0.name == "MatrixSticky" }?.sticky != nil)
        require("leak suspects", state.observers.suspectCount > 0)
        for kind in EveryField.lifecycleKinds { require("log \(kind.rawValue)", kinds.contains(kind)) }
        return missing
    }

    /// What the flow graph lacks: a call site publishing pings, the ping's handler class with
    /// its calls, the pong its handlers publish, and the failed or slow handlers.
    static func missingInGraph(_ graph: FlowGraph) -> [String] {
        var missing: [String] = []
        if !graph.publishes.keys.contains(where: {
            $0.to == "MatrixPing" && $0.from.contains("EveryFieldScenario")
        }) {
            missing.append("call site")
        }
        if (graph.handles[FlowGraph.Edge(from: "MatrixPing", to: "MatrixScreen")] ?? 0) == 0 {
            missing.append("handler calls")
        }
        if graph.triggers[FlowGraph.Edge(from: "MatrixPing", to: "MatrixPong")] == nil {
            missing.append("cause")
        }
        if graph.troubles.isEmpty { missing.append("failed or slow handlers") }
        return missing
    }

    /// Checks every output of `outputs`, naming `source` in what fails.
    static func expectEveryField(_ outputs: Outputs, from source: String) {
        #expect(EveryField.missing(in: outputs.batches.flatMap(\.records)) == [], "\(source): batches")
        #expect(missingOnDashboard(outputs.batches) == [], "\(source): dashboard")
        #expect(EveryField.missing(in: outputs.headless) == [], "\(source): headless output")
        #expect(EveryField.missing(in: outputs.recording) == [], "\(source): recording")
        #expect(missingInGraph(outputs.graph) == [], "\(source): graph")
        // A recording and headless output of one run hold the same records in the same order,
        // hellos included.
        #expect(outputs.headless == outputs.recording, "\(source): same records")
    }

    /// The same checks for a replay of `outputs`' recording.
    static func expectReplayHasEveryField(_ outputs: Outputs, from source: String) throws {
        let directory = TemporaryDirectory()
        let replay = try ReplaySource(path: outputs.recordingPath, speed: 0)
        let replayed = try watch(replay, in: directory, name: "replay")
        expectEveryField(replayed, from: "replay of \(source)")
    }

    @Test func inProcess() throws {
        let scenario = EveryFieldScenario()
        let directory = TemporaryDirectory()
        let source = LocalBusSource(bus: scenario.bus, snapshotInterval: 0.05)
        let outputs = try Self.watch(source, in: directory, name: "local") { _ in scenario.run() }
        Self.expectEveryField(outputs, from: "in-process")
        try Self.expectReplayHasEveryField(outputs, from: "in-process")
    }

    @Test func attached() throws {
        let scenario = EveryFieldScenario()
        let directory = TemporaryDirectory()
        let path = directory.file("tap.sock")
        let tap = try BusTap(bus: scenario.bus, socketPath: path, snapshotInterval: 0.05)
        defer { tap.close() }
        let source = AttachSource(socketPath: path, retryInterval: 0.02)
        defer { source.close() }
        let outputs = try Self.watch(source, in: directory, name: "attach") { _ in
            // Once the monitor is attached, so that the tap passes everything on.
            _ = eventually { tap.connectedClients > 0 }
            scenario.run()
        }
        Self.expectEveryField(outputs, from: "attach")
        try Self.expectReplayHasEveryField(outputs, from: "attach")
    }

    @Test func dialledIn() throws {
        let scenario = EveryFieldScenario()
        let directory = TemporaryDirectory()
        let source = try ListenSource(address: "127.0.0.1:0", token: nil)
        defer { source.close() }
        let tap = try BusTap(
            bus: scenario.bus, monitor: source.address, token: source.token, app: "matrix",
            snapshotInterval: 0.05)
        defer { tap.close() }
        let outputs = try Self.watch(source, in: directory, name: "listen") { _ in
            _ = eventually { source.connectedApps > 0 && tap.connectedClients > 0 }
            scenario.run()
        }
        Self.expectEveryField(outputs, from: "listen")
        #expect(
            outputs.headless.contains {
                if case .event(let event) = $0 { event.origin?.app == "matrix" } else { false }
            })
        try Self.expectReplayHasEveryField(outputs, from: "listen")
    }
}

#if NATS && (os(macOS) || os(Linux))
    import ProcessTestSupport

    extension EveryFieldMatrixTests {
        /// A bridged app watched as a NATS fleet of one.
        @Test(.enabled(if: NATSServer.isInstalled, Comment(rawValue: NATSServer.missingMessage)))
        func natsFleet() throws {
            let server = try NATSServer()
            let scenario = EveryFieldScenario()
            let directory = TemporaryDirectory()
            let source = try NATSFleetSource(url: server.url)
            defer { source.close() }
            let bridge = try NATSBridge(
                bus: scenario.bus, url: server.url, app: "matrix",
                options: NATSBridgeOptions(
                    reconnectDelay: 0.02...0.2, connectTimeout: 1, host: "here", monitoringInterval: 0.05))
            defer { bridge.close() }
            let outputs = try Self.watch(source, in: directory, name: "nats") { keeping in
                // The source's subscription reaches the server in its own time; the bridge's
                // monitoring records, heard as the app joining, show that it has.
                _ = eventually { keeping.batches.contains { $0.fleet?.isEmpty == false } }
                scenario.run()
                _ = bridge.flush()
            }
            Self.expectEveryField(outputs, from: "NATS fleet")
            try Self.expectReplayHasEveryField(outputs, from: "NATS fleet")
        }
    }
#endif
