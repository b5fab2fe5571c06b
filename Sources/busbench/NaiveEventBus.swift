/// An event bus in the style of the classic "event bus with weak observers" article, kept as
/// the baseline the real bus is measured against.
///
/// Subscriptions are stored type-erased in a `[ObjectIdentifier: [Any]]` dictionary, so each
/// publish casts every element back to ``Subscription`` and its handler back to `(T) -> Void`.
/// It has no lock: it is not thread-safe, which is part of what the comparison shows.
final class NaiveEventBus {
    struct Subscription {
        weak var observer: AnyObject?
        let handler: Any
    }

    private var subscriptions: [ObjectIdentifier: [Any]] = [:]

    func subscribe<T>(observer: AnyObject, handler: @escaping (T) -> Void) {
        let key = ObjectIdentifier(T.self)
        subscriptions[key, default: []].append(Subscription(observer: observer, handler: handler))
    }

    func publish<T>(event: T) {
        let key = ObjectIdentifier(T.self)
        guard let list = subscriptions[key] else { return }
        for element in list {
            guard let subscription = element as? Subscription, subscription.observer != nil,
                let handler = subscription.handler as? (T) -> Void
            else { continue }
            handler(event)
        }
    }
}
