internal import BusWire
internal import EventBus
internal import Foundation

#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Watches every app that dials in: `busmon --listen HOST:PORT`.
///
/// Apps connect out to the monitor (a ``BusTap`` made with a monitor's address and token, or
/// `simapp --connect`), as iOS developers' other tools do, so that an app on a phone or in the
/// Simulator can be watched from the Mac. Each connection starts with a `dial` line carrying
/// the app's name and the token; a right token gets a `welcome` and the app's tap records
/// follow; a wrong one gets a `refused` record with the reason (`wrong token`), is counted, and
/// never shows as an app. Every app that dialled in is one member of a fleet
/// (``FleetState``), as with the NATS source: its name, state, rate and counters, and its
/// events in the log with its name.
///
/// ## The port is open to anyone who can reach it
/// - A connection that does not dial within 5 seconds, sends something other than a dial, or a
///   dial longer than 4 KiB is refused and closed; an HTTP request gets an HTTP 400 answer.
/// - A wrong token refuses its app at its address for a while, doubling with each wrong token
///   in a row from a quarter of a second to 30 seconds; that app's dials from there meanwhile
///   are refused unjudged, and all dials from an address with four apps refused. Another app at
///   the address (the iOS Simulator's all come from 127.0.0.1) is judged as ever. A given token
///   has at least ``minimumTokenLength`` characters.
/// - At most 64 connections may be dialling at once, 48 from one address: beyond, a newcomer
///   closes the oldest of the address with the most that has sent nothing (an app dials at
///   once; only a stranger keeps a connection open without). 256 apps may be
///   connected (more are refused with the reason); a line longer than the wire's limit is
///   skipped and counted; reading from the apps pauses while the monitor has not drained what
///   it holds, so memory stays bounded and a slow monitor makes the apps' taps drop, not grow.
/// - None of that disturbs the apps already connected.
package final class ListenSource: DashboardSource {
    /// Connections that may be dialling at once; beyond, the oldest is closed without a word to
    /// make room (``makeRoomToDial(from:)``).
    package static let maximumDialling = 64
    /// Connections from one address that may be dialling at once, so that one address cannot
    /// take every place (the iOS Simulator's apps all come from 127.0.0.1).
    package static let maximumDiallingPerAddress = 48
    /// Connections taken from the listener before the ones taken are read again.
    static let acceptedPerRound = 16
    /// Apps that may be connected at once; more are refused with the reason.
    package static let maximumApps = 256
    /// Seconds a connection may take to dial before it is refused.
    package static let dialTimeout = 5.0
    /// Seconds a refused connection is kept, its input read and discarded, so that the refusal
    /// reaches the other end: closing a TCP socket with unread input resets the connection, and
    /// the peer may lose what was sent just before.
    static let refusalLinger = 2.0

    /// Where the source listens, with the port it got (useful when asked for port 0).
    package let address: String
    /// The token apps must give.
    package let token: String
    /// Whether ``token`` was made up here, rather than given.
    package let tokenIsGenerated: Bool
    /// Whether batches' status names the token.
    private let statusNamesToken: Bool

    /// The fewest characters a given token may have. Guessing is slowed per address (see
    /// ``ListenSource``), but a token of four digits falls to anyone patient; one made up here
    /// has 16 letters and digits.
    package static let minimumTokenLength = 12

    /// Why `token` may not be used, or `nil`.
    package static func tokenProblem(_ token: String) -> String? {
        guard token.count < minimumTokenLength else { return nil }
        return "a token of \(token.count) characters can be guessed; give one of at least "
            + "\(minimumTokenLength), or none and busmon makes one up"
    }
    private let shared: LockedValue<ListenState>
    private let listener: ListenLoop

    /// Why the source could not start listening.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, for people.
        package var description: String
    }

    /// Starts listening at once, on a background thread.
    ///
    /// - Parameters:
    ///   - address: `HOST:PORT` to bind: `127.0.0.1:7777` for the Simulator on this Mac,
    ///     `0.0.0.0:7777` (or the Mac's address) for a phone on the local network; port 0 picks a
    ///     free port.
    ///   - token: The token apps must give, at least ``minimumTokenLength`` characters; `nil`
    ///     makes a random one (``tokenIsGenerated``).
    ///   - presence: When silent apps become quiet, then gone.
    ///   - bufferCapacity: Events (and lifecycle changes) held between drains.
    ///   - statusNamesToken: Whether each batch's status names the token (`token k3y…`), as the
    ///     dashboard's header shows it; headless output, which scripts keep, leaves it out.
    /// - Throws: ``Failure`` when the address is not `HOST:PORT` or cannot be bound, or the
    ///   token is too short.
    package init(
        address: String, token: String?, presence: FleetPresenceTimes = FleetPresenceTimes(),
        bufferCapacity: Int = 10_000, statusNamesToken: Bool = true
    ) throws(Failure) {
        if let token, !token.isEmpty, let problem = Self.tokenProblem(token) {
            throw Failure(description: problem)
        }
        self.statusNamesToken = statusNamesToken
        guard let parsed = NetworkAddress(address) else {
            throw Failure(description: "\(address) is not HOST:PORT, such as 127.0.0.1:7777 or 0.0.0.0:7777")
        }
        let descriptor: Int32
        let port: Int
        switch TCPSocket.listen(on: parsed) {
        case .success(let (listening, bound)):
            descriptor = listening
            port = bound
        case .failure(let failure):
            throw Failure(description: failure.description)
        }
        self.address =
            NetworkAddress(host: parsed.host.isEmpty ? "0.0.0.0" : parsed.host, port: port).description
        if let token, !token.isEmpty {
            self.token = token
            tokenIsGenerated = false
        } else {
            self.token = Self.makeToken()
            tokenIsGenerated = true
        }
        var fleet = FleetState(times: presence, capacity: max(1, bufferCapacity))
        fleet.redaction = .none  // each app's tap redacted as it chose
        var state = ListenState(fleet: fleet)
        let instructions =
            "listening on \(self.address), token \(self.token)"
            + (tokenIsGenerated ? " (made up; set one with --token or BUSMON_TOKEN)" : "")
            + "; apps dial in with BusTap(bus:monitor:token:) or simapp --connect ADDRESS --token \(self.token)"
        state.note(SourceNotice(time: WallClock.now(), text: instructions))
        shared = LockedValue(state)
        listener = ListenLoop(descriptor: descriptor, token: self.token, shared: shared)
        listener.start()
    }

    deinit {
        listener.stop()
    }

    /// Stops listening and disconnects every app; the source drains no more.
    package func close() {
        listener.stop()
    }

    /// A random token of 16 letters and digits (about 82 bits).
    package static func makeToken() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<16).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }

    /// What is being watched: the address apps dial.
    package var title: String { "listening on \(address)" }

    /// Asks every app that dialled in, and every app that will, for its handler calls.
    package func requestHandlerCalls() {
        listener.wantsCalls.withLock { $0 = true }
    }

    /// Apps connected now.
    package var connectedApps: Int { shared.withLock(\.connected) }

    /// Whether any app has dialled in since the source started.
    package var anyAppConnected: Bool { shared.withLock(\.welcomed) > 0 }

    /// Connections refused so far: wrong tokens, strangers, too many.
    package var refusedConnections: Int { shared.withLock(\.refused) }

    /// Everything the apps sent since the previous call, their fleet, and the state: the token,
    /// and the connections refused (`token k3y, 1 refused`).
    package func drain() -> SourceBatch {
        drain(endingNow: false)
    }

    /// ``drain()``, saying at once the refusals held back in the current second: nothing will
    /// say them later.
    package func drainLast() -> SourceBatch {
        drain(endingNow: true)
    }

    private func drain(endingNow: Bool) -> SourceBatch {
        let now = WallClock.now()
        return shared.withLock { state in
            var batch = state.fleet.takeBatch(now: now)
            if !state.drainedOnce {
                // The Fleet pane from the start, empty until the first app dials in.
                state.drainedOnce = true
                batch.fleet = batch.fleet ?? state.fleet.fleet
            }
            state.sayUnsaidRefusals(now: now, atOnce: endingNow)
            batch.notices.insert(contentsOf: state.notices.take(now: now), at: 0)
            batch.notices.sort { $0.time < $1.time }
            state.bytesSinceDrain = 0
            // The token in the state, which the header keeps when it gives way, so that it can
            // always be read off the screen.
            // (The header counts the apps already, from the fleet.)
            var status = statusNamesToken ? "token \(token)" : "listening on \(address)"
            if state.refused > 0 { status += ", \(state.refused) refused" }
            batch.status = status
            return batch
        }
    }

    /// Commands do not apply to other processes.
    ///
    /// - Returns: A message saying so.
    package func perform(_ command: SourceCommand) -> String? {
        "listening: each app controls its own rate"
    }
}

