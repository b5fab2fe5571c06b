// The login scenario of the classic "event bus with weak observers" article, without UIKit: a
// login screen on the main actor that subscribes in `viewDidLoad` and unsubscribes in `deinit`,
// a profile screen that forgets to, a chat screen that leaks, and a service that logs in on a
// background thread.
// Run it with `swift run LoginFlow`.
import Dispatch
import EventBus

struct UserLoggedInEvent: Event {
    let userId: String
    let userName: String
}

struct DataLoadedEvent: Event {
    let data: [String]
}

/// Stands in for the article's `UIViewController`: main-actor isolated, as every view
/// controller is, with UI state that only the main actor may touch.
@MainActor
final class LoginViewController {
    private(set) var welcomeText = ""
    private(set) var visibleItems: [String] = []

    func viewDidLoad() {
        // The article's code, unchanged: the closure is a main-actor closure, so it may call
        // `updateUI(with:)`, and the bus runs it on the main actor wherever the event comes from.
        EventBus.shared.subscribe(observer: self) { [weak self] (event: UserLoggedInEvent) in
            guard let self = self else { return }
            self.updateUI(with: event.userName)
        }
        EventBus.shared.subscribe(observer: self) { [weak self] (event: DataLoadedEvent) in
            self?.show(event.data)
        }
    }

    func updateUI(with userName: String) {
        welcomeText = "Welcome, \(userName)"
        print("LoginViewController: shows \"\(welcomeText)\"")
    }

    func show(_ items: [String]) {
        visibleItems = items
        print("LoginViewController: shows \(items.count) items: \(items.joined(separator: ", "))")
    }

    deinit {
        // The weak reference to `self` already reads nil here; the bus matches by identity.
        EventBus.shared.unsubscribe(observer: self)
        print("LoginViewController: deinit, unsubscribed")
    }
}

/// A screen that never unsubscribes and relies on the bus holding it weakly.
@MainActor
final class ProfileViewController {
    private(set) var loadedProfile: String?

    init() {
        EventBus.shared.subscribe(observer: self) { [weak self] (event: UserLoggedInEvent) in
            self?.loadedProfile = event.userName
            print("ProfileViewController: loading the profile of \(event.userName)")
        }
    }

    deinit {
        print("ProfileViewController: deinit, left its subscription behind")
    }
}

/// A screen whose handler captures `self` strongly: the bus holds the handler, the handler
/// holds the screen, so closing it frees nothing and its subscription lives on. The bus's
/// weak reference cannot help; `expectDeallocation(of:within:reason:)` catches it.
@MainActor
final class ChatViewController {
    private(set) var unread = 0

    init() {
        // The leak. The fix is one word: `{ [weak self] (event: UserLoggedInEvent) in self?.unread += 1 }`.
        EventBus.shared.subscribe(observer: self) { (event: UserLoggedInEvent) in
            self.unread += 1
        }
    }

    deinit {
        print("ChatViewController: deinit")
    }
}

/// Publishes what happens in the app, knowing nothing of the screens, from a background thread
/// as a network callback would.
struct LoginService: Sendable {
    private let network = DispatchQueue(label: "LoginService.network")

    func login(userId: String, userName: String) async {
        await onNetworkThread {
            print("LoginService: \(userName) logged in (published from a background thread)")
            EventBus.shared.publish(event: UserLoggedInEvent(userId: userId, userName: userName))
        }
    }

    func loadData() async {
        await onNetworkThread {
            print("LoginService: data loaded (published from a background thread)")
            EventBus.shared.publish(event: DataLoadedEvent(data: ["inbox", "settings", "news"]))
        }
    }

    /// Runs `work` on the service's own queue and returns once it has; the screens' handlers,
    /// queued to the main actor, run when the main actor next gets to them.
    private func onNetworkThread(_ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            network.async {
                work()
                done.resume()
            }
        }
    }
}

/// Lets the main actor run the deliveries queued for it.
func letTheMainActorCatchUp() async {
    for _ in 0..<10 { await Task.yield() }
}

func report(_ moment: String) {
    let stats = EventBus.shared.snapshot()[UserLoggedInEvent.self]
    print(
        "  [\(moment)] UserLoggedInEvent: live \(stats?.liveSubscribers ?? 0),"
            + " dead awaiting cleanup \(stats?.deadSubscribers ?? 0),"
            + " reclaimed \(stats?.reclaimedSubscribers ?? 0)")
}

let lifecycle = EventBus.shared.observeLifecycle { change in
    print("  bus: \(change)")
}
let service = LoginService()

var loginScreen: LoginViewController? = LoginViewController()
loginScreen?.viewDidLoad()
var profileScreen: ProfileViewController? = ProfileViewController()
var chatScreen: ChatViewController? = ChatViewController()
report("three screens open")

await service.login(userId: "42", userName: "Ada")
await service.loadData()
await letTheMainActorCatchUp()
print("main actor: the login screen reads \"\(loginScreen?.welcomeText ?? "")\"")

print("-- a login published on the main actor updates the screen before publish returns")
EventBus.shared.publish(event: UserLoggedInEvent(userId: "43", userName: "Alan"))
print("main actor: right after publish, the login screen reads \"\(loginScreen?.welcomeText ?? "")\"")

/// Closes a screen the way an app's navigation does: it lets go of it and tells the bus the
/// screen should be deallocated within a moment.
func close<Screen: AnyObject>(_ screen: inout Screen?) {
    if let closing = screen {
        EventBus.shared.expectDeallocation(of: closing, within: .milliseconds(100), reason: "screen closed")
    }
    screen = nil
}

print("-- the login screen closes")
close(&loginScreen)
report("login screen gone")

print("-- the profile screen closes without unsubscribing")
close(&profileScreen)
report("profile screen gone")

print("-- the next login reaches only the chat screen")
await service.login(userId: "7", userName: "Grace")
await letTheMainActorCatchUp()
report("after the next publish")

print("-- the chat screen closes, but its handler holds it")
weak let closedChat = chatScreen
close(&chatScreen)
try await Task.sleep(for: .milliseconds(200))
for suspect in EventBus.shared.snapshot().leakSuspects {
    print(
        "leak suspect: \(suspect.className) #\(suspect.observerID), \"\(suspect.reason)\", still subscribed to \(suspect.subscriptions.joined(separator: ", "))"
    )
    print(
        "  fix: capture self weakly in its handler: { [weak self] (event: UserLoggedInEvent) in self?.unread += 1 }"
    )
}
// What the fix would do, done by hand: without the subscription the screen goes at once.
if let closedChat { EventBus.shared.unsubscribe(observer: closedChat) }
print("leak suspects after unsubscribing it: \(EventBus.shared.snapshot().leakSuspects.count)")

let totals = EventBus.shared.snapshot()
print(
    "done: published \(totals.totalPublished), delivered \(totals.totalDelivered),"
        + " reclaimed \(totals.totalReclaimed)")
lifecycle.cancel()
