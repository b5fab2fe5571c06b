import BusMonitor
import Foundation

/// Waits until `condition` holds or `timeout` seconds pass; returns whether it held.
///
/// Tests use it for what another thread or process does in its own time; the timeout is long,
/// since it is only reached when a test fails or the machine is very busy.
package func eventually(timeout: Double = 30, _ condition: () -> Bool) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(timeout)
    while clock.now < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}

/// Drains `source` every few milliseconds until `condition` holds for everything drained so far.
package func drainUntil(
    _ source: any DashboardSource, timeout: Double = 60, _ condition: ([SourceBatch]) -> Bool
) -> [SourceBatch] {
    var batches: [SourceBatch] = []
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(timeout)
    repeat {
        batches.append(source.drain())
        if condition(batches) { break }
        usleep(5_000)
    } while clock.now < deadline
    return batches
}