/// What the listening thread hands to the monitor's thread.
struct ListenState {
    var fleet: FleetState
    var notices = BoundedNotices()
    var connected = 0
    /// Apps welcomed so far.
    var welcomed = 0
    var refused = 0
    /// Refusal notices in the current second, so that a flood of strangers costs the log little.
    var refusalNoticesThisSecond = 0
    var refusalNoticeSecond = 0
    /// Refusals past the few said in their second, said together once that second is over.
    var refusalsUnsaid = 0
    /// Refusals said a second at most; the rest are counted in one notice.
    static let refusalNoticesPerSecond = 5
    /// Whether the monitor has drained once.
    var drainedOnce = false

    /// Bytes read from the apps since the last drain: with the fleet's count of events, what
    /// pauses reading (``AttachReader/byteCapacity``), since a line may be a megabyte.
    var bytesSinceDrain = 0

    mutating func noteRefusal(_ text: String, now: Double) {
        sayUnsaidRefusals(now: now)
        refused += 1
        let second = Int(now)
        if second != refusalNoticeSecond {
            refusalNoticeSecond = second
            refusalNoticesThisSecond = 0
        }
        refusalNoticesThisSecond += 1
        guard refusalNoticesThisSecond <= Self.refusalNoticesPerSecond else {
            refusalsUnsaid += 1
            return
        }
        note(SourceNotice(time: now, text: text, isWarning: true))
    }

