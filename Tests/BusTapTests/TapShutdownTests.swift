import BusWire
import EventBus
import Foundation
import TestSupport
import Testing

@testable import BusTap

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What a tap that closes gives its readers.
@Suite("A tap closing")
struct TapShutdownTests {
    @Test("a reader behind in the history gets the rest of it and the last snapshot while it reads")
    func aReaderBehindGetsTheRestAndTheLastSnapshot() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus()
        let server = try TapServer(
            bus: bus, socketPath: directory.file("t.sock"), snapshotInterval: 100, capacity: 20_000,
            processName: "shop")
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, System.streamSocketType, 0, &ends) == 0)
        let (tapEnd, readerEnd) = (ends[0], ends[1])
        defer { close(readerEnd) }
        // A send buffer as large as a TCP link's: one flush can take all the reader was given.
        var size: Int32 = 4 << 20
        _ = setsockopt(tapEnd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        server.add(tapEnd)
        // Given 2,000 events in the history (three times what a reader is given at once, few
        // enough for a sanitizer build to send in the grace a closing tap allows) and a reader
        // that has read none of them
        let note = String(repeating: "x", count: 200)
        let total = 2_000
        for number in 1...total { bus.publish(Ping(number: number, note: note)) }
        server.collect()
        // and that reads all the time
        let received = LockedValue<[UInt8]>([])
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = recv(readerEnd, &chunk, chunk.count, 0)
                if count <= 0 { break }
                received.withLock { $0.append(contentsOf: chunk[0..<count]) }
            }
            finished.signal()
        }
        // When the tap closes
        server.sendLastRecords()
        server.remove(server.clients)
        #expect(finished.wait(timeout: .now() + 10) == .success)
        // Then the reader got every event, and last the snapshot that counts them all
        let records = String(decoding: received.withLock { $0 }, as: UTF8.self).split(separator: "\n")
            .compactMap { try? FeedRecord.decode(line: String($0)) }
        #expect(records.events.count == total)
        #expect(records.snapshots.last?.snapshot["Ping"]?.published == total)
        if case .snapshot = records.last {} else { Issue.record("the last line is not the snapshot") }
    }
}
