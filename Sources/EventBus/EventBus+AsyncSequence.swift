import Synchronization

extension EventBus {
    /// The events of one type as an asynchronous sequence, for `for await` loops.
    ///
    /// ```swift
    /// let logins = bus.events(of: UserLoggedInEvent.self)
    /// for await event in logins {
    ///     await session.start(for: event.userId)
    /// }
    /// if logins.droppedCount > 0 { log("missed \(logins.droppedCount) logins") }
    /// ```
    ///
    /// The sequence subscribes at once and ends its subscription when the loop stops or the
    /// task is cancelled. A slow consumer never slows publishers: the sequence keeps the newest
    /// `limit` events waiting and drops older ones. It counts what it dropped, for its consumer
    /// (``EventStream/droppedCount``) and in ``snapshot()``, where monitors show it.
    ///
    /// - Parameters:
    ///   - type: The event type to receive.
    ///   - limit: How many undelivered events to keep; older ones are dropped first.
    /// - Returns: The events published from now on.
    public func events<T: Event>(of type: T.Type, bufferingNewest limit: Int = 256) -> EventStream<T> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: T.self, bufferingPolicy: .bufferingNewest(max(1, limit)))
        let measurements = HandlerMeasurements()
        let subscription = add(type, observer: nil, scheduler: nil, measurements: measurements) { event in
            if case .dropped = continuation.yield(event) {
                measurements.dropped.wrappingAdd(1, ordering: .relaxed)
            }
        }
        continuation.onTermination = { _ in
            subscription.cancel()
        }
        return EventStream(stream: stream, measurements: measurements)
    }
}

/// The events of one type published on a bus, for a `for await` loop, as
/// ``EventBus/events(of:bufferingNewest:)`` makes them; it counts the events it dropped
/// because its consumer fell behind.
public struct EventStream<Element: Event>: AsyncSequence, Sendable {
    /// The iterator a `for await` loop uses.
    public typealias AsyncIterator = AsyncStream<Element>.Iterator
    /// An event stream never throws.
    public typealias Failure = Never

    private let stream: AsyncStream<Element>
    private let measurements: HandlerMeasurements

    init(stream: AsyncStream<Element>, measurements: HandlerMeasurements) {
        self.stream = stream
        self.measurements = measurements
    }

    /// Events dropped so far, oldest first, because more than the buffer's limit waited: how
    /// many this stream's consumer missed.
    public var droppedCount: Int {
        measurements.dropped.load(ordering: .relaxed)
    }

    /// Starts iterating; a stream has one consumer.
    public func makeAsyncIterator() -> AsyncStream<Element>.Iterator {
        stream.makeAsyncIterator()
    }
}