    /// Says how many refusals went unsaid in their second, once that second is over, or at
    /// once when `atOnce` (busmon is ending).
    mutating func sayUnsaidRefusals(now: Double, atOnce: Bool = false) {
        guard refusalsUnsaid > 0, atOnce || Int(now) != refusalNoticeSecond else { return }
        let count = refusalsUnsaid
        refusalsUnsaid = 0
        note(
            SourceNotice(
                time: now,
                text: "\(count) more \(count == 1 ? "connection" : "connections") refused in a second "
                    + "(\(refused) refused so far)",
                isWarning: true))
    }

    /// Adds a notice for the next drain (see ``BoundedNotices``).
    mutating func note(_ notice: SourceNotice) {
        notices.append(notice)
    }

    /// Whether the apps may be read: the monitor has room for what they send.
    var hasRoom: Bool { fleet.bufferedEvents < fleet.capacity && bytesSinceDrain < AttachReader.byteCapacity }
}

/// The listening thread: accepts, checks dials, reads apps' records into the fleet.
final class ListenLoop: @unchecked Sendable {
    private let descriptor: Int32
    private let token: String
    private let shared: LockedValue<ListenState>
    private let thread = StoppableThread()
    /// Whether to ask each app welcomed for handler calls.
    let wantsCalls = LockedValue(false)

