import BusWire

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Keeps one connection out to a monitor (`busmon --listen`) up, for the tap thread: connects,
/// dials in with the token, and when refused, cut off or unanswered, tries again with backoff.
///
/// Only the tap thread touches it. It never blocks: connecting and the handshake go through the
/// tap thread's `poll` like every other socket, and name resolution happens once per attempt,
/// when nothing else waits on the thread.
final class MonitorDialer {
    /// The first wait between attempts, in seconds; it doubles up to ``longestWait``.
    static let firstWait = 0.25
    /// The longest wait between attempts after failures, in seconds.
    static let longestWait = 4.0
    /// The wait after the monitor turned the app away (a wrong token, say), in seconds: a
    /// refusal does not change by itself, so the app asks again rarely.
    static let waitAfterRefusal = 10.0
    /// How long a connection and its handshake may take, in seconds.
    static let handshakeTimeout = 5.0

    let address: NetworkAddress
    private let dial: MonitorLinkHandshake.Dial
    private let report: @Sendable (MonitorLinkStatus) -> Void

    private enum Stage {
        /// No connection; the next attempt at `time`.
        case waiting(until: Double)
        /// Connecting, since `since`.
        case connecting(descriptor: Int32, since: Double)
        /// Connected; the dial line is being sent or the answer awaited.
        case handshaking(descriptor: Int32, since: Double, unsent: [UInt8], answer: [UInt8])
        /// Welcomed: the connection is a reader of the tap like any other.
        case streaming(descriptor: Int32)
    }

    private var stage = Stage.waiting(until: 0)
    private var wait = MonitorDialer.firstWait
    private var lastStatus: MonitorLinkStatus?

    init(
        address: NetworkAddress, dial: MonitorLinkHandshake.Dial,
        report: @escaping @Sendable (MonitorLinkStatus) -> Void
    ) {
        self.address = address
        self.dial = dial
        self.report = report
    }

    /// The descriptor to poll and for what, while connecting or dialling in; `nil` otherwise.
    var pollRequest: pollfd? {
        switch stage {
        case .connecting(let descriptor, _):
            return pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        case .handshaking(let descriptor, _, let unsent, _):
            return pollfd(
                fd: descriptor, events: Int16(POLLIN) | (unsent.isEmpty ? 0 : Int16(POLLOUT)), revents: 0)
        case .waiting, .streaming:
            return nil
        }
    }

    /// Seconds until the dialer needs the thread again, or `nil` when only its socket can wake
    /// it (or it streams).
    func secondsUntilDue(now: Double) -> Double? {
        switch stage {
        case .waiting(let until): return max(0, until - now)
        case .connecting(_, let since), .handshaking(_, let since, _, _):
            return max(0, since + Self.handshakeTimeout - now)
        case .streaming: return nil
        }
    }

    /// What the monitor sent after its welcome, in the same read: the start of its requests.
    private(set) var leftover: [UInt8] = []

    /// Hands over ``leftover``, once.
    func takeLeftover() -> [UInt8] {
        defer { leftover = [] }
        return leftover
    }

    /// The streaming connection's descriptor, if welcomed.
    var streamingDescriptor: Int32? {
        if case .streaming(let descriptor) = stage { return descriptor }
        return nil
    }

