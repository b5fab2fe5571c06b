import BusMonitor
public import BusWire
public import EventBusNATS

/// One message from a fleet's subjects, decoded: what a bridge sends on `eventbus.>`.
public enum FleetMessage: Sendable, Hashable {
    /// An event's envelope (`eventbus.<app>.<Type>`), with its origin.
    case event(FeedEvent, origin: FeedOrigin)
    /// A subscriber lifecycle change (`eventbus.<app>._lifecycle`).
    case lifecycle(FeedLifecycle, origin: FeedOrigin)
    /// The app's bus counters (`eventbus.<app>._snapshot`).
    case snapshot(FeedSnapshot, origin: FeedOrigin)
    /// The bridge's state and counts (`eventbus.<app>._bridge`).
    case bridge(NATSBridgeReport)

    /// Why a message was not taken.
    public enum Problem: Error, Sendable, Hashable {
        /// Not a record of the wire format, nor a bridge record.
        case unreadable
        /// A record that names no app, host and pid, so it cannot be told whose it is.
        case noOrigin
        /// A record of a kind a fleet does not carry (a `hello`, say); ignored.
        case ignored
    }

    /// Reads one message's bytes.
    ///
    /// - Parameter bytes: The message, one JSON line.
    /// - Returns: The message, or why it was not taken.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<FleetMessage, Problem> {
        let line = UnsafeBufferPointer(
            start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        let record: FeedRecord
        do throws(FeedDecodingError) {
            record = try FeedRecord.decode(line: line)
        } catch {
            if case .unknownKind("bridge") = error, let report = NATSBridgeReport.decode(line: line) {
                return .success(.bridge(report))
            }
            return .failure(.unreadable)
        }
        switch record {
        case .event(let event):
            guard let origin = event.origin else { return .failure(.noOrigin) }
            return .success(.event(event, origin: origin))
        case .lifecycle(let change):
            guard let origin = change.origin else { return .failure(.noOrigin) }
            return .success(.lifecycle(change, origin: origin))
        case .snapshot(let snapshot):
            guard let origin = snapshot.origin else { return .failure(.noOrigin) }
            return .success(.snapshot(snapshot, origin: origin))
        case .hello, .dropped, .refused:
            return .failure(.ignored)
        }
    }

    /// Who sent it.
    public var origin: FeedOrigin {
        switch self {
        case .event(_, let origin), .lifecycle(_, let origin), .snapshot(_, let origin): return origin
        case .bridge(let report): return FeedOrigin(app: report.app, host: report.host, pid: report.pid)
        }
    }

    /// When the sender made it, seconds since 1970 on its clock.
    public var time: Double {
        switch self {
        case .event(let event, _): return event.time
        case .lifecycle(let change, _): return change.time
        case .snapshot(let snapshot, _): return snapshot.time
        case .bridge(let report): return report.time
        }
    }
}
