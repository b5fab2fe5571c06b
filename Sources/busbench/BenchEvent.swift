import EventBus

/// An event the benchmark publishes: a value every handler adds into its accumulator, and the
/// lane (publishing thread) whose accumulators receive it.
protocol BenchPayload: Event {
    var value: Int { get }
    var lane: Int { get }
    init(value: Int, lane: Int)
}

/// The event type of the per-delivery measurements.
struct BenchEvent: BenchPayload {
    let value: Int
    let lane: Int
}

/// A second event type, for a second publishing thread that publishes a type of its own.
struct OtherBenchEvent: BenchPayload {
    let value: Int
    let lane: Int
}

/// A type that observers subscribe to and nobody publishes, for the observer churn measurement.
struct NeverPublishedEvent: Event {
    let value: Int
}

/// A type published while observers come and go, so the bus does its usual publish work.
struct ChurnPingEvent: Event {
    let value: Int
}

/// An observer object whose lifetime bounds an observer-form subscription.
final class BenchObserver: Sendable {}

/// A class that carries an event through NotificationCenter's `object`.
final class BenchEventBox: Sendable {
    let event: BenchEvent

    init(_ event: BenchEvent) {
        self.event = event
    }
}
