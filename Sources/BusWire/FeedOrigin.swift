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
    /// The app name given to the sending bridge, such as `checkout`.
    public var app: String
    /// The sending host.
    public var host: String
    /// The sending process.
    public var pid: Int

    /// Creates an origin.
    ///
    /// - Parameters:
    ///   - app: The app name.
    ///   - host: The host name.
    ///   - pid: The process id.
    public init(app: String, host: String, pid: Int) {
        self.app = app
        self.host = host
        self.pid = pid
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