    // Thread only.
    private var connections: [Connection] = []
    /// The number the next connection gets, for its app's losses (``FleetLinkReport/link``).
    private var nextLinkNumber = 1
    private var acceptPausedUntil = 0.0
    /// Bytes read from dialled apps in this round of the loop, for ``ReadPacing``.
    private var appBytesThisRound = 0
    /// Wrong tokens from each app (its name and process) at each address
    /// (``penaltyKey(host:app:)``), in a row, and until when that app is refused there. By app
    /// as well as address: the iOS Simulator's apps all come from 127.0.0.1, and one app with a
    /// wrong token must not keep out another with the right one.
    private var penalties: [String: (failures: Int, until: Double)] = [:]
    /// Wrong tokens from each address in a row, whatever the app, and until when the last one's
    /// wait runs: the wait grows with these, so that made-up names do not make guessing quicker.
    private var streaks: [String: (failures: Int, until: Double)] = [:]

    /// The longest an app at an address is refused after wrong tokens: 30 s. The wait doubles
    /// with each wrong token in a row, from a quarter of a second, so a person who mistyped
    /// waits a moment and a guesser gets a few tries a minute.
    static let longestPenalty = 30.0
    /// App names refused at once at one address, at most: past them the address's other dials
    /// are refused unjudged, so that a guesser gains nothing by making up names.
    static let maximumPenalizedApps = 4
    /// Apps at addresses remembered at most; the longest-expired are forgotten first beyond this.
    static let penaltyMemory = 4096

    private final class Connection {
        let descriptor: Int32
        let peer: String
        let opened: Double
        var dialBuffer: [UInt8] = []
        var dial: MonitorLinkHandshake.Dial?
        var origin: FeedOrigin?
        var decoder = RecordStreamDecoder()
        var tapDrops = 0
        /// Which connection this is, for its reports: its tap's counts start again at 0.
        let link: Int
        /// Whether the app was asked for its handler calls.
        var askedForCalls = false
        /// Since when a refused connection waits for the stranger to hang up, its refusal sent.
        var closingSince: Double?
        /// The malformed lines it sent, said at most once a second.
        var malformedNotices = MalformedLineNotices()
        /// Why what the app sends cannot be read (its tap speaks a wire version this busmon
        /// does not), once its `hello` said so: nothing after it is taken, and it is closed.
        var unreadable: String?

        init(descriptor: Int32, peer: String, opened: Double, link: Int) {
            self.descriptor = descriptor
            self.peer = peer
            self.opened = opened
            self.link = link
        }
    }

    init(descriptor: Int32, token: String, shared: LockedValue<ListenState>) {
        self.descriptor = descriptor
        self.token = token
        self.shared = shared
    }

    func start() {
        thread.start(name: "busmon listen") { [self] in run() }
    }

    func stop() {
        thread.stop()
    }

