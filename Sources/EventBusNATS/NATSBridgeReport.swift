import BusWire
import Foundation

/// What a bridge says of itself on `eventbus.<app>._bridge`: its state and counts, with the
/// app, host and pid it speaks for. One JSON line (docs/nats-bridge.md), sent with every snapshot
/// (twice a second) and as soon as the state changes:
///
/// ```json
/// {"kind":"bridge","time":1712345678.5,"app":"checkout","host":"web-3","pid":4242,"state":"connected","forwarded":1200,"received":3,"dropped":0,"undecodable":0,"unencodable":0,"reconnects":1,"lifecycleDropped":0}
/// ```
public struct NATSBridgeReport: Sendable, Hashable {
    /// Seconds since 1970 when the report was made.
    public var time: Double
    /// The app name the bridge was given.
    public var app: String
    /// The bridge's host.
    public var host: String
    /// The bridge's process.
    public var pid: Int
    /// ``NATSBridgeState``'s name: `connected`, `reconnecting`, `disconnected` or `closed` (the
    /// last report of a bridge that was closed); a newer bridge may say more.
    public var state: String
    /// The bridge's counts when the report was made.
    public var statistics: NATSBridgeStatistics
    /// Lifecycle changes the bridge could not publish (it keeps 10,000 while the server is away).
    public var lifecycleDropped: Int
    /// Handler calls the bridge dropped while a monitor's trace asked for them (it keeps 20,000
    /// between two rounds of its monitoring thread).
    public var callsDropped = 0

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - time: When it was made.
    ///   - app: The app name.
    ///   - host: The host.
    ///   - pid: The process id.
    ///   - state: The state's name.
    ///   - statistics: The counts.
    ///   - lifecycleDropped: Lifecycle changes not published.
    public init(
        time: Double, app: String, host: String, pid: Int, state: String, statistics: NATSBridgeStatistics,
        lifecycleDropped: Int = 0
    ) {
        self.time = time
        self.app = app
        self.host = host
        self.pid = pid
        self.state = state
        self.statistics = statistics
        self.lifecycleDropped = lifecycleDropped
    }

    /// The report as one JSON line, ending in `\n`.
    package func encodeLine() -> [UInt8] {
        var writer = JSONLineWriter()
        writer.beginRecord("bridge")
        writer.field("time", time)
        writer.field(origin: FeedOrigin(app: app, host: host, pid: pid))
        writer.field("state", state)
        writer.field("forwarded", statistics.forwarded)
        writer.field("received", statistics.received)
        writer.field("dropped", statistics.dropped)
        writer.field("undecodable", statistics.undecodable)
        writer.field("unencodable", statistics.unencodable)
        writer.field("reconnects", statistics.reconnects)
        writer.field("lifecycleDropped", lifecycleDropped)
        if callsDropped > 0 { writer.field("callsDropped", callsDropped) }
        writer.endRecord()
        return writer.bytes
    }

    /// Reads a line ``encodeLine()`` wrote; counts a newer bridge leaves out read as 0.
    ///
    /// - Parameter line: The bytes of one message.
    /// - Returns: The report, or `nil` when the line is not a `bridge` record, or has a negative
    ///   count or pid or a time out of the wire's range.
    package static func decode(line: some Collection<UInt8>) -> NATSBridgeReport? {
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(line)), wire.kind == "bridge" else {
            return nil
        }
        // Read within the ranges every other record is read in (docs/wire-format.md): counts and
        // the pid from 0, the time from 0 to 2^32 seconds. A report from anyone who can publish
        // on the subject must not give a monitor a negative count to subtract from.
        let counts = [
            wire.pid, wire.forwarded, wire.received, wire.dropped, wire.undecodable, wire.unencodable,
            wire.reconnects, wire.lifecycleDropped, wire.callsDropped,
        ]
        guard counts.allSatisfy({ ($0 ?? 0) >= 0 }), wire.time >= 0, wire.time <= FeedRecord.latestTime else {
            return nil
        }
        var report = NATSBridgeReport(
            time: wire.time, app: wire.app, host: wire.host, pid: wire.pid, state: wire.state,
            statistics: NATSBridgeStatistics(
                forwarded: wire.forwarded ?? 0, received: wire.received ?? 0, dropped: wire.dropped ?? 0,
                undecodable: wire.undecodable ?? 0, unencodable: wire.unencodable ?? 0,
                reconnects: wire.reconnects ?? 0),
            lifecycleDropped: wire.lifecycleDropped ?? 0)
        report.callsDropped = wire.callsDropped ?? 0
        return report
    }

    /// The record's fields as JSON has them.
    private struct Wire: Decodable {
        var kind: String
        var time: Double
        var app: String
        var host: String
        var pid: Int
        var state: String
        var forwarded: Int?
        var received: Int?
        var dropped: Int?
        var undecodable: Int?
        var unencodable: Int?
        var reconnects: Int?
        var lifecycleDropped: Int?
        var callsDropped: Int?
    }
}
