public import EventBus

/// Carries a bus's events to other processes through a NATS server, and theirs back.
///
/// Every `Encodable` event published on the bus goes to the subject
/// `eventbus.<app>.<EventTypeName>` as one JSON line (docs/nats-bridge.md describes it), and
/// events of the types registered with ``receive(_:)`` that other processes publish are
/// republished on the bus:
///
/// ```swift
/// let bridge = try NATSBridge(bus: .shared, url: "nats://127.0.0.1:4222", app: "checkout")
/// bridge.receive(UserLoggedInEvent.self)
/// ```
///
/// ## Cost to the app
/// The bridge is one wildcard observer on the bus. A publish only stores the event in a bounded
/// queue (a lock held for a few stores); a bridge thread encodes it and hands it to nats.c,
/// whose own thread writes to the socket. When the queue is full (while the server is away, or
/// when publishers outrun the bridge) the oldest event goes and is counted in
/// ``NATSBridgeStatistics/dropped``: the publisher never waits.
///
/// ## No echoes, no loops
/// The server is told not to send the bridge's own messages back, and every message names the
/// bridge that sent it, which ignores its own. An event republished from the network is not
/// forwarded again, so two apps that receive each other's types do not send an event round for
/// ever. Events that handlers publish in reaction to it are new events, and are forwarded.
///
/// ## Monitoring
/// Unless ``NATSBridgeOptions/monitoring`` is off, the bridge also publishes, on a connection of
/// its own, what `busmon --attach nats://…` shows of the app: the bus's snapshot twice a second
/// on `eventbus.<app>._snapshot`, each subscriber lifecycle change on `eventbus.<app>._lifecycle`,
/// and its own state and counts (``NATSBridgeReport``) on `eventbus.<app>._bridge`.
///
/// ## Connection
/// nats.c reconnects with backoff (``NATSBridgeOptions/reconnectDelay``) for as long as the
/// bridge lives; ``state`` tells where it stands. Received messages that do not decode as their
/// type are counted in ``NATSBridgeStatistics/undecodable`` and otherwise ignored.
///
/// Built without the package's `NATS` trait the type is still there, so code that imports it
/// compiles, but the initializer throws ``NATSBridgeError/builtWithoutNATS``.
public final class NATSBridge: Sendable {
    /// The app name in the subjects and envelopes this bridge sends.
    public let app: String
    /// The server URL the bridge was given.
    public let url: String

    #if NATS
        let core: BridgeCore
        /// Publishes snapshots, lifecycle changes and the bridge's state, unless turned off.
        let monitoring: MonitoringPublisher?
    #endif

    /// Connects to a NATS server and starts forwarding the bus's events.
    ///
    /// - Parameters:
    ///   - bus: The bus whose events to forward, and where received events are republished.
    ///   - url: The server, `nats://host:port`; several, separated by commas, for a cluster.
    ///   - app: The app's name, the second token of every subject it publishes on; characters
    ///     a subject may not hold are escaped (see ``NATSSubject``).
    ///   - stream: When given, a JetStream stream over `eventbus.>` that keeps events for replay
    ///     is created if it does not exist yet.
    ///   - options: Start, queue and reconnect behavior.
    /// - Throws: ``NATSBridgeError``: a bad URL or app name, no server reachable (unless
    ///   ``NATSBridgeOptions/StartPolicy/keepTrying``), a stream that cannot be created, or
    ///   ``NATSBridgeError/builtWithoutNATS``.
    public init(
        bus: EventBus, url: String, app: String, stream: NATSStreamOptions? = nil,
        options: NATSBridgeOptions = NATSBridgeOptions()
    ) throws(NATSBridgeError) {
        #if NATS
            try NATSServerURL.validate(url)
            guard !app.isEmpty else { throw .invalidAppName }
            self.app = app
            self.url = url
            let core = try BridgeCore(bus: bus, url: url, app: app, stream: stream, options: options)
            self.core = core
            do throws(NATSBridgeError) {
                monitoring =
                    options.monitoring
                    ? try MonitoringPublisher(bus: bus, core: core, url: url, app: app, options: options)
                    : nil
            } catch {
                core.close()
                throw error
            }
        #else
            throw .builtWithoutNATS
        #endif
    }

    deinit {
        close()
    }

    /// Republishes on the bus the events of type `type` that other processes' bridges send.
    ///
    /// Events of this type from any app arrive, except this bridge's own. Registering a type
    /// twice does nothing more.
    ///
    /// - Parameter type: The event type; its name must match the sender's type name.
    public func receive<T: Event & Decodable>(_ type: T.Type) {
        #if NATS
            core.receive(type)
        #endif
    }

    /// Where the connection stands now.
    public var state: NATSBridgeState {
        #if NATS
            core.state
        #else
            .closed
        #endif
    }

    /// What the bridge has forwarded, received and dropped so far.
    public var statistics: NATSBridgeStatistics {
        #if NATS
            core.statistics
        #else
            NATSBridgeStatistics()
        #endif
    }

    /// The last error met after the start, such as a stream that could not be created once the
    /// server came back; `nil` when there was none.
    public var lastError: NATSBridgeError? {
        #if NATS
            core.lastError
        #else
            nil
        #endif
    }

    /// Waits until the events published before the call are with the server.
    ///
    /// Returns once the bridge thread has handed every one of them to nats.c (or dropped it)
    /// and the server has answered a ping sent after them, which also means that the
    /// subscriptions of types registered with ``receive(_:)`` so far are in place. An app about
    /// to exit calls it so that its last events are not lost.
    ///
    /// - Parameter timeout: Seconds to wait at most.
    /// - Returns: Whether all of that happened in time; `false` while disconnected.
    @discardableResult
    public func flush(timeout: Double = 5) -> Bool {
        #if NATS
            core.flush(timeout: timeout)
        #else
            false
        #endif
    }

    /// Stops forwarding and receiving, and closes the connection.
    ///
    /// Events still queued are sent first if the server is connected (waiting at most half a
    /// second for it to take them). When this returns, the bridge thread has ended, no received
    /// event will be republished, and nats.c holds nothing of the bridge. Calling it again does
    /// nothing; releasing the bridge closes it too.
    public func close() {
        #if NATS
            // The events first (closing the core sends what is queued and waits for the server),
            // then monitoring's last snapshot and `closed` record, so that a monitor hears of
            // the bridge's end after its last events.
            core.close()
            monitoring?.close()
        #endif
    }
}