    private func run() {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var pacing = ReadPacing(now: MonotonicClock.now())
        while !thread.isStopRequested {
            appBytesThisRound = 0
            let now = MonotonicClock.now()
            let roomForEvents = shared.withLock(\.hasRoom)
            var descriptors = [
                pollfd(fd: thread.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: descriptor, events: now < acceptPausedUntil ? 0 : Int16(POLLIN), revents: 0),
            ]
            for connection in connections {
                let reading = connection.dial == nil || roomForEvents
                descriptors.append(
                    pollfd(fd: connection.descriptor, events: reading ? Int16(POLLIN) : 0, revents: 0))
            }
            // Wake at least every 100 ms: for dial deadlines and for the monitor's draining.
            _ = poll(&descriptors, nfds_t(descriptors.count), 100)
            if descriptors[0].revents != 0 { thread.clearWakeups() }
            if thread.isStopRequested { break }

            var closing: [(Connection, reason: String?)] = []
            for (index, connection) in connections.enumerated() {
                let events = descriptors[index + 2].revents
                let now = MonotonicClock.now()
                if events != 0, let reason = read(connection, into: &chunk) {
                    closing.append((connection, reason))
                    continue
                }
                sayMalformedLines(of: connection, now: now)
                // Checked whether or not bytes came: a stranger trickling a byte at a time must
                // not hold a dialling place past the dial's time, nor a refused one linger on.
                if let since = connection.closingSince {
                    if now - since > ListenSource.refusalLinger { closing.append((connection, nil)) }
                } else if connection.dial == nil, now - connection.opened > ListenSource.dialTimeout {
                    refuse(connection, reason: "no dial within \(Int(ListenSource.dialTimeout)) s")
                }
            }
            for (connection, reason) in closing { remove(connection, reason: reason) }
            if wantsCalls.current {
                let request = MonitorRequest.traceCalls(true).encodeLine()
                for connection in connections where connection.dial != nil && !connection.askedForCalls {
                    // One short line, after the welcome: it fits the socket's buffer.
                    connection.askedForCalls = sendAll(request, to: connection.descriptor)
                }
            }
            if descriptors[1].revents & Int16(POLLIN) != 0 { acceptConnections() }
            // Apps' taps send every 10 ms: while they trickle, what gathers in a pause costs one
            // wake-up and one frame where there were several, as for an attached app.
            if appBytesThisRound > 0, pacing.pausesAfter(reading: appBytesThisRound, at: MonotonicClock.now())
            {
                thread.sleep(seconds: ReadPacing.pause)
            }
        }
        // busmon quitting is no app leaving: the apps are still there, and a recording ends
        // with them as they were, as one of an attached app writes no detach when busmon quits.
        for connection in connections { remove(connection, reason: nil, leaving: false) }
        System.closeDescriptor(descriptor)
    }

    private func acceptConnections() {
        // A few at a time: the connections taken are read (their dials, most of all) before
        // more are taken, however fast they come.
        acceptPausedUntil = System.acceptWaitingConnections(
            descriptor, maximum: ListenSource.acceptedPerRound
        ) { accepted in
            let peer = TCPSocket.peerName(accepted)
            makeRoomToDial(from: peer)
            let connection = Connection(
                descriptor: accepted, peer: peer, opened: MonotonicClock.now(), link: nextLinkNumber)
            nextLinkNumber &+= 1
            connections.append(connection)
        }
    }

    /// Makes room for a connection from `peer` when it would be one too many waiting to dial,
    /// among those of `peer`'s address once that holds ``ListenSource/maximumDiallingPerAddress``,
    /// or of the addresses holding the most once all ``ListenSource/maximumDialling`` are taken:
    /// closes a refused one still lingering, or else the oldest that has sent nothing, or else
    /// the oldest.
    ///
    /// The newcomer stays: an app sends its dial as it connects, and connections are read
    /// between every few taken, so its dial is read long before it is the oldest, while a
    /// stranger holding connections open keeps them only until newer ones come. Idle
    /// connections cannot lock apps out, and one address flooding the port churns only its own
    /// places (a flood from the app's own address can still delay it).
    private func makeRoomToDial(from peer: String) {
        let waiting = connections.filter { $0.dial == nil }
        let host = Self.host(of: peer)
        let fromHost = waiting.filter { Self.host(of: $0.peer) == host }
        let candidates: [Connection]
        if fromHost.count >= ListenSource.maximumDiallingPerAddress {
            candidates = fromHost
        } else if waiting.count >= ListenSource.maximumDialling {
            let counts = Dictionary(grouping: waiting) { Self.host(of: $0.peer) }.mapValues(\.count)
            let most = counts.values.max() ?? 0
            candidates = waiting.filter { counts[Self.host(of: $0.peer)] == most }
        } else {
            return
        }
        let byAge = { (one: Connection, other: Connection) in one.opened < other.opened }
        guard
            let victim = candidates.filter({ $0.closingSince != nil }).min(by: byAge)
                ?? candidates.filter({ $0.dialBuffer.isEmpty }).min(by: byAge) ?? candidates.min(by: byAge)
        else { return }
        remove(victim, reason: nil)
        if victim.closingSince == nil {
            shared.withLock {
                $0.noteRefusal(
                    "closed a connection from \(Self.host(of: victim.peer)) that had not dialled, to make room",
                    now: WallClock.now())
            }
        }
    }

