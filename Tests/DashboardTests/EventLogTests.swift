import BusMonitor
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
}
