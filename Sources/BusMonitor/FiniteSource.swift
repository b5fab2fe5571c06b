internal import BusWire

/// A source that comes to an end, such as a replay, so that a runner knows when to stop.
package protocol FiniteSource: DashboardSource {
    /// Whether everything the source will ever deliver has been drained.
    var isFinished: Bool { get }
}

/// A source that passes another's batches on, doing something with each on the way (recording
/// them, graphing them): it is the wrapped source in everything else.
package protocol WrappingSource: FiniteSource {
    /// The source whose batches pass through.
    var wrapped: any DashboardSource { get }
}

extension WrappingSource {
    /// The wrapped source's title.
    package var title: String { wrapped.title }

    /// Whether the wrapped source has ended; never, unless it is a ``FiniteSource``.
    package var isFinished: Bool { (wrapped as? any FiniteSource)?.isFinished ?? false }

    /// The wrapped source's commands.
    package var supportedCommands: [SourceCommandDescription] { wrapped.supportedCommands }

    /// Paced as the wrapped source is.
    package var wantsPacedDrains: Bool { wrapped.wantsPacedDrains }

    /// Asks the wrapped source for handler calls.
    package func requestHandlerCalls() {
        wrapped.requestHandlerCalls()
    }

    /// Passes the command to the wrapped source.
    package func perform(_ command: SourceCommand) -> String? {
        wrapped.perform(command)
    }
}

extension SourceBatch {
    /// Adds `problem` (a file that could not be written, say) to ``problems``; the first time
    /// (`told` was false, and is now true) also as a warning for the log, or stderr when headless.
    package mutating func add(problem: SourceProblem, told: inout Bool) {
        problems.append(problem)
        guard !told else { return }
        told = true
        notices.append(SourceNotice(time: WallClock.now(), text: problem.text, isWarning: true))
    }

    /// The status with the monitor's own problems after it, as one line: `attached; recording
    /// to session.jsonl stopped: No space left on device`.
    package var statusWithProblems: String? { Self.statusLine(status, problems) }

    /// `status` and then `problems`, as one line; `nil` when there is neither.
    package static func statusLine(_ status: String?, _ problems: [SourceProblem]) -> String? {
        let parts = (status.map { [$0] } ?? []) + problems.map(\.text)
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}

/// What a source that writes records out (a graph, a trace) has taken already, so that each is
/// taken once: a replay whose cursor moved back hands the records before it over again.
struct RecordsTakenOnce: Sendable {
    /// The newest record time taken.
    private var newestTaken = -Double.infinity
    /// After a replay's cursor moved back, records up to this time were taken already.
    private var takenUpTo = -Double.infinity

    /// `batch` without the records taken before; notes the ones it keeps as taken.
    mutating func fresh(_ batch: SourceBatch) -> SourceBatch {
        if batch.replacesState { takenUpTo = newestTaken }
        var fresh = batch
        if takenUpTo > -Double.infinity {
            let upTo = takenUpTo
            // A hello has no record time, but the time it was said: one from before is sent
            // again by a replay that moved back, and must not read as a new process twice.
            fresh.records.removeAll { record in
                if case .hello(let hello) = record { return hello.time <= upTo }
                return (record.time ?? .infinity) <= upTo
            }
        }
        for record in fresh.records {
            if let time = record.time { newestTaken = max(newestTaken, time) }
        }
        return fresh
    }
}