    /// The key of `app` at `host` among the penalties.
    static func penaltyKey(host: String, app: String) -> String { host + "|" + app }

    /// Why a dial of `app` from `peer` is refused without its token being judged: that app, or
    /// too many apps, gave wrong tokens from the address lately. `nil` when it may be judged.
    private func penaltyRefusal(of app: String, from peer: String) -> String? {
        let now = MonotonicClock.now()
        let host = Self.host(of: peer)
        func seconds(until time: Double) -> Int { Int((time - now).rounded(.up)) }
        if let penalty = penalties[Self.penaltyKey(host: host, app: app)], now < penalty.until {
            // A guess made now would not count, right or wrong.
            let wrong = penalty.failures == 1 ? "a wrong token" : "\(penalty.failures) wrong tokens in a row"
            return "\(wrong) from this app at this address; try again in \(seconds(until: penalty.until)) s"
        }
        let prefix = Self.penaltyKey(host: host, app: "")
        let active = penalties.filter { $0.key.hasPrefix(prefix) && now < $0.value.until }
        guard active.count >= Self.maximumPenalizedApps else { return nil }
        let soonest = active.values.map(\.until).min() ?? now
        return
            "wrong tokens from \(active.count) apps at this address; try again in \(seconds(until: soonest)) s"
    }

