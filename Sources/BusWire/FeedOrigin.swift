/// Which process a record came from, when it travelled through NATS from one app of a fleet:
/// the `app`, `host` and `pid` fields that event, lifecycle and snapshot records may carry.
///
/// A tap speaks for one process and leaves them out; a bridge's envelopes and monitoring records
/// carry them, and `busmon --attach nats://… --headless` writes them on every record it got from
/// the fleet, so a script can tell the apps apart:
///
/// ```json
/// {"kind":"event","seq":3,"time":1712345678.5,"typeName":"TickEvent","receivers":1,"app":"checkout","host":"web-3","pid":4242,"payload":{}}
/// ```
public struct FeedOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The fields, in one shared object: an origin is a word wide, so the records that may
    /// carry one (every event a monitor keeps, most of which carry none) stay small.
    private final class Storage: Sendable {
        let app: String
        let host: String
        let pid: Int

        init(app: String, host: String, pid: Int) {
            self.app = app
            self.host = host
            self.pid = pid
        }
    }

    private var storage: Storage

    /// The app name given to the sending bridge, such as `checkout`.
    public var app: String {
        get { storage.app }
        set { storage = Storage(app: newValue, host: host, pid: pid) }
    }
    /// The sending host.
    public var host: String {
        get { storage.host }
        set { storage = Storage(app: app, host: newValue, pid: pid) }
    }
    /// The sending process.
    public var pid: Int {
        get { storage.pid }
        set { storage = Storage(app: app, host: host, pid: newValue) }
    }

    /// Creates an origin.
    ///
    /// - Parameters:
    ///   - app: The app name.
    ///   - host: The host name.
    ///   - pid: The process id.
    public init(app: String, host: String, pid: Int) {
        storage = Storage(app: app, host: host, pid: pid)
    }

    /// Origins are equal when their app, host and pid are.
    public static func == (lhs: FeedOrigin, rhs: FeedOrigin) -> Bool {
        lhs.storage === rhs.storage || (lhs.pid == rhs.pid && lhs.app == rhs.app && lhs.host == rhs.host)
    }

    /// Hashes the app, host and pid.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(app)
        hasher.combine(host)
        hasher.combine(pid)
    }

    /// `checkout@web-1:4242`.
    public var description: String { "\(app)@\(host):\(pid)" }
}

extension JSONLineWriter {
    /// Appends the `app`, `host` and `pid` fields of `origin`, or nothing when it is `nil`.
    package mutating func field(origin: FeedOrigin?) {
        guard let origin else { return }
        field("app", origin.app)
        field("host", origin.host)
        field("pid", origin.pid)
    }
}
