import BusMonitor
import EventBus
import Foundation

@testable import BusMonitor
@testable import BusTap
@testable import BusWire

#if canImport(Glibc)
    import Glibc
#endif

/// An `Encodable` event, so its payload travels as a JSON object.
struct Ping: Event, Encodable {
    let number: Int
    let note: String
}

/// An event that is not `Encodable`, so its payload travels as its description.
struct Opaque: Event, CustomStringConvertible {
    let number: Int
    var description: String { "Opaque #\(number)" }
}

/// A fresh directory under /tmp with a short path, since socket paths are limited to 107 bytes.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/bustap-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A plain socket reader, as `nc -U` would be: it sees exactly the bytes the tap sends.
final class RawClient {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init?(path: String) {
        guard case .connected(let descriptor) = UnixSocket.connect(to: path) else { return nil }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Shrinks the receive buffer, so that a client that does not read fills up sooner.
    func setSmallReceiveBuffer() {
        var size: Int32 = 4096
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The next line, or nil when none arrives within `timeout` seconds or the tap hung up.
    func readLine(timeout: Double = 5) -> String? {
        let deadline = MonotonicClock.now() + timeout
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let remaining = deadline - MonotonicClock.now()
            guard remaining > 0 else { return nil }
            var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            guard poll(&descriptors, 1, Int32(min(remaining, 0.1) * 1000) + 1) >= 0 else { return nil }
            guard descriptors[0].revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = recv(descriptor, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count == 0 { return nil }
            if count > 0 { buffer.append(contentsOf: chunk[0..<count]) }
        }
    }

    /// Reads until the tap hangs up; false if it has not within `timeout` seconds.
    func readsToEnd(timeout: Double) -> Bool {
        let deadline = MonotonicClock.now() + timeout
        while MonotonicClock.now() < deadline {
            if readLine(timeout: max(0.01, deadline - MonotonicClock.now())) == nil {
                return MonotonicClock.now() < deadline
            }
        }
        return false
    }

    /// Reads and decodes records until `stop` says enough, or `timeout` passes.
    func readRecords(timeout: Double = 60, until stop: ([FeedRecord]) -> Bool) -> [FeedRecord] {
        var records: [FeedRecord] = []
        let deadline = MonotonicClock.now() + timeout
        while !stop(records), MonotonicClock.now() < deadline {
            guard let line = readLine(timeout: max(0.01, deadline - MonotonicClock.now())) else { break }
            if let record = try? FeedRecord.decode(line: line) { records.append(record) }
        }
        return records
    }
}

extension [FeedRecord] {
    var events: [FeedEvent] {
        compactMap { if case .event(let event) = $0 { return event } else { return nil } }
    }
    var lifecycleChanges: [FeedLifecycle] {
        compactMap { if case .lifecycle(let change) = $0 { return change } else { return nil } }
    }
    var snapshots: [FeedSnapshot] {
        compactMap { if case .snapshot(let snapshot) = $0 { return snapshot } else { return nil } }
    }
    var drops: [FeedDrops] {
        compactMap { if case .dropped(let drops) = $0 { return drops } else { return nil } }
    }
}

/// Waits until `condition` holds or `timeout` passes; returns whether it held.
func eventually(timeout: Double = 30, _ condition: () -> Bool) -> Bool {
    let deadline = MonotonicClock.now() + timeout
    while MonotonicClock.now() < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}

/// Drains `source` every few milliseconds until `condition` holds for everything drained so far.
func drainUntil(
    _ source: any DashboardSource, timeout: Double = 60, _ condition: ([SourceBatch]) -> Bool
) -> [SourceBatch] {
    var batches: [SourceBatch] = []
    let deadline = MonotonicClock.now() + timeout
    repeat {
        batches.append(source.drain())
        if condition(batches) { break }
        usleep(5_000)
    } while MonotonicClock.now() < deadline
    return batches
}

/// A deterministic random number generator, so the fuzz test is repeatable.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
