import EventBus
import Foundation
import TestSupport

/// A thread-safe list that handlers append to, so tests can check what ran and in what order.
final class Journal<Element: Sendable>: Sendable {
    private let storage = LockedValue<[Element]>([])

    func append(_ element: Element) {
        storage.withLock { $0.append(element) }
    }

    var entries: [Element] { storage.current }
    var count: Int { storage.withLock { $0.count } }
}

/// An observer that unsubscribes itself in `deinit`, as the article's view controller does.
final class TidyScreen: Sendable {
    let bus: EventBus
    init(bus: EventBus) { self.bus = bus }
    deinit { bus.unsubscribe(observer: self) }
}
