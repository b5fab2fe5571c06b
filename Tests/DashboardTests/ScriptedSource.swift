import BusMonitor
import BusWire
import BusmonApp
import Dashboard
import EventBus
import ScreenGrid
import TestSupport

struct UserLoggedInEvent: Event, Encodable, Equatable {
    let userId: String
    let userName: String
}

struct DataLoadedEvent: Event, Encodable, Equatable {
    let data: [String]
}

/// A source that hands over prepared batches, one per drain, and records commands; it takes
/// the simulated app's commands unless told otherwise.
final class ScriptedSource: DashboardSource {
    let title: String
    let supportedCommands: [SourceCommandDescription]
    let wantsPacedDrains: Bool
    private let batches = LockedValue<[SourceBatch]>([])
    private let commands = LockedValue<[SourceCommand]>([])

    init(
        title: String = "scripted",
        supportedCommands: [SourceCommandDescription] = SourceCommandDescription.simulatedApp,
        wantsPacedDrains: Bool = false
    ) {
        self.title = title
        self.supportedCommands = supportedCommands
        self.wantsPacedDrains = wantsPacedDrains
    }

    /// Batches queued and not drained yet.
    var waiting: Int { batches.withLock(\.count) }

    /// Queues `batch` for a later drain.
    func enqueue(_ batch: SourceBatch) {
        batches.withLock { $0.append(batch) }
    }

    /// The commands performed so far.
    var performed: [SourceCommand] { commands.current }

    func drain() -> SourceBatch {
        batches.withLock { $0.isEmpty ? SourceBatch() : $0.removeFirst() }
    }

    func perform(_ command: SourceCommand) -> String? {
        commands.withLock { $0.append(command) }
        switch command {
        case .increaseRate: return "rate 500/s"
        case .decreaseRate: return "rate 100/s"
        default: return nil
        }
    }
}

/// Seconds since 1970 at which scripted runs start.
let startTime = 1_700_000_000.0

func login(_ name: String, at time: Double, receivers: Int = 2) -> FeedEvent {
    FeedEvent(
        time: time, typeName: "UserLoggedInEvent",
        value: (UserLoggedInEvent(userId: "id-\(name)", userName: name)), receivers: receivers)
}

func dataLoaded(_ items: [String], at time: Double, receivers: Int = 3) -> FeedEvent {
    FeedEvent(
        time: time, typeName: "DataLoadedEvent", value: (DataLoadedEvent(data: items)),
        receivers: receivers)
}

func statistics(
    _ name: String, live: Int, dead: Int = 0, reclaimed: Int = 0, published: Int, unheard: Int = 0
) -> EventTypeStatistics {
    EventTypeStatistics(
        typeName: name, liveSubscribers: live, deadSubscribers: dead, reclaimedSubscribers: reclaimed,
        published: published, unheard: unheard)
}

/// A dashboard whose log holds 100 lines of two types, all at ``startTime``, fed by `source`.
func dashboardWithHundredLogLines(_ source: ScriptedSource = ScriptedSource()) -> SourceDashboard {
    let dashboard = SourceDashboard(source: source)
    source.enqueue(
        SourceBatch(
            events: (0..<50).flatMap {
                [login("u\($0)", at: startTime), dataLoaded(["d\($0)"], at: startTime)]
            }))
    dashboard.update(now: startTime)
    return dashboard
}

/// `dashboard` drawn onto a fresh grid of the given size.
func rendered(_ dashboard: SourceDashboard, width: Int, height: Int, now: Double) -> CellGrid {
    var grid = CellGrid(width: width, height: height)
    dashboard.render(into: &grid, now: now)
    return grid
}
