// The login scenario of the classic "event bus with weak observers" article, without UIKit:
// a login screen that unsubscribes in `deinit`, a profile screen that forgets to, and a
// service that publishes. Run it with `swift run LoginFlow`.
import EventBus

struct UserLoggedInEvent: Event {
    let userId: String
    let userName: String
}

struct DataLoadedEvent: Event {
    let data: [String]
}

/// Stands in for the article's `UIViewController`: subscribes when its view loads and
/// unsubscribes in `deinit`.
final class LoginViewController: Sendable {
    let bus: EventBus

    init(bus: EventBus) {
        self.bus = bus
    }

    func viewDidLoad() {
        bus.subscribe(observer: self) { (event: UserLoggedInEvent) in
            print("LoginViewController: welcome, \(event.userName) (id \(event.userId))")
        }
        bus.subscribe(observer: self) { (event: DataLoadedEvent) in
            print(
                "LoginViewController: showing \(event.data.count) items: \(event.data.joined(separator: ", "))"
            )
        }
    }

    deinit {
        // The weak reference to `self` already reads nil here; the bus matches by identity.
        bus.unsubscribe(observer: self)
        print("LoginViewController: deinit, unsubscribed")
    }
}

/// A screen that never unsubscribes and relies on the bus holding it weakly.
final class ProfileViewController: Sendable {
    init(bus: EventBus) {
        bus.subscribe(observer: self) { (event: UserLoggedInEvent) in
            print("ProfileViewController: loading the profile of \(event.userName)")
        }
    }

    deinit {
        print("ProfileViewController: deinit, left its subscription behind")
    }
}

/// Publishes what happens in the app, knowing nothing of the screens.
struct LoginService {
    let bus: EventBus

    func login(userId: String, userName: String) {
        print("LoginService: \(userName) logged in")
        bus.publish(event: UserLoggedInEvent(userId: userId, userName: userName))
    }

    func loadData() {
        print("LoginService: data loaded")
        bus.publish(event: DataLoadedEvent(data: ["inbox", "settings", "news"]))
    }
}

func report(_ bus: EventBus, _ moment: String) {
    let stats = bus.snapshot()[UserLoggedInEvent.self]
    print(
        "  [\(moment)] UserLoggedInEvent: live \(stats?.liveSubscribers ?? 0),"
            + " dead awaiting cleanup \(stats?.deadSubscribers ?? 0),"
            + " reclaimed \(stats?.reclaimedSubscribers ?? 0)")
}

let bus = EventBus(name: "LoginFlow")
let lifecycle = bus.observeLifecycle { change in
    print("  bus: \(change)")
}
let service = LoginService(bus: bus)

var loginScreen: LoginViewController? = LoginViewController(bus: bus)
loginScreen?.viewDidLoad()
var profileScreen: ProfileViewController? = ProfileViewController(bus: bus)
report(bus, "two screens open")

service.login(userId: "42", userName: "Ada")
service.loadData()

print("-- the login screen closes")
loginScreen = nil
report(bus, "login screen gone")

print("-- the profile screen closes without unsubscribing")
profileScreen = nil
report(bus, "profile screen gone")

print("-- the next login finds nobody listening")
service.login(userId: "7", userName: "Grace")
report(bus, "after the next publish")

let totals = bus.snapshot()
print(
    "done: published \(totals.totalPublished), delivered \(totals.totalDelivered),"
        + " reclaimed \(totals.totalReclaimed)")
lifecycle.cancel()
