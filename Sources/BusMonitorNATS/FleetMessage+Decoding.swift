package import BusMonitor
internal import BusWire
package import EventBusNATS

extension FleetMessage {
    /// Why a message on a fleet's subjects was not taken.
    package enum Problem: Error, Sendable, Hashable {
        /// Not a record of the wire format, nor a bridge record.
        case unreadable
        /// A record that names no app, host and pid, so it cannot be told whose it is.
        case noOrigin
        /// A record of a kind a fleet does not carry (a `hello`, say); ignored.
        case ignored
    }

    /// Reads one message's bytes, as a bridge sends them on `eventbus.>`.
    ///
    /// - Parameter bytes: The message, one JSON line.
    /// - Returns: The message, or why it was not taken.
    package static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<FleetMessage, Problem> {
        let line = UnsafeBufferPointer(
            start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        let record: FeedRecord
        do throws(FeedDecodingError) {
            record = try FeedRecord.decode(line: line)
        } catch {
            if case .unknownKind("bridge") = error, let report = NATSBridgeReport.decode(line: line) {
                return .success(.link(FleetLinkReport(report)))
            }
            // A monitor's request for handler calls (this one's own, or another's).
            if case .unknownKind("trace") = error { return .failure(.ignored) }
            return .failure(.unreadable)
        }
        switch record {
        case .hello, .dropped, .refused, .detached:
            return .failure(.ignored)
        case .event, .lifecycle, .snapshot, .call:
            // A record of a process's own must name its sender.
            guard let origin = record.origin, let message = FleetMessage(record, origin: origin) else {
                return .failure(.noOrigin)
            }
            return .success(message)
        }
    }
}

extension FleetLinkReport {
    /// A NATS bridge's report as a fleet's link report.
    ///
    /// - Parameter report: What the bridge sent on `eventbus.<app>._bridge`.
    package init(_ report: NATSBridgeReport) {
        self.init(
            time: report.time, origin: FeedOrigin(app: report.app, host: report.host, pid: report.pid),
            kind: FleetLinkReport.bridgeKind, state: report.state, dropped: report.statistics.dropped,
            reconnects: report.statistics.reconnects, peer: "the server")
        droppedCalls = report.callsDropped
        droppedLifecycle = report.lifecycleDropped
        // Events are numbered 1, 2, … as they are forwarded, and only those.
        lastEventNumber = report.statistics.forwarded
    }
}
