// What people coming from greenrobot's EventBus, Guava or NotificationCenter look for first:
// sticky events, subscribing to a protocol, and a stream that says what it missed.
// Run it with `swift run StickyAndProtocols`.
import EventBus

struct NetworkStatusChangedEvent: Event {
    let isOnline: Bool
}

protocol AuthEvent: Event {
    var userId: String { get }
}

struct UserLoggedInEvent: AuthEvent {
    let userId: String
    let userName: String
}

struct UserLoggedOutEvent: AuthEvent {
    let userId: String
}

struct DataLoadedEvent: Event {
    let item: Int
}

/// A screen that opens after the network went down, and still has to show it.
@MainActor
final class InboxViewController {
    private(set) var banner = "no banner"

    func viewDidLoad(on bus: EventBus) {
        bus.subscribe(observer: self, sticky: true) { [weak self] (status: NetworkStatusChangedEvent) in
            self?.banner = status.isOnline ? "no banner" : "offline banner"
        }
    }
}

/// A badge that follows every kind of sign-in event, including kinds added later.
@MainActor
final class AccountBadge {
    private(set) var seen: [String] = []

    func watch(_ bus: EventBus) {
        bus.subscribe(observer: self, conformingTo: (any AuthEvent).self) { [weak self] event in
            self?.seen.append("\(type(of: event)) \(event.userId)")
        }
    }
}

/// Sticky events: the status was published before the screen existed.
@MainActor
func showStickyEvents(on bus: EventBus) {
    bus.publishSticky(NetworkStatusChangedEvent(isOnline: false))
    let inbox = InboxViewController()
    inbox.viewDidLoad(on: bus)
    print("inbox opened after the status changed: \(inbox.banner)")
    bus.publishSticky(NetworkStatusChangedEvent(isOnline: true))
    print("then the network came back: \(inbox.banner)")
    let status = bus.stickyEvent(of: NetworkStatusChangedEvent.self)
    print("sticky now: \(status.map { "online \($0.isOnline)" } ?? "none")")
    bus.removeStickyEvent(of: NetworkStatusChangedEvent.self)
    let removed = bus.stickyEvent(of: NetworkStatusChangedEvent.self) == nil
    print("after removing it: \(removed ? "none" : "still there")")
}

/// Subscribing to a protocol: the badge hears both kinds of sign-in event, not the data load.
@MainActor
func showProtocolSubscription(on bus: EventBus) {
    let badge = AccountBadge()
    badge.watch(bus)
    bus.publish(UserLoggedInEvent(userId: "42", userName: "Ada"))
    bus.publish(DataLoadedEvent(item: 1))
    bus.publish(UserLoggedOutEvent(userId: "42"))
    print("the badge saw: \(badge.seen.joined(separator: ", "))")
    let row = bus.snapshot()["any AuthEvent"]
    print(
        "snapshot row: \(row.map { "any AuthEvent, \($0.liveSubscribers) live, \($0.delivered) calls" } ?? "none")"
    )
}

/// A stream that falls behind says how much it missed.
func showStreamDrops(on bus: EventBus) async {
    let loads = bus.events(of: DataLoadedEvent.self, bufferingNewest: 4)
    for item in 1...10 { bus.publish(DataLoadedEvent(item: item)) }
    var read: [Int] = []
    for await load in loads {
        read.append(load.item)
        if read.count == 4 { break }
    }
    print("the stream read \(read) and missed \(loads.droppedCount)")
    print("snapshot: \(bus.snapshot()[DataLoadedEvent.self]?.dropped ?? 0) DataLoadedEvent dropped")
}

let bus = EventBus()
showStickyEvents(on: bus)
showProtocolSubscription(on: bus)
await showStreamDrops(on: bus)
