import Synchronization

/// Where one event came from, as it travels through a delivery loop or a hop to a queue or an
/// actor: its number, its cause's, and its `publish` call's site.
///
/// The site stays two literals until a record or a report needs its text.
struct PublishOrigin {
    /// The event's ``DeliveryRecord/eventID``, or 0 when nobody watched the bus at its publish.
    var eventID: UInt64
    /// The ``eventID`` of the event whose handler published it, or 0 at top level.
    var causeID: UInt64
    /// The event's type, for a stopped cascade's account.
    var type: any Event.Type
    var fileID: StaticString
    var line: UInt
    /// The version of the sticky event this publish stored, or 0 for a plain publish; a
    /// subscription that received that sticky event already skips it.
    var stickyVersion: UInt64 = 0
    /// When `publish` was called, in nanoseconds since 1970, while something observes handler
    /// calls (a trace is being written); 0 otherwise.
    var publishedAt = 0

    var site: PublishSite { PublishSite(fileID: fileID, line: line) }

    /// The number, cause and site, as a record carries them; with the publishing thread and
    /// time while handler calls are observed.
    ///
    /// Made in one piece and inlined: built and then changed, the trace was copied through its
    /// value witness (its site may hold a string), about 10 ns of every captured event.
    @inline(__always)
    func trace(on thread: ThreadDeliveryState) -> PublishTrace {
        PublishTrace(
            eventID: eventID, causeID: causeID == 0 ? nil : causeID, site: site,
            stamp: publishedAt == 0
                ? TraceStamp() : TraceStamp(thread: thread.traceThread, publishedAt: publishedAt))
    }
}

/// One step of a cascade noted for its account once it grew past half its limit: which type
/// published an event of another, and where.
struct CascadeStep {
    let type: any Event.Type
    let site: PublishSite
    let parentType: (any Event.Type)?
}

/// A cascade that went on through a queued, actor or main-actor delivery: what its parts on
/// several threads share, so that they count against one limit and are stopped once.
final class SharedCascade: Sendable {
    /// Events set off so far.
    let published: Atomic<Int>
    /// Set by whichever part stopped the cascade first; that part reports it.
    let stopped = Atomic<Bool>(false)
    /// Steps noted past half the limit, by the type they published.
    let steps = LockedValue<[ObjectIdentifier: CascadeStep]>([:])
    /// The type of the top-level event that set the cascade off.
    let rootType: any Event.Type

    init(published: Int, rootType: any Event.Type) {
        self.published = Atomic(published)
        self.rootType = rootType
    }
}

/// The thread-local part of a cascade that grew past its common size: its steps, its shared
/// part once it crossed to another thread, and whether it was stopped here.
final class CascadeRecord {
    var shared: SharedCascade?
    var steps: [ObjectIdentifier: CascadeStep] = [:]
    var stop: CascadeStop?
    /// The job of joined main-actor deliveries the frame's running loop scheduled last: held
    /// here, so that the loop's ``MainActorPass`` stays one byte.
    var openJoinedDeliveries: JoinedDeliveries?
}

/// A cascade the bus stopped, and what its report says.
struct CascadeStop {
    /// The event that was not delivered, and its parent.
    let refused: CascadeStep
    /// Events the cascade had set off.
    let count: Int
    /// The type of the top-level event that set it off: a loop is told from there.
    let rootType: any Event.Type
}

/// What a delivery waiting on a queue or an actor carries of the event that set it off, so that
/// what its handler publishes is counted in the same cascade and names its cause.
struct ScheduledCause: Sendable {
    /// The bus whose delivery it is.
    let bus: ObjectIdentifier
    /// The event delivered.
    let eventID: UInt64
    let type: any Event.Type
    let cascade: SharedCascade
}

extension CascadeStop {
    /// "Ping → Pong → Ping (Pong at Handlers.swift:20, Ping at Handlers.swift:31), stopped
    /// after 10000 events": the loop of types found by walking back from the refused event
    /// through the steps noted, or the chain that led to it when it is not a loop.
    func account(steps: [ObjectIdentifier: CascadeStep], name: (any Event.Type) -> String) -> String {
        var chain: [CascadeStep] = [refused]
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(refused.type)]
        var loopStart: ObjectIdentifier?
        var parent = refused.parentType
        while let type = parent, chain.count < 16 {
            let key = ObjectIdentifier(type)
            if seen.contains(key) {
                loopStart = key
                break
            }
            seen.insert(key)
            guard let step = steps[key] else {
                chain.append(CascadeStep(type: type, site: PublishSite(fileID: "", line: 0), parentType: nil))
                break
            }
            chain.append(step)
            parent = step.parentType
        }
        // The chain runs newest first; a loop's oldest step was published by the type it ends with.
        if let loopStart, let start = chain.firstIndex(where: { ObjectIdentifier($0.type) == loopStart }) {
            // Each step published the next; the last step's type published the first. Told
            // from the type the cascade started with, when the loop passes through it.
            var loop = Array(chain[start...].reversed())
            if let root = loop.firstIndex(where: { ObjectIdentifier($0.type) == ObjectIdentifier(rootType) })
            {
                loop = Array(loop[(root + 1)...] + loop[...root])
            }
            let types = [name(loop[loop.count - 1].type)] + loop.map { name($0.type) }
            let sites = loop.map { "\(name($0.type)) at \($0.site)" }
            return "\(types.joined(separator: " → ")) (\(sites.joined(separator: ", "))), stopped after "
                + "\(count) events"
        }
        let forward = chain.reversed()
        let types = forward.map { name($0.type) }
        return "\(types.joined(separator: " → ")) (\(name(refused.type)) at \(refused.site)), stopped "
            + "after \(count) events"
    }
}

/// The numbers a bus gives its events while someone watches it, on a cache line of their own:
/// publishers take them only then, and the bus's other fields are read by every publish.
final class EventNumbers: Sendable {
    private let padding = CacheLinePadding()
    private let last = Atomic<UInt64>(0)
    private let trailingPadding = CacheLinePadding()

    /// The next number, from 1.
    @inline(__always)
    func next() -> UInt64 {
        last.wrappingAdd(1, ordering: .relaxed).newValue
    }
}

/// A flag publishes read without a lock and changes set under the bus's lock.
final class WatchFlag: Sendable {
    private let value = Atomic<Bool>(false)

    @inline(__always)
    var isSet: Bool { value.load(ordering: .relaxed) }

    func set(_ isSet: Bool) {
        value.store(isSet, ordering: .relaxed)
    }
}
