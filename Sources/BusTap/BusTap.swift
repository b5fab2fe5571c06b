public import BusWire
public import EventBus
import Foundation

/// Streams a bus's activity to every monitor connected to a Unix domain socket.
///
/// An app opts in with one line, and keeps the tap for as long as it wants to be watched:
///
/// ```swift
/// let tap = try BusTap(bus: .shared, socketPath: "/tmp/myapp.sock")
/// ```
///
/// Then `busmon --attach /tmp/myapp.sock` shows it live, and `nc -U /tmp/myapp.sock | jq .` shows
/// the raw lines (docs/wire-format.md describes them). An app that cannot share a socket with
/// its monitor, such as an app on a phone, dials out to `busmon --listen` instead, with
/// ``init(bus:monitor:token:app:snapshotInterval:clientQueueCapacity:redacting:onStatus:)``.
///
/// Fields that hold secrets (``PayloadRedaction/default``: passwords, tokens, API keys, …) reach
/// monitors as `"<redacted>"`; the app's own subscribers get them whole.
///
/// ## Cost to the app
/// - With nobody connected the tap is not even subscribed to the bus, and its thread sleeps.
/// - With readers connected, the publisher's thread only stores the event itself in a bounded
///   inbox (a lock held for a few stores, no formatting, no system calls). A tap thread, at a
///   lower scheduling priority than the app's threads, formats JSON and writes to the sockets.
/// - A reader that falls behind loses the oldest records, never slows the app, and is told how
///   many it lost with `dropped` lines. Counters in `snapshot` lines come from
///   ``EventBus/snapshot(instancesPerClass:)``, with up to ``FeedSnapshot/instancesPerClass``
///   observer objects of each class, and stay exact whatever was dropped. Lifecycle lines carry
///   every field of ``SubscriberLifecycleEvent``, leak suspicions included.
/// - Under a flood (more than `clientQueueCapacity` events between two rounds of the tap
///   thread, about a million a second by default) the inbox keeps the first events of each
///   round and only counts the rest, which costs the publisher least when it publishes most.
///   When a reader has been behind for 80 ms, the inbox keeps each round only a quarter
///   more than the most eager reader took in a round, and counts the rest the same way: an app
///   publishing faster than its monitors read does not store, and the tap does not format,
///   what nobody would read (a reader that keeps up takes all, and the limit with it). A round
///   in which every reader catches up lifts the limit.
/// - While watched, the tap is one wildcard observer on the bus, and snapshots show it as such.
///
/// ## Safety
/// The socket file is created with mode 0600 (only its owner may connect). A socket file left by
/// a process that died is replaced; a path that holds anything else is never deleted, and
/// ``init(bus:socketPath:snapshotInterval:clientQueueCapacity:processName:)`` throws instead.
/// Readers that disconnect or die are dropped without raising `SIGPIPE`.
///
/// ## Limits
/// At most 64 monitors are served at once; a connection beyond them gets one `refused` line
/// (`64 monitors attached`) and is closed. A monitor that leaves its output waiting and takes
/// none of it for 10 seconds (it stopped reading, and its socket buffer is full) is disconnected
/// to free its place, as Redis disconnects a subscriber past its output limit. Every `snapshot`
/// line carries the tap's counts of both in its `tap` field.
public final class BusTap: Sendable {
    /// The socket path monitors connect to; empty for a tap that dials its monitor.
    public let socketPath: String
    private let server: TapServer

    /// Opens the socket and starts serving monitors.
    ///
    /// - Parameters:
    ///   - bus: The bus to watch, often `.shared`.
    ///   - socketPath: Where to create the socket: at most 107 bytes on Linux, 103 on Apple
    ///     platforms (``BusTapError/pathTooLong(path:limit:)`` says which). An iOS Simulator
    ///     app's container `tmp/` folder is longer than that; use a short path such as
    ///     `/tmp/myapp.sock`, which the Mac's monitor reaches too. A stale socket file there is
    ///     replaced; a live tap's, or any other file, is an error. `PATH.lock` beside it is the
    ///     tap's lock on the path while it lives.
    ///   - snapshotInterval: Seconds between `snapshot` lines to each reader.
    ///   - clientQueueCapacity: How many records a reader may fall behind before it loses the
    ///     oldest, and how many events the inbox holds between two rounds of the tap thread;
    ///     memory for three times this many events is used while anyone is connected.
    ///   - processName: The name monitors show for this app.
    ///   - redaction: The fields of events whose values monitors see as `"<redacted>"`:
    ///     ``PayloadRedaction/default`` (passwords, tokens, secrets, API keys, …) unless given.
    /// - Throws: ``BusTapError`` when the socket cannot be created.
    public convenience init(
        bus: EventBus, socketPath: String, snapshotInterval: Double = 0.5, clientQueueCapacity: Int = 10_000,
        processName: String = ProcessInfo.processInfo.processName,
        redacting redaction: PayloadRedaction = .default
    ) throws(BusTapError) {
        try self.init(
            bus: bus, socketPath: socketPath, snapshotInterval: snapshotInterval,
            clientQueueCapacity: clientQueueCapacity, processName: processName,
            maximumMonitors: TapServer.defaultMaximumClients, idleTimeout: TapServer.defaultIdleTimeout,
            redaction: redaction)
    }

