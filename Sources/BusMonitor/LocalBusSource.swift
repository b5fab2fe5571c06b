internal import BusWire
internal import Dispatch
package import EventBus

/// A ``DashboardSource`` for a bus in the same process: a ``BusCapture`` for events and
/// lifecycle changes, plus a snapshot of the bus's counters a few times a second, listing up to
/// ``FeedSnapshot/instancesPerClass`` observer objects of each class, as a tap's snapshots do.
///
/// ```swift
/// let destroy = SourceCommand("destroy-screens")
/// let source = LocalBusSource(
///     bus: bus, title: "simulated app (seed 7)",
///     supportedCommands: [
///         SourceCommandDescription(
///             keys: [.init(command: destroy, characters: ["c"])], keyText: "c", barLabel: "Destroy",
///             help: "close a batch of screens at once")
///     ]
/// ) { command in
///     command == destroy ? "destroyed \(app.destroyScreens()) screens" : nil
/// }
/// ```
package final class LocalBusSource: DashboardSource {
    /// Seconds between two snapshots when no interval is given.
    package static let defaultSnapshotInterval = 0.2

    /// What is being watched, for the header.
    package let title: String
    /// The bus being watched.
    package let bus: EventBus
    /// The capture that records the bus's events and lifecycle changes.
    package let capture: BusCapture
    /// Least seconds between two snapshots; snapshots cost O(subscriptions) under the bus's lock.
    package let snapshotInterval: Double
    /// The commands the closure given at creation carries out.
    package let supportedCommands: [SourceCommandDescription]

    private let commands: @Sendable (SourceCommand) -> String?
    private let clock: @Sendable () -> Double
    private let lastSnapshotTime = LockedValue<Double?>(nil)

    /// Starts watching `bus`, with commands for what runs on it when given any.
    ///
    /// - Parameters:
    ///   - bus: The bus to watch.
    ///   - title: What the header shows; the bus's name when `nil`.
    ///   - capacity: Events buffered between two drains; later ones are dropped and counted.
    ///   - snapshotInterval: Least seconds between two snapshots of the bus's counters.
    ///   - supportedCommands: The commands `commands` carries out, as the monitor offers them;
    ///     none by default.
    ///   - commands: Carries out the person's commands, returning a short message, or `nil`
    ///     when the command does not apply; none by default.
    package convenience init(
        bus: EventBus, title: String? = nil, capacity: Int = BusCapture.defaultCapacity,
        snapshotInterval: Double = defaultSnapshotInterval,
        supportedCommands: [SourceCommandDescription] = [],
        commands: @escaping @Sendable (SourceCommand) -> String? = { _ in nil }
    ) {
        self.init(
            bus: bus, title: title, capture: BusCapture(bus: bus, capacity: capacity),
            snapshotInterval: snapshotInterval, supportedCommands: supportedCommands, commands: commands,
            clock: { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 })
    }

    /// Starts watching with `capture` and reading time from `clock`, a monotonic seconds clock.
    init(
        bus: EventBus, title: String?, capture: BusCapture, snapshotInterval: Double,
        supportedCommands: [SourceCommandDescription] = [],
        commands: @escaping @Sendable (SourceCommand) -> String?, clock: @escaping @Sendable () -> Double
    ) {
        self.supportedCommands = supportedCommands
        self.bus = bus
        self.title = title ?? "bus \(bus.name)"
        self.capture = capture
        self.snapshotInterval = max(0, snapshotInterval)
        self.commands = commands
        self.clock = clock
    }

    /// Everything captured since the previous call, with a fresh snapshot when one is due.
    package func drain() -> SourceBatch {
        drain(forcingSnapshot: false)
    }

    /// Everything captured since the previous call, with a fresh snapshot whether one is due or
    /// not. Once nothing publishes any more, the snapshot then counts exactly what the batch
    /// holds: no publish is between its count and its capture (a publish counts its event
    /// before its handlers run, and the capture sees it after them).
    package func drainLast() -> SourceBatch {
        drain(forcingSnapshot: true)
    }

    private func drain(forcingSnapshot: Bool) -> SourceBatch {
        let drained = capture.drain()
        let now = clock()
        let isSnapshotDue = lastSnapshotTime.withLock { last -> Bool in
            if !forcingSnapshot, let last, now - last < snapshotInterval { return false }
            last = now
            return true
        }
        var records = drained.records
        if isSnapshotDue {
            // Taken after the drain, so it comes last: it counts every event before it.
            records.append(
                .snapshot(
                    FeedSnapshot(
                        time: WallClock.now(),
                        snapshot: bus.snapshot(instancesPerClass: FeedSnapshot.instancesPerClass))))
        }
        var batch = SourceBatch(
            records: records, droppedEvents: drained.droppedEvents,
            status: capture.isAttached ? "live" : "detached")
        batch.droppedCalls = drained.droppedCalls
        batch.droppedLifecycle = drained.droppedLifecycle
        return batch
    }

    /// Captures every handler call of the bus from now on, for a trace.
    package func requestHandlerCalls() {
        capture.captureHandlerCalls()
    }

    /// Hands `command` to the closure given at creation.
    package func perform(_ command: SourceCommand) -> String? {
        commands(command)
    }
}