    /// The address without its port: `127.0.0.1` of `127.0.0.1:52114`, `::1` of `[::1]:52114`.
    static func host(of peer: String) -> String {
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon]).trimmingCharacters(in: ["[", "]"])
    }

    /// Counts a wrong token from `app` at `peer`, and refuses it there for longer each time.
    private func penalize(_ app: String, from peer: String) {
        let host = Self.host(of: peer)
        let key = Self.penaltyKey(host: host, app: app)
        let now = MonotonicClock.now()
        // A streak ends once its last wait is a wait's length behind.
        let streak = streaks[host].flatMap { now < $0.until + Self.longestPenalty ? $0.failures : nil } ?? 0
        let failures = streak + 1
        let wait = min(Self.longestPenalty, 0.25 * Double(1 << min(failures - 1, 20)))
        streaks[host] = (failures, now + wait)
        penalties[key] = ((penalties[key]?.failures ?? 0) + 1, now + wait)
        Self.forgetExpired(&penalties, now: now)
        Self.forgetExpired(&streaks, now: now - Self.longestPenalty)
    }

    /// Keeps `entries` within ``penaltyMemory``, forgetting those whose wait ended longest
    /// before `now` first.
    private static func forgetExpired(_ entries: inout [String: (failures: Int, until: Double)], now: Double)
    {
        guard entries.count > penaltyMemory else { return }
        let expired = entries.filter { $0.value.until < now }.sorted { $0.value.until < $1.value.until }
        for (key, _) in expired.prefix(entries.count - penaltyMemory) { entries[key] = nil }
    }

    /// Reads what the connection has; returns why it ended, or `nil` while it goes on.
    private func read(_ connection: Connection, into chunk: inout [UInt8]) -> String? {
        var messages: [FleetMessage] = []
        var malformed = MalformedLines()
        var bytesRead = 0
        defer {
            appBytesThisRound += bytesRead
            if !messages.isEmpty || malformed.count > 0 || bytesRead > 0 {
                let now = WallClock.now()
                shared.withLock { state in
                    state.bytesSinceDrain += bytesRead
                    for message in messages { state.fleet.receive(message, now: now) }
                }
                if malformed.count > 0, connection.origin != nil {
                    connection.malformedNotices.add(malformed)
                }
            }
        }
        // A bounded amount per round, so that one busy app cannot starve the others, and no
        // more than the monitor has room for: what it could not keep is better dropped by the
        // app's tap, unread, than read, decoded and dropped here.
        let room = shared.withLock { $0.fleet.capacity - $0.fleet.bufferedEvents }
        for _ in 0..<16 where connection.dial == nil || messages.count < room {
            let count = chunk.withUnsafeMutableBytes {
                System.receiveNow(connection.descriptor, $0.baseAddress!, $0.count)
            }
            // A stranger that hangs up before dialling is closed without a word.
            if count == 0 {
                guard connection.dial != nil else { return "" }
                connection.decoder.finish(malformed: &malformed)
                return "it closed the connection"
            }
            // A refused stranger's input is read and dropped until it hangs up.
            if count > 0, connection.closingSince != nil { continue }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return nil }
                guard connection.dial != nil else { return "" }
                let reason = UnixSocket.errorText(errno)
                connection.decoder.finish(malformed: &malformed)
                return "the connection failed: \(reason)"
            }
            if connection.dial == nil {
                if let ended = takeDial(
                    connection, bytes: chunk[0..<count], messages: &messages, malformed: &malformed)
                {
                    return ended
                }
            } else {
                bytesRead += count
                split(chunk[0..<count], of: connection, messages: &messages, malformed: &malformed)
            }
            if let problem = connection.unreadable { return "cannot read what it sends: \(problem)" }
        }
        return nil
    }

    /// Gathers the first line; once it is there, welcomes or refuses the connection.
    private func takeDial(
        _ connection: Connection, bytes: ArraySlice<UInt8>, messages: inout [FleetMessage],
        malformed: inout MalformedLines
    ) -> String? {
        connection.dialBuffer += bytes
        let newline = connection.dialBuffer.firstIndex(of: 0x0A)
        // The limit holds however the line arrives: in pieces, or in one read with its newline.
        guard (newline ?? connection.dialBuffer.count) <= MonitorLinkHandshake.maximumDialLength else {
            refuse(connection, reason: "not a busmon dial (a first line over 4 KiB)")
            return nil
        }
        guard let newline else { return nil }
        var line = connection.dialBuffer[..<newline]
        if line.last == 0x0D { line = line.dropLast() }
        switch MonitorLinkHandshake.decodeDial(line) {
        case .failure(.http):
            refuse(connection, reason: "an HTTP request", http: true)
            return nil
        case .failure(.notADial):
            refuse(connection, reason: "not a busmon dial")
            return nil
        case .failure(.unknownVersion(let version)):
            refuse(
                connection,
                reason: "dial version \(version), this busmon speaks \(MonitorLinkHandshake.version)")
            return nil
        case .success(let dial):
            // An app is its name and process: two processes of one app (two Simulators) are two.
            let app = "\(dial.app)|\(dial.pid)"
            if let refusal = penaltyRefusal(of: app, from: connection.peer) {
                refuse(connection, reason: refusal, app: dial.app)
                return nil
            }
            guard MonitorLinkHandshake.tokensMatch(dial.token, token) else {
                penalize(app, from: connection.peer)
                refuse(connection, reason: "wrong token", app: dial.app)
                return nil
            }
            let host = Self.host(of: connection.peer)
            penalties[Self.penaltyKey(host: host, app: app)] = nil
            streaks[host] = nil
            let apps = connections.count { $0.dial != nil }
            guard apps < ListenSource.maximumApps else {
                refuse(connection, reason: "\(ListenSource.maximumApps) apps connected", app: dial.app)
                return nil
            }
            let welcome = MonitorLinkHandshake.welcomeLine()
            guard sendAll(welcome, to: connection.descriptor) else { return "" }
            let origin = FeedOrigin(app: dial.app, host: dial.host, pid: dial.pid)
            connection.dial = dial
            connection.origin = origin
            shared.withLock { state in
                state.connected += 1
                state.welcomed += 1
            }
            messages.append(
                .link(
                    FleetLinkReport(
                        time: WallClock.now(), origin: origin, kind: "connection", state: "connected",
                        link: connection.link)))
            let rest = connection.dialBuffer[(newline + 1)...]
            connection.dialBuffer = []
            if !rest.isEmpty { split(rest, of: connection, messages: &messages, malformed: &malformed) }
            return nil
        }
    }

    private func split(
        _ bytes: ArraySlice<UInt8>, of connection: Connection, messages: inout [FleetMessage],
        malformed: inout MalformedLines
    ) {
        guard let origin = connection.origin, connection.unreadable == nil else { return }
        connection.decoder.decode(bytes, malformed: &malformed) { record in
            // Nothing after a hello in a version this busmon cannot read is read as if it could.
            guard connection.unreadable == nil else { return }
            if case .hello(let hello) = record,
                let problem = FeedRecord.unreadableVersionMessage(hello.version, speaker: "its tap")
            {
                connection.unreadable = problem
                return
            }
            // The connection's dial names the app, whatever a record says: FleetState.receive
            // stamps each record with the message's origin.
            if let message = FleetMessage(record, origin: origin) {
                messages.append(message)
                return
            }
            switch record {
            case .dropped(let drops):
                connection.tapDrops = drops.events
                var report = FleetLinkReport(
                    time: drops.time, origin: origin, kind: "connection", state: "connected",
                    dropped: drops.events, link: connection.link)
                report.droppedCalls = drops.calls
                report.droppedLifecycle = drops.lifecycle
                messages.append(.link(report))
            default:
                break
            }
        }
    }

    /// Sends a refusal, counts it and notes it, and ends the connection's writing side; the
    /// connection is closed once the stranger hangs up, or after ``ListenSource/refusalLinger``.
    private func refuse(_ connection: Connection, reason: String, http: Bool = false, app: String? = nil) {
        // Counted before the stranger can read the refusal, so that whoever reads it sees it
        // counted too.
        let who = app.map { "\($0) at \(connection.peer)" } ?? connection.peer
        shared.withLock { $0.noteRefusal("refused \(who): \(reason)", now: WallClock.now()) }
        let line = MonitorLinkHandshake.refusalLine(reason, time: WallClock.now(), http: http)
        _ = sendAll(line, to: connection.descriptor)
        System.shutDownWriting(connection.descriptor)
        connection.closingSince = MonotonicClock.now()
        connection.dialBuffer = []
    }

    /// Sends a short line on a new connection, which its socket buffer takes at once.
    private func sendAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        System.sendAvailable(descriptor, bytes, from: 0) == bytes.count
    }

    /// Says the malformed lines `connection`'s app sent that were not said yet, once a second
    /// at most, or at once when `atOnce`.
    private func sayMalformedLines(of connection: Connection, now: Double, atOnce: Bool = false) {
        guard let origin = connection.origin,
            let lines = connection.malformedNotices.take(now: now, atOnce: atOnce)
        else { return }
        let notice = SourceNotice(time: WallClock.now(), text: "\(origin): \(lines.notice)", isWarning: true)
        shared.withLock { $0.note(notice) }
    }

    /// Closes `connection`; `leaving` when it ended on the app's side or by a refusal, so that
    /// its app leaves the fleet, and not when busmon stops listening.
    private func remove(_ connection: Connection, reason: String?, leaving: Bool = true) {
        sayMalformedLines(of: connection, now: MonotonicClock.now(), atOnce: true)
        System.closeDescriptor(connection.descriptor)
        connections.removeAll { $0 === connection }
        guard let origin = connection.origin else { return }
        let now = WallClock.now()
        shared.withLock { state in
            state.connected -= 1
            guard leaving else { return }
            state.fleet.receive(
                .link(
                    FleetLinkReport(
                        time: now, origin: origin, kind: "connection", state: FleetLinkReport.closedState,
                        dropped: connection.tapDrops, link: connection.link)),
                now: now)
            if let reason, !reason.isEmpty {
                state.note(
                    SourceNotice(
                        time: now, text: "\(origin): \(reason)", isWarning: connection.unreadable != nil))
            }
        }
    }
}