    /// Moves the connection on; returns a descriptor when the monitor has just welcomed the app,
    /// which the tap then serves as a reader.
    ///
    /// - Parameters:
    ///   - revents: What `poll` reported for ``pollRequest``, or 0.
    ///   - now: The monotonic clock.
    func advance(revents: Int16, now: Double) -> Int32? {
        switch stage {
        case .waiting(let until):
            guard now >= until else { return nil }
            attempt(now: now)
            return nil
        case .connecting(let descriptor, let since):
            if revents != 0 {
                if let error = TCPSocket.connectionError(descriptor) {
                    fail(descriptor, reason: error, now: now)
                } else {
                    stage = .handshaking(
                        descriptor: descriptor, since: since, unsent: dial.encodeLine(), answer: [])
                    return advance(revents: Int16(POLLOUT), now: now)
                }
            } else if now - since >= Self.handshakeTimeout {
                fail(descriptor, reason: "no answer", now: now)
            }
            return nil
        case .handshaking(let descriptor, let since, var unsent, var answer):
            if !unsent.isEmpty {
                guard let sent = System.sendAvailable(descriptor, unsent, from: 0) else {
                    fail(descriptor, reason: UnixSocket.errorText(errno), now: now)
                    return nil
                }
                unsent.removeFirst(sent)
            }
            var chunk = [UInt8](repeating: 0, count: 512)
            while answer.count < MonitorLinkHandshake.maximumDialLength, !answer.contains(0x0A) {
                let count = chunk.withUnsafeMutableBytes {
                    System.receiveNow(descriptor, $0.baseAddress!, $0.count)
                }
                if count > 0 {
                    answer += chunk[0..<count]
                } else if count == 0 {
                    fail(descriptor, reason: "the monitor closed the connection", now: now)
                    return nil
                } else {
                    guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                        fail(descriptor, reason: UnixSocket.errorText(errno), now: now)
                        return nil
                    }
                    break
                }
            }
            guard let newline = answer.firstIndex(of: 0x0A) else {
                if answer.count >= MonitorLinkHandshake.maximumDialLength
                    || now - since >= Self.handshakeTimeout
                {
                    fail(descriptor, reason: "not a busmon", now: now)
                } else {
                    stage = .handshaking(descriptor: descriptor, since: since, unsent: unsent, answer: answer)
                }
                return nil
            }
            switch MonitorLinkHandshake.decodeAnswer(answer[..<newline]) {
            case .welcome:
                // Records start with the tap's hello. What came after the welcome (a monitor's
                // request) is the tap's to read.
                leftover = Array(answer[(newline + 1)...])
                stage = .streaming(descriptor: descriptor)
                wait = Self.firstWait
                announce(.connected(address.description))
                return descriptor
            case .refused(let reason):
                System.closeDescriptor(descriptor)
                stage = .waiting(until: now + Self.waitAfterRefusal)
                // The reason is whatever answered on the port chose: an app prints its status.
                let shown = UntrustedText.escaped(reason)
                announce(.refused(address.description, reason: shown, retryIn: Self.waitAfterRefusal))
            case .unknown:
                fail(descriptor, reason: "not a busmon", now: now)
            }
            return nil
        case .streaming:
            return nil
        }
    }

    /// The tap dropped the streaming connection (the monitor went away, or read nothing for too
    /// long); the dialer tries again.
    func streamingEnded(now: Double) {
        guard case .streaming = stage else { return }
        // The tap closed the descriptor already.
        stage = .waiting(until: now + Self.firstWait)
        wait = Self.firstWait
        announce(.waiting(address.description, reason: "the connection was lost", retryIn: Self.firstWait))
    }

    /// Closes whatever connection is open.
    func close() {
        switch stage {
        case .connecting(let descriptor, _), .handshaking(let descriptor, _, _, _):
            System.closeDescriptor(descriptor)
        case .waiting, .streaming:
            break  // a streaming descriptor belongs to the tap's reader list
        }
        stage = .waiting(until: .infinity)
    }

    private func attempt(now: Double) {
        let candidates: [TCPSocket.Resolved]
        switch TCPSocket.resolve(address, passive: false) {
        case .success(let list): candidates = list
        case .failure(let failure):
            retry(reason: failure.description, now: now)
            return
        }
        // One address per attempt: the first, which is IPv4 where there is one.
        switch TCPSocket.startConnecting(to: candidates[0]) {
        case .success(let descriptor):
            stage = .connecting(descriptor: descriptor, since: now)
            if lastStatus == nil { announce(.connecting(address.description)) }
        case .failure(let failure):
            retry(reason: failure.description, now: now)
        }
    }

    private func fail(_ descriptor: Int32, reason: String, now: Double) {
        System.closeDescriptor(descriptor)
        retry(reason: reason, now: now)
    }

    private func retry(reason: String, now: Double) {
        stage = .waiting(until: now + wait)
        announce(.waiting(address.description, reason: reason, retryIn: wait))
        wait = min(Self.longestWait, wait * 2)
    }

    private func announce(_ status: MonitorLinkStatus) {
        // Repeated failures of one kind say so once, not every few seconds.
        if let lastStatus, lastStatus.isSameKind(as: status) { return }
        lastStatus = status
        report(status)
    }
}

/// Where a tap that dials a monitor stands with it, as ``BusTap/init(bus:monitor:token:app:onStatus:)``
/// reports it.
public enum MonitorLinkStatus: Sendable, Hashable, CustomStringConvertible {
    /// Trying to reach the monitor at the address.
    case connecting(String)
    /// The monitor at the address took the app: it is watched now.
    case connected(String)
    /// The monitor at the address could not be reached or the connection was lost; the tap
    /// tries again in `retryIn` seconds, and keeps trying, with the app running on.
    case waiting(String, reason: String, retryIn: Double)
    /// The monitor at the address turned the app away, with its reason (such as `wrong
    /// token`, its control characters escaped); the tap asks again in `retryIn` seconds.
    case refused(String, reason: String, retryIn: Double)

    /// One line for people, such as `busmon at 192.168.1.20:7777 refused: wrong token`.
    public var description: String {
        switch self {
        case .connecting(let address): return "connecting to busmon at \(address)"
        case .connected(let address): return "connected to busmon at \(address)"
        case .waiting(let address, let reason, _):
            return "busmon at \(address) not reached (\(reason)); retrying"
        case .refused(let address, let reason, _): return "busmon at \(address) refused: \(reason)"
        }
    }

    fileprivate func isSameKind(as other: MonitorLinkStatus) -> Bool {
        switch (self, other) {
        case (.connecting, .connecting), (.connected, .connected): return true
        case (.waiting(_, let a, _), .waiting(_, let b, _)): return a == b
        case (.refused(_, let a, _), .refused(_, let b, _)): return a == b
        default: return false
        }
    }
}
