/// Where `publish` was called: a file of a module and a line, such as `LoginService.swift:42`.
///
/// The publish methods take it from their call site (`#fileID` and `#line`), so monitors can
/// say which code sent each event; a publish costs no more for it, since the site stays a
/// static string until a monitor asks for its text.
public struct PublishSite: Sendable, Hashable, CustomStringConvertible {
    /// The file as `#fileID` names it: `MyApp/LoginService.swift`.
    public var fileID: String { storage.text }
    /// The line of the call.
    public let line: Int
    private let storage: FileText

    /// A site from text, as a recording or another process reports it.
    public init(fileID: String, line: Int) {
        storage = .dynamic(fileID)
        self.line = line
    }

    /// A site from the literals a call site gives, with no copy of the file's name.
    init(fileID: StaticString, line: UInt) {
        storage = .literal(fileID)
        self.line = Int(truncatingIfNeeded: line)
    }

    /// The file's name without its module: `LoginService.swift`.
    public var fileName: String {
        let text = fileID
        guard let slash = text.lastIndex(of: "/") else { return text }
        return String(text[text.index(after: slash)...])
    }

    /// `LoginService.swift:42`.
    public var description: String { "\(fileName):\(line)" }

    /// Whether two sites name the same file and line, however each was made.
    public static func == (left: PublishSite, right: PublishSite) -> Bool {
        left.line == right.line && left.fileID == right.fileID
    }

    /// Hashes the file and the line.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(fileID)
        hasher.combine(line)
    }

    /// The file's text, kept as the literal it came as until someone reads it.
    private enum FileText: Sendable {
        case literal(StaticString)
        case dynamic(String)

        var text: String {
            switch self {
            case .literal(let literal): literal.description
            case .dynamic(let text): text
            }
        }
    }
}

/// Where an event came from: its number on its bus, the event whose handler published it, and
/// the `publish` call's site. What a ``DeliveryRecord`` says of an event's origin, in one value
/// that monitors carry along.
public struct PublishTrace: Sendable, Hashable {
    /// The event's ``DeliveryRecord/eventID``; 0 when it has none.
    public var eventID: UInt64
    /// The ``DeliveryRecord/causeID``.
    public var causeID: UInt64?
    /// The ``DeliveryRecord/site``.
    public var site: PublishSite?
    /// ``thread`` and ``publishedAtNanoseconds`` in two words, so that a trace, which every
    /// captured event carries, grows by no more while nothing is traced.
    var stamp = TraceStamp()

    /// The thread that called `publish`, known while something observes handler calls (see
    /// ``EventBus/observeHandlerCalls(_:)``); `nil` otherwise.
    public var thread: TraceThread? {
        get { stamp.thread }
        set { stamp.thread = newValue }
    }
    /// When `publish` was called, in nanoseconds since 1970 on the real-time clock, known while
    /// something observes handler calls; `nil` otherwise.
    public var publishedAtNanoseconds: Int? {
        get { stamp.publishedAt }
        set { stamp.publishedAt = newValue }
    }

    /// Creates a trace; by default, one that knows nothing.
    public init(
        eventID: UInt64 = 0, causeID: UInt64? = nil, site: PublishSite? = nil, thread: TraceThread? = nil,
        publishedAtNanoseconds: Int? = nil
    ) {
        self.eventID = eventID
        self.causeID = causeID
        self.site = site
        stamp = TraceStamp(thread: thread, publishedAt: publishedAtNanoseconds)
    }

    /// A trace with its thread and time already packed.
    @inline(__always)
    init(eventID: UInt64, causeID: UInt64?, site: PublishSite?, stamp: TraceStamp) {
        self.eventID = eventID
        self.causeID = causeID
        self.site = site
        self.stamp = stamp
    }
}

/// A publish's thread and time, packed: 0 in a word means unknown, and the thread's top bit says
/// it is the main thread (system thread numbers never reach it).
struct TraceStamp: Sendable, Hashable {
    private static let mainBit: UInt64 = 1 << 63
    private var threadWord: UInt64 = 0
    private var publishedWord = 0

    init() {}

    init(thread: TraceThread?, publishedAt: Int?) {
        self.thread = thread
        self.publishedAt = publishedAt
    }

    var thread: TraceThread? {
        get {
            threadWord == 0
                ? nil : TraceThread(id: threadWord & ~Self.mainBit, isMain: threadWord & Self.mainBit != 0)
        }
        set {
            guard let thread = newValue, thread.id != 0 else {
                threadWord = 0
                return
            }
            threadWord = (thread.id & ~Self.mainBit) | (thread.isMain ? Self.mainBit : 0)
        }
    }

    var publishedAt: Int? {
        get { publishedWord == 0 ? nil : publishedWord }
        set { publishedWord = newValue ?? 0 }
    }
}
