import BusWire
import EventBus
import Foundation

/// A recording for moving through: events numbered in their payload, at the times given.
package enum TimelineRecording {
    /// Writes `seconds` seconds of recording, an event of type `T` every tenth of a second whose
    /// payload is its number from 0, into `directory`; returns its path.
    package static func write(seconds: Int, in directory: TemporaryDirectory) throws -> String {
        try write(times: (0..<(seconds * 10)).map { Double($0) / 10 }, in: directory)
    }

    /// ``write(seconds:in:)`` with every event published at `fileID`:`line`, for a graph to
    /// show a call site.
    package static func write(
        seconds: Int, publishedAt fileID: String, line: Int, in directory: TemporaryDirectory
    ) throws -> String {
        try write(
            times: (0..<(seconds * 10)).map { Double($0) / 10 },
            site: PublishSite(fileID: fileID, line: line),
            in: directory)
    }

    /// Writes an event of type `T` at each of `times` (seconds from 1,000 on the recording's
    /// clock), numbered from 0 in its payload and published at `site` when one is given; then,
    /// until `quietUntil`, drop counts ten a second (records that are no log lines).
    package static func write(
        times: [Double], quietUntil: Double = 0, site: PublishSite? = nil, in directory: TemporaryDirectory
    ) throws -> String {
        let path = directory.file("timeline.jsonl")
        var lines = times.enumerated().map { index, time in
            FeedRecord.event(
                FeedEvent(
                    sequence: index + 1, time: 1_000 + time, typeName: "T", payload: .description("\(index)"),
                    receivers: 1,
                    trace: site.map { PublishTrace(eventID: UInt64(index + 1), causeID: nil, site: $0) }
                        ?? PublishTrace())
            ).encodeLine()
        }
        var quiet = (times.last ?? 0) + 0.1
        while quiet < quietUntil {
            lines.append(FeedRecord.dropped(FeedDrops(time: 1_000 + quiet, events: 0)).encodeLine())
            quiet += 0.1
        }
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// An event line of type `Tick`, numbered `sequence`, at `time` seconds after `start`.
    package static func tick(_ sequence: Int, at time: Double, after start: Double) -> String {
        FeedRecord.event(
            FeedEvent(
                sequence: sequence, time: start + time, typeName: "Tick", payload: .description("t"),
                receivers: 1)
        ).encodeLine()
    }

    /// Writes a recording of an attached app that published ten events a second for 10 s,
    /// went away at 10.05 s, and came back as a new process (pid 8) at `backAt` seconds (12 by
    /// default) for 10 s more, its first hello at `start`; returns its path.
    package static func writeRestartedApp(
        start: Double, backAt: Double = 12, in directory: TemporaryDirectory
    ) throws -> String {
        let path = directory.file("restarted.jsonl")
        let first = FeedHello(pid: 7, process: "simapp", bus: "b", time: start)
        let second = FeedHello(pid: 8, process: "simapp", bus: "b", time: start + backAt)
        var lines = [FeedRecord.hello(first).encodeLine()]
        lines += (1...100).map { tick($0, at: Double($0) / 10, after: start) }
        lines.append(FeedRecord.detached(FeedDetached(from: first, at: start + 10.05)).encodeLine())
        lines.append(FeedRecord.hello(second).encodeLine())
        lines += (1...100).map { tick($0, at: backAt + Double($0) / 10, after: start) }
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }
}
