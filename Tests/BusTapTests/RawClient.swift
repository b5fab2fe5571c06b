import BusWire
import Foundation
import TestSupport

@testable import BusTap

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A plain socket reader, as `nc -U` would be: it sees exactly the bytes the tap sends.
final class RawClient {
    let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Where the unread bytes of ``buffer`` start: lines are read past, and the buffer
    /// compacted only now and then, so reading a long backlog is not quadratic.
    private var readPosition = 0

    init?(path: String) {
        guard case .connected(let descriptor) = UnixSocket.connect(to: path) else { return nil }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Sends `text` to the tap, as a monitor's request.
    func transmit(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
    }

    /// Shrinks the receive buffer, so that a client that does not read fills up sooner.
    func setSmallReceiveBuffer() {
        var size: Int32 = 4096
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The next line, or nil when none arrives within `timeout` seconds or the tap hung up.
    func readLine(timeout: Double = 5) -> String? {
        let deadline = MonotonicClock.now() + timeout
        while true {
            if let newline = buffer[readPosition...].firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[readPosition..<newline], as: UTF8.self)
                readPosition = newline + 1
                if readPosition > 1 << 16, readPosition * 2 > buffer.count {
                    buffer.removeSubrange(..<readPosition)
                    readPosition = 0
                }
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
