public import EventBus
import Foundation

/// Streams a bus's activity to every monitor connected to a Unix domain socket.
///
/// An app opts in with one line, and keeps the tap for as long as it wants to be watched:
///
/// ```swift
/// let tap = try BusTap(bus: .shared, socketPath: "/tmp/myapp.bus")
/// ```
///
/// Then `busmon --attach /tmp/myapp.bus` shows it live, and `nc -U /tmp/myapp.bus | jq .` shows
/// the raw lines (docs/wire-format.md describes them).
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
    /// The socket path monitors connect to.
    public let socketPath: String
    private let server: TapServer

    /// Opens the socket and starts serving monitors.
    ///
    /// - Parameters:
    ///   - bus: The bus to watch, often `.shared`.
    ///   - socketPath: Where to create the socket; at most 107 bytes. A stale socket file there is
    ///     replaced; any other file is an error.
    ///   - snapshotInterval: Seconds between `snapshot` lines to each reader.
    ///   - clientQueueCapacity: How many records a reader may fall behind before it loses the
    ///     oldest, and how many events the inbox holds between two rounds of the tap thread;
    ///     memory for three times this many events is used while anyone is connected.
    ///   - processName: The name monitors show for this app.
    /// - Throws: ``BusTapError`` when the socket cannot be created.
    public convenience init(
        bus: EventBus, socketPath: String, snapshotInterval: Double = 0.5, clientQueueCapacity: Int = 10_000,
        processName: String = ProcessInfo.processInfo.processName
    ) throws(BusTapError) {
        try self.init(
            bus: bus, socketPath: socketPath, snapshotInterval: snapshotInterval,
            clientQueueCapacity: clientQueueCapacity, processName: processName,
            maximumMonitors: TapServer.defaultMaximumClients, idleTimeout: TapServer.defaultIdleTimeout)
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
        processName: String = ProcessInfo.processInfo.processName, maximumMonitors: Int, idleTimeout: Double
    ) throws(BusTapError) {
        self.socketPath = socketPath
        server = try TapServer(
            bus: bus, socketPath: socketPath, snapshotInterval: snapshotInterval,
            capacity: max(1, clientQueueCapacity), processName: processName, maximumClients: maximumMonitors,
            idleTimeout: idleTimeout)
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

    /// How many monitors are connected now.
    public var connectedClients: Int {
        server.clientCount
    }
}
