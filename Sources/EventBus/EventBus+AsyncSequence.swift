extension EventBus {
    /// The events of one type as an asynchronous sequence, for `for await` loops.
    ///
    /// ```swift
    /// for await event in bus.events(of: UserLoggedInEvent.self) {
    ///     await session.start(for: event.userId)
    /// }
    /// ```
    ///
    /// The sequence subscribes at once and ends its subscription when the loop stops or the
    /// task is cancelled. A slow consumer never slows publishers: the sequence keeps the newest
    /// `limit` events waiting and drops older ones.
    ///
    /// - Parameters:
    ///   - type: The event type to receive.
    ///   - limit: How many undelivered events to keep; older ones are dropped first.
    /// - Returns: An `AsyncStream` of the events published from now on.
    public func events<T: Event>(of type: T.Type, bufferingNewest limit: Int = 256) -> AsyncStream<T> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: T.self, bufferingPolicy: .bufferingNewest(max(1, limit)))
        let subscription = subscribe(to: type) { event in
            continuation.yield(event)
        }
        continuation.onTermination = { _ in
            subscription.cancel()
        }
        return stream
    }
}
