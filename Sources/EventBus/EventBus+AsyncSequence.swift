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
    /// The sequence subscribes at once and ends its subscription when its loop stops (at a
    /// `break`, a `return` or an error, even while the sequence is still held), when the task is
    /// cancelled, or when the sequence is released without a loop. A slow consumer never slows publishers: the sequence keeps the newest
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
        return EventStream(stream: stream, continuation: continuation, measurements: measurements)
    }
}

/// The events of one type published on a bus, for a `for await` loop, as
/// ``EventBus/events(of:bufferingNewest:)`` makes them; it counts the events it dropped
/// because its consumer fell behind.
public struct EventStream<Element: Event>: AsyncSequence, Sendable {
    /// An event stream never throws.
    public typealias Failure = Never

    private let stream: AsyncStream<Element>
    private let continuation: AsyncStream<Element>.Continuation
    private let measurements: HandlerMeasurements

    init(
        stream: AsyncStream<Element>, continuation: AsyncStream<Element>.Continuation,
        measurements: HandlerMeasurements
    ) {
        self.stream = stream
        self.continuation = continuation
        self.measurements = measurements
    }

    /// Events dropped so far, oldest first, because more than the buffer's limit waited: how
    /// many this stream's consumer missed.
    public var droppedCount: Int {
        measurements.dropped.load(ordering: .relaxed)
    }

    /// Starts iterating; a stream has one consumer, and its subscription ends with the loop.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator(), end: LoopEnd(continuation))
    }

    /// The iterator a `for await` loop uses. When the loop lets it go, the stream's subscription
    /// ends: an `AsyncStream`'s iterator alone would keep it while the sequence is held, and the
    /// bus would go on buffering events for a loop that is over.
    public struct Iterator: AsyncIteratorProtocol {
        private var base: AsyncStream<Element>.Iterator
        private let end: LoopEnd

        fileprivate init(base: AsyncStream<Element>.Iterator, end: LoopEnd) {
            self.base = base
            self.end = end
        }

        /// The next event, or `nil` once the stream has ended.
        public mutating func next() async -> Element? {
            await base.next()
        }

        /// The next event, or `nil` once the stream has ended, waited for in `actor`'s
        /// isolation.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await base.next(isolation: actor)
        }
    }

    /// Finishes the stream, which ends its subscription, when the last copy of the iterator
    /// holding it goes away.
    fileprivate final class LoopEnd: Sendable {
        private let continuation: AsyncStream<Element>.Continuation

        init(_ continuation: AsyncStream<Element>.Continuation) {
            self.continuation = continuation
        }

        deinit {
            continuation.finish()
        }
    }
}
