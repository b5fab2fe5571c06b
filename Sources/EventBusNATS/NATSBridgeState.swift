/// Where a ``NATSBridge``'s connection to the server stands.
public enum NATSBridgeState: String, Sendable, Hashable, CustomStringConvertible {
    /// Connected: events are forwarded as they are published.
    case connected
    /// Not connected, trying again with backoff: events are kept, the newest up to the queue's
    /// capacity, and sent once connected.
    case reconnecting
    /// Not connected, and the client gave up; nothing more is sent. Only a bridge whose
    /// reconnect attempts were limited gets here.
    case disconnected
    /// ``NATSBridge/close()`` was called (or the bridge was released).
    case closed

    /// The state's name, as monitors show it.
    public var description: String { rawValue }
}

/// What a ``NATSBridge`` has done since it started. Each count only grows.
public struct NATSBridgeStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Events handed to the NATS client to send.
    public var forwarded: Int
    /// Events of the registered types that arrived from other processes and were republished
    /// on the local bus.
    public var received: Int
    /// Events never sent: the oldest, pushed out of a full queue (while disconnected, or when
    /// publishers outran the bridge), and those the client refused.
    public var dropped: Int
    /// Messages on a registered type's subjects that did not decode as that type.
    public var undecodable: Int
    /// `Encodable` events whose encoding threw (a `Double.nan` field, say), so not sent.
    public var unencodable: Int
    /// Times the connection came back after it was lost.
    public var reconnects: Int

    /// Creates statistics with the given counts.
    ///
    /// - Parameters:
    ///   - forwarded: Events handed to the client.
    ///   - received: Events republished from the network.
    ///   - dropped: Events never sent.
    ///   - undecodable: Messages that did not decode.
    ///   - unencodable: Events whose encoding threw.
    ///   - reconnects: Reconnections.
    public init(
        forwarded: Int = 0, received: Int = 0, dropped: Int = 0, undecodable: Int = 0, unencodable: Int = 0,
        reconnects: Int = 0
    ) {
        self.forwarded = forwarded
        self.received = received
        self.dropped = dropped
        self.undecodable = undecodable
        self.unencodable = unencodable
        self.reconnects = reconnects
    }

    /// The counts on one line: `forwarded 12 received 3 dropped 0 …`.
    public var description: String {
        "forwarded \(forwarded) received \(received) dropped \(dropped) undecodable \(undecodable) "
            + "unencodable \(unencodable) reconnects \(reconnects)"
    }
}
