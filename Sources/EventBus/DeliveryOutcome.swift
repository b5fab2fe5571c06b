/// The outcome of offering an event to one entry.
enum DeliveryOutcome {
    case delivered
    /// Handed to the subscriber's queue or actor; counted as delivered when the handler runs.
    case scheduled
    case skipped
    case observerDied
}
