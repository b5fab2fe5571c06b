import BusMonitor
import BusWire
import EventBus
import Testing

@testable import Dashboard

@Suite("EventLog and LogFilter")
struct EventLogTests {
    @Test func keepsTheNewestLinesUpToItsCapacity() throws {
        var log = EventLog(capacity: 5)
        for index in 0..<12 {
            log.append(time: Double(index), content: .event(login("user\(index)", at: Double(index))))
        }
        #expect(log.count == 5)
        #expect(log.sequences == 7..<12)
        #expect(log[6] == nil)
        let oldest = try #require(log[7])
        #expect(oldest.time == 7)
        #expect(log[11]?.detailText.contains("user11") == true)
    }

    @Test func filterFindsTypeOrPayloadIgnoringCase() throws {
        let filter = try #require(LogFilter("grace"))
        #expect(filter.shows(typeName: "UserLoggedInEvent", detail: { #"{"userName":"Grace"}"# }))
        #expect(!filter.shows(typeName: "UserLoggedInEvent", detail: { #"{"userName":"ada"}"# }))

        let byType = try #require(LogFilter("userlogged"))
        var askedForDetail = false
        #expect(
            byType.shows(typeName: "UserLoggedInEvent") {
                askedForDetail = true
                return ""
            })
        // The type decided; the payload was not formatted.
        #expect(!askedForDetail)
    }

    @Test func bangInvertsTheFilter() throws {
        let filter = try #require(LogFilter("!DataLoaded"))
        #expect(filter.inverted)
        #expect(!filter.shows(typeName: "DataLoadedEvent", detail: { "" }))
        #expect(filter.shows(typeName: "UserLoggedInEvent", detail: { "ada" }))
        #expect(LogFilter("") == nil)
        #expect(LogFilter("!") == nil)
    }
    @Test("a filter checks lines that came in thousands over the next catch-ups, and shows them all in order")
    func filterChecksABurstOverCatchUps() throws {
        let filter = try #require(LogFilter("grace"))
        var log = EventLog(capacity: 5_000)
        var cache = FilterCache(filter: filter)
        cache.catchUp(with: log)
        // 2,500 lines at once, as a jump on in a paused replay brings them; every tenth matches.
        for index in 0..<2_500 {
            log.append(time: Double(index), content: .event(login(index % 10 == 0 ? "grace" : "ada", at: 0)))
        }
        cache.catchUp(with: log)
        #expect(cache.matches.count == 100 && cache.hasBacklog, "the newest 1,000 first")
        cache.catchUp(with: log)
        cache.catchUp(with: log)
        #expect(!cache.hasBacklog)
        #expect(cache.matches == Array(stride(from: 0, to: 2_500, by: 10)), "every match, in order, once")
        #expect(cache.unchecked == 0)

        // Two bursts, the second before the first's backlog is done: both are checked whole.
        for index in 0..<3_000 {
            log.append(time: 0, content: .event(login(index % 10 == 0 ? "grace" : "ada", at: 0)))
        }
        cache.catchUp(with: log)
        for index in 0..<1_200 {
            log.append(time: 0, content: .event(login(index % 10 == 0 ? "grace" : "ada", at: 0)))
        }
        while cache.hasBacklog { cache.catchUp(with: log) }
        let shown = cache.matches.filter { log[$0] != nil }
        #expect(shown == cache.matches, "only lines the log holds")
        #expect(
            cache.matches.count
                == log.sequences.filter { log[$0]?.detailText.contains("grace") == true }.count)
        #expect(cache.matches == cache.matches.sorted() && Set(cache.matches).count == cache.matches.count)
        #expect(cache.unchecked == 0, "the lines that left the log had been checked")

        // A flood: lines leave the log before their turn, and are counted.
        for _ in 0..<3 {
            for _ in 0..<4_000 { log.append(time: 0, content: .event(login("ada", at: 0))) }
            cache.catchUp(with: log)
        }
        #expect(cache.unchecked > 0)
        #expect(cache.matches.allSatisfy { log[$0] != nil })
        #expect(cache.matches == cache.matches.sorted())
        // A log made anew (a replay read again) is checked whole.
        var fresh = EventLog(capacity: 5_000)
        for _ in 0..<3_000 { fresh.append(time: 0, content: .event(login("grace", at: 0))) }
        cache.catchUp(with: fresh)
        #expect(cache.matches.count == 3_000 && !cache.hasBacklog)
    }
    @Test(
        "causes are followed back through earlier lines only: a loop of causes or a reused number stops the chain, said so"
    )
    func lineageStopsAtCausesThatAreNotEarlier() {
        func event(_ id: UInt64, cause: UInt64?) -> FeedEvent {
            FeedEvent(
                sequence: Int(id), time: 0, typeName: "E\(id)", payload: .description(""), receivers: 0,
                trace: PublishTrace(eventID: id, causeID: cause))
        }
        var log = EventLog(capacity: 100)
        // #1 and #2 name each other: made up, or numbers gone wrong.
        log.append(time: 0, content: .event(event(1, cause: 2)))
        log.append(time: 0, content: .event(event(2, cause: 1)))
        let loop = EventLineage(of: event(2, cause: 1), at: 1, in: log)
        #expect(loop.causes.map(\.trace.eventID) == [1])
        #expect(loop.end == .notEarlier(2))
        // A chain longer than the limit says there is more, not that a cause is gone.
        var chain = EventLog(capacity: 100)
        chain.append(time: 0, content: .event(event(1, cause: nil)))
        for id in 2...30 { chain.append(time: 0, content: .event(event(UInt64(id), cause: UInt64(id - 1)))) }
        let long = EventLineage(of: event(30, cause: 29), at: 29, in: chain)
        #expect(long.causes.count == EventLineage.maximumCauses && long.end == .limit)
        #expect(EventLineage(of: event(5, cause: 4), at: 4, in: chain).end == .topLevel)
        #expect(EventLineage(of: event(40, cause: 99), at: nil, in: chain).end == .missing(99))
        // An app that restarted numbers its events from 1 again: the causes are the new run's.
        var restarted = EventLog(capacity: 100)
        restarted.append(time: 0, content: .event(event(1, cause: nil)))
        for id in 2...5 {
            restarted.append(time: 0, content: .event(event(UInt64(id), cause: UInt64(id - 1))))
        }
        restarted.append(time: 0, content: .event(event(1, cause: nil)))
        restarted.append(time: 0, content: .event(event(2, cause: 1)))
        restarted.append(time: 0, content: .event(event(3, cause: 2)))
        let again = EventLineage(of: event(3, cause: 2), at: 7, in: restarted)
        #expect(again.causes.count == 2 && again.end == .topLevel, "the new #2 and #1, not the old run's")
        #expect(
            EventLineage(of: event(2, cause: 1), at: 1, in: restarted).setOff.count == 1, "the old #3 only")
    }
}
