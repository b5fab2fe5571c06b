import EventBus

/// What `snapshot()` costs on a bus with many live observers, which is what a monitor pays twice
/// a second: every list counted, every observer's weak reference read, the leak suspects listed.
struct SnapshotCost {
    /// Four observer classes, as an app has several kinds of screen.
    private final class ListScreen: Sendable {}
    private final class DetailScreen: Sendable {}
    private final class EditorScreen: Sendable {}
    private final class SettingsScreen: Sendable {}

    struct Result {
        /// Median milliseconds of `snapshot()`.
        let plain: Double
        /// Median milliseconds of `snapshot(instancesPerClass: 50)`, as busmon takes them.
        let withInstances: Double
        let observerRows: Int
        let liveInstances: Int
        let suspects: Int
    }

    let observers: Int
    let rounds: Int

    func run() -> Result {
        let bus = EventBus(name: "busbench-snapshot")
        let made: [AnyObject] = (0..<observers).map { index in
            switch index % 4 {
            case 0: ListScreen()
            case 1: DetailScreen()
            case 2: EditorScreen()
            default: SettingsScreen()
            }
        }
        for observer in made {
            bus.subscribe(observer: observer) { (_: BenchEvent) in }
            bus.subscribe(observer: observer) { (_: ChurnPingEvent) in }
        }
        // A hundred of them outlived the time they were given: leak suspects to list.
        for observer in made.prefix(100) {
            bus.expectDeallocation(of: observer, within: .zero, reason: "closed")
        }
        func median(_ body: () -> Void) -> Double {
            var times: [Double] = []
            for _ in 0..<rounds { times.append(Sampler.time(body) / 1e6) }
            return times.sorted()[times.count / 2]
        }
        let plain = median { _ = bus.snapshot() }
        let withInstances = median { _ = bus.snapshot(instancesPerClass: 50) }
        let snapshot = bus.snapshot()
        withExtendedLifetime(made) {}
        return Result(
            plain: plain, withInstances: withInstances, observerRows: snapshot.observers.count,
            liveInstances: snapshot.observers.reduce(0) { $0 + $1.liveInstances },
            suspects: snapshot.leakSuspects.count)
    }
}
