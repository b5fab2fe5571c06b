/// Why a ``NATSBridge`` could not start, or what went wrong with one.
public enum NATSBridgeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The package was built without its `NATS` trait, so there is no NATS client in it.
    case builtWithoutNATS
    /// The server address is not a NATS URL; `reason` says what is wrong with it.
    case invalidURL(String, reason: String)
    /// The app name is empty; it names the subjects the bridge publishes on.
    case invalidAppName
    /// No server answered at `url` when the bridge started with
    /// ``NATSBridgeOptions/StartPolicy/failIfUnreachable``.
    case unreachable(url: String, detail: String)
    /// The JetStream stream could not be created: JetStream is off on the server, the name is
    /// not allowed, or the server refused the configuration.
    case streamFailed(name: String, detail: String)
    /// nats.c reported an error while `operation` ran.
    case client(operation: String, detail: String)

    /// The message to show a person: what happened and what to do.
    public var description: String {
        switch self {
        case .builtWithoutNATS:
            return "EventBusNATS was built without the NATS trait; build with `swift build --traits NATS` "
                + "(and install nats.c: apt-get install libnats-dev)"
        case .invalidURL(let url, let reason):
            return
                "not a NATS server URL: '\(NATSServerURL.redacted(url))' (\(reason)); expected nats://host:port"
        case .invalidAppName:
            return "the app name is empty; it names the subjects eventbus.<app>.<EventType>"
        case .unreachable(let url, let detail):
            return "no NATS server reachable at \(NATSServerURL.redacted(url)): \(detail)"
        case .streamFailed(let name, let detail):
            return "cannot create the JetStream stream '\(name)': \(detail)"
        case .client(let operation, let detail):
            return "nats.c failed in \(operation): \(detail)"
        }
    }
}