    /// Opens the socket with other limits on monitors, for tests that cannot wait ten seconds or
    /// open 64 connections.
    ///
    /// - Parameters:
    ///   - maximumMonitors: Monitors served at once; a connection beyond them gets a `refused`
    ///     line and is closed.
    ///   - idleTimeout: Seconds a monitor may leave output waiting without taking any of it
    ///     before it is disconnected.
    package init(
        bus: EventBus, socketPath: String, snapshotInterval: Double = 0.5, clientQueueCapacity: Int = 10_000,
        processName: String = ProcessInfo.processInfo.processName, maximumMonitors: Int, idleTimeout: Double,
        redaction: PayloadRedaction = .default
    ) throws(BusTapError) {
        self.socketPath = socketPath
        server = try TapServer(
            bus: bus, socketPath: socketPath, snapshotInterval: snapshotInterval,
            capacity: max(1, clientQueueCapacity), processName: processName, maximumClients: maximumMonitors,
            idleTimeout: idleTimeout, redaction: redaction)
        server.start()
    }

    /// Dials out to a monitor instead of listening: `busmon --listen HOST:PORT` on a Mac or
    /// another machine, for an app on a phone or anywhere a Unix socket does not reach.
    ///
    /// ```swift
    /// let tap = try BusTap(bus: .shared, monitor: "192.168.1.20:7777", token: "k3yf0rth3m0n1t0r")
    /// ```
    ///
    /// The tap never makes the app wait for the monitor. With no monitor listening it keeps
    /// trying in the background, backing off to one attempt every 4 seconds, and connects by
    /// itself once the monitor starts; a monitor that restarts gets the app back the same way.
    /// Nothing is subscribed to the bus and nothing is encoded while no monitor has welcomed the
    /// app, and what waits for a slow link is bounded as for a tap's socket: the oldest records
    /// are dropped and counted.
    ///
    /// The token is sent in the clear over TCP: it keeps other apps and strangers on the network
    /// from showing up in the monitor, not eavesdroppers from reading the stream (README,
    /// "Watching other processes"; docs/busmon.md, "Secrets stay in the app"). On iOS, reaching a Mac on the local network needs the Local Network
    /// permission (`NSLocalNetworkUsageDescription` in Info.plist); loopback needs nothing.
    ///
    /// - Parameters:
    ///   - bus: The bus to watch, often `.shared`.
    ///   - monitor: Where the monitor listens: `HOST:PORT`, `[IPv6]:PORT`.
    ///   - token: The token the monitor shows (or was given with `--token`).
    ///   - app: The name the monitor shows for this app.
    ///   - snapshotInterval: Seconds between `snapshot` records.
    ///   - clientQueueCapacity: How many records the link may fall behind before it loses the
    ///     oldest.
    ///   - redaction: The fields of events whose values the monitor sees as `"<redacted>"`.
    ///   - onStatus: Called on the tap's thread when the link's state changes: connected,
    ///     refused (with the monitor's reason, such as `wrong token`), or not reached.
    /// - Throws: ``BusTapError/invalidMonitorAddress(_:)`` or ``BusTapError/invalidToken``.
    public init(
        bus: EventBus, monitor: String, token: String, app: String = ProcessInfo.processInfo.processName,
        snapshotInterval: Double = 0.5, clientQueueCapacity: Int = 10_000,
        redacting redaction: PayloadRedaction = .default,
        onStatus: (@Sendable (MonitorLinkStatus) -> Void)? = nil
    ) throws(BusTapError) {
        guard let address = NetworkAddress(monitor), !address.host.isEmpty, address.port > 0 else {
            throw .invalidMonitorAddress(monitor)
        }
        guard !token.isEmpty, !token.contains(where: \.isNewline) else { throw .invalidToken }
        self.socketPath = ""
        let dial = MonitorLinkHandshake.Dial(
            token: token, app: app, host: System.hostName(),
            pid: Int(ProcessInfo.processInfo.processIdentifier))
        server = try TapServer(
            bus: bus, monitor: address, dial: dial, snapshotInterval: snapshotInterval,
            capacity: max(1, clientQueueCapacity), redaction: redaction, report: onStatus ?? { _ in })
        server.start()
    }

    deinit {
        server.stop()
    }

    /// Disconnects every monitor, stops the tap thread and removes the socket file.
    ///
    /// Waits for the tap thread to finish. Calling it again does nothing; releasing the tap
    /// closes it too.
    public func close() {
        server.stop()
    }

    /// How many monitors are connected now; for a tap that dials its monitor, 1 while the
    /// monitor has it, else 0.
    public var connectedClients: Int {
        server.clientCount
    }
}
