import EventBusNATS
import Testing

/// A bridge report is read as every other record is: counts and the pid from 0, the time within
/// the wire's range. Anyone who can publish on the subject can send one.
@Suite("Bridge reports as read")
struct BridgeReportDecodingTests {
    private static func line(dropped: String = "0", pid: String = "7", time: String = "1700000000") -> String
    {
        #"{"kind":"bridge","time":\#(time),"app":"a","host":"h","pid":\#(pid),"state":"connected","#
            + #""forwarded":1,"received":0,"dropped":\#(dropped),"undecodable":0,"unencodable":0,"reconnects":0}"#
    }

    @Test("a report with a negative count, a negative pid or a time out of range is not read")
    func outOfRangeReportsAreRefused() {
        #expect(NATSBridgeReport.decode(line: Array(Self.line().utf8))?.statistics.forwarded == 1)
        #expect(NATSBridgeReport.decode(line: Array(Self.line(dropped: "9223372036854775807").utf8)) != nil)
        for bad in [
            Self.line(dropped: "-9223372036854775808"), Self.line(dropped: "-1"), Self.line(pid: "-7"),
            Self.line(time: "-1"), Self.line(time: "1e300"),
        ] {
            #expect(NATSBridgeReport.decode(line: Array(bad.utf8)) == nil, "\(bad)")
        }
    }
}
