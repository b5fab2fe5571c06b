import BusWire
import Foundation

/// A recording for moving through: an event every tenth of a second, numbered in its payload.
package enum TimelineRecording {
    /// Writes `seconds` seconds of recording, an event of type `T` every tenth of a second whose
    /// payload is its number from 0, into `directory`; returns its path.
    package static func write(seconds: Int, in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("timeline.jsonl")
        let lines = (0..<(seconds * 10)).map { index in
            FeedRecord.event(
                FeedEvent(
                    sequence: index + 1, time: 1_000 + Double(index) / 10, typeName: "T",
                    payload: .description("\(index)"), receivers: 1)
            ).encodeLine()
        }
        try lines.joined().write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }
}
