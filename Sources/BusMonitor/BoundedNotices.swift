/// Notices gathered between two drains of a source, up to ``maximum``: apps and strangers make
/// them (a bridge's report of what it dropped, an app that goes, malformed lines), as fast as
/// they like while the monitor does not drain. Past the bound they are counted, and one notice
/// says how many were left out.
package struct BoundedNotices: Sendable {
    /// Notices kept between two drains.
    package static let maximum = 1_000

    private var kept: [SourceNotice] = []
    private var leftOut = 0

    /// No notices yet.
    package init() {}

    /// Keeps `notice` for the next drain, or counts it when ``maximum`` are kept already.
    package mutating func append(_ notice: SourceNotice) {
        guard kept.count < Self.maximum else {
            leftOut += 1
            return
        }
        kept.append(notice)
    }

    /// The notices kept, then one saying how many were left out (stamped `now`) if any were;
    /// starts afresh.
    package mutating func take(now: Double) -> [SourceNotice] {
        var taken = kept
        if leftOut > 0 {
            taken.append(
                SourceNotice(
                    time: now, text: "\(leftOut) more notices left out: too many between two frames",
                    isWarning: true))
        }
        self = BoundedNotices()
        return taken
    }
}
