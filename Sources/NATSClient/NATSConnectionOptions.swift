/// How a ``NATSConnection`` connects and reconnects: the part of a bridge's options that nats.c
/// itself reads.
package struct NATSConnectionOptions: Sendable, Hashable {
    /// Seconds to wait for a server to answer one connection attempt.
    package var connectTimeout: Double
    /// Reconnect attempts before giving up; `nil` tries for ever.
    package var maximumReconnects: Int?
    /// The first and the longest wait between reconnect attempts, in seconds.
    package var reconnectDelay: ClosedRange<Double>
    /// Whether a server that does not answer at start is tried again in the background (the
    /// connection starts as ``NATSConnectionState/reconnecting``) rather than refused.
    package var keepTryingWhenUnreachable: Bool

    /// Creates options.
    package init(
        connectTimeout: Double, maximumReconnects: Int?, reconnectDelay: ClosedRange<Double>,
        keepTryingWhenUnreachable: Bool
    ) {
        self.connectTimeout = connectTimeout
        self.maximumReconnects = maximumReconnects
        self.reconnectDelay = reconnectDelay
        self.keepTryingWhenUnreachable = keepTryingWhenUnreachable
    }
}

/// Where a ``NATSConnection`` stands.
package enum NATSConnectionState: UInt8, Sendable, Hashable {
    /// Connected to a server.
    case connected
    /// Not connected, and trying to (also before the first connection).
    case reconnecting
    /// Given up after the allowed reconnect attempts.
    case disconnected
    /// Closed by its owner.
    case closed
}

/// Why nats.c refused: what the connection's callers turn into their own errors.
package enum NATSClientError: Error, Sendable, Hashable {
    /// The server address is not one nats.c takes.
    case invalidURL(String, reason: String)
    /// No server answered at the address.
    case unreachable(url: String, detail: String)
    /// A JetStream stream could not be made.
    case streamFailed(name: String, detail: String)
    /// Another nats.c call failed.
    case client(operation: String, detail: String)
}

/// The servers of a URL as busmon and the bridge take it: one URL, or several separated by
/// commas for a cluster, each `nats://` or `tls://`.
package enum NATSServerList {
    /// The URLs of `text`, without the spaces around them.
    package static func urls(in text: String) -> [String] {
        text.split(separator: ",").map { part in
            String(part.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        }.filter { !$0.isEmpty }
    }

    /// Whether a connection to `text` must be encrypted: a `tls://` URL is a promise that
    /// nothing crosses the network in clear, which nats.c keeps only when told to (it would
    /// otherwise speak plain text to a server that offers no TLS).
    package static func requiresTLS(_ text: String) -> Bool {
        urls(in: text).contains { $0.lowercased().hasPrefix("tls://") }
    }
}
