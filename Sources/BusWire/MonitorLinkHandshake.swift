/// The first lines of an app's connection to `busmon --listen`, before the tap's records.
///
/// The app speaks first, with one `dial` line naming itself and carrying the monitor's token:
///
/// ```json
/// {"kind":"dial","version":1,"token":"k3yf0rth3m0n1t0r","app":"checkout","host":"iPhone","pid":4242}
/// ```
///
/// The monitor answers `{"kind":"welcome","version":1}` and the app's tap records follow, as
/// over a tap's Unix socket; or it answers a `refused` record with the reason (`wrong token`)
/// and closes. Nothing of the app's bus is sent before the welcome.
package enum MonitorLinkHandshake {
    /// The handshake's version; a monitor refuses a dial of a version it does not know.
    package static let version = 1
    /// A dial line longer than this is not one.
    package static let maximumDialLength = 4096

    /// What an app says of itself when it dials in.
    package struct Dial: Sendable, Hashable {
        /// The handshake version the app speaks.
        package var version: Int
        /// The token the app was given for the monitor.
        package var token: String
        /// The app's name, as the monitor shows it.
        package var app: String
        /// The app's host name.
        package var host: String
        /// The app's process id.
        package var pid: Int

        /// Creates a dial.
        package init(
            version: Int = MonitorLinkHandshake.version, token: String, app: String, host: String, pid: Int
        ) {
            self.version = version
            self.token = token
            self.app = app
            self.host = host
            self.pid = pid
        }

        /// The dial as one line, ending in `\n`.
        package func encodeLine() -> [UInt8] {
            var writer = JSONLineWriter()
            writer.beginRecord("dial")
            writer.field("version", version)
            writer.field("token", token)
            writer.field("app", app)
            writer.field("host", host)
            writer.field("pid", pid)
            writer.endRecord()
            return writer.bytes
        }
    }

    /// Why a first line is not a dial, for the refusal the monitor sends back.
    package enum DialProblem: Error, Sendable, Hashable {
        /// The line is an HTTP request: someone pointed a browser or a probe at the port.
        case http
        /// The line is not a JSON record, or not a `dial` one.
        case notADial
        /// A dial of a version this monitor does not know.
        case unknownVersion(Int)
    }

    /// Reads the first line of a connection.
    ///
    /// - Parameter line: The line, without its `\n`.
    /// - Returns: The dial, or why it is not one.
    package static func decodeDial(_ line: ArraySlice<UInt8>) -> Result<Dial, DialProblem> {
        for method in ["GET ", "POST ", "HEAD ", "PUT ", "OPTIONS ", "DELETE ", "CONNECT ", "PRI * "]
        where line.starts(with: method.utf8) {
            return .failure(.http)
        }
        guard let members = JSONLineMembers(line), members.string("kind") == "dial",
            let version = members.integer("version"), let token = members.string("token"),
            let app = members.string("app"), let host = members.string("host"),
            let pid = members.integer("pid"),
            // As every record's pid: a negative one would reach recordings no replay reads.
            pid >= 0
        else { return .failure(.notADial) }
        guard version == Self.version else { return .failure(.unknownVersion(version)) }
        return .success(Dial(version: version, token: token, app: app, host: host, pid: pid))
    }

    /// The monitor's answer to a dial it takes, ending in `\n`.
    package static func welcomeLine() -> [UInt8] {
        var writer = JSONLineWriter()
        writer.beginRecord("welcome")
        writer.field("version", version)
        writer.endRecord()
        return writer.bytes
    }

    /// The monitor's answer to a connection it turns away, ending in `\n`: a `refused` record,
    /// or for an HTTP request an HTTP response a browser shows.
    package static func refusalLine(_ reason: String, time: Double, http: Bool = false) -> [UInt8] {
        if http {
            let body = "busmon: this port takes apps' BusTap connections, not HTTP\n"
            return Array(
                ("HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n"
                    + "Connection: close\r\n\r\n" + body).utf8)
        }
        var writer = JSONLineWriter()
        writer.write(FeedRefusal(time: time, reason: reason))
        return writer.bytes
    }

    /// What the monitor answered a dial.
    package enum Answer: Sendable, Hashable {
        /// Taken: the tap's records may follow.
        case welcome
        /// Turned away, with the monitor's reason.
        case refused(String)
        /// Not an answer busmon gives: something else listens on that port.
        case unknown
    }

    /// Reads the monitor's answer line.
    package static func decodeAnswer(_ line: ArraySlice<UInt8>) -> Answer {
        let text = Array(line)
        if let record = try? text.withUnsafeBufferPointer({ try FeedRecord.decode(line: $0) }),
            case .refused(let refusal) = record
        {
            return .refused(refusal.reason)
        }
        if JSONLineMembers(line)?.string("kind") == "welcome" { return .welcome }
        return .unknown
    }

    /// Whether `given` is `expected`, compared in time that does not depend on where they differ.
    package static func tokensMatch(_ given: String, _ expected: String) -> Bool {
        let left = Array(given.utf8)
        let right = Array(expected.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }
}
