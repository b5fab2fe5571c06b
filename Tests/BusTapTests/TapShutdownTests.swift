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
    /// A tap on a bus with one reader connected through a socket pair, which reads on a thread
    /// of its own once ``startReading(pausingAfterEachRead:)`` is called, until the tap closes.
    final class Fixture {
        let directory = TemporaryDirectory()
        let bus = EventBus()
        let server: TapServer
        let readerEnd: Int32
        private let received = LockedValue<[UInt8]>([])
        private let finished = DispatchSemaphore(value: 0)

        /// - Parameters:
        ///   - capacity: The events the tap's inbox and history hold.
        ///   - largeSendBuffer: A send buffer as large as a TCP link's, so that one flush can
        ///     take all the reader was given; the system's default otherwise.
        init(capacity: Int, largeSendBuffer: Bool) throws {
            server = try TapServer(
                bus: bus, socketPath: directory.file("t.sock"), snapshotInterval: 100, capacity: capacity,
                processName: "shop")
            var ends: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, System.streamSocketType, 0, &ends) == 0)
            readerEnd = ends[1]
            if largeSendBuffer {
                var size: Int32 = 4 << 20
                _ = setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            server.add(ends[0])
        }

        deinit { close(readerEnd) }

        /// Starts the reader, which sleeps `pause` microseconds after each read of up to 64 KiB.
        func startReading(pausingAfterEachRead pause: UInt32 = 0) {
            let (descriptor, received, finished) = (readerEnd, received, finished)
            Thread.detachNewThread {
                var chunk = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let count = recv(descriptor, &chunk, chunk.count, 0)
                    if count <= 0 { break }
                    received.withLock { $0.append(contentsOf: chunk[0..<count]) }
                    if pause > 0 { usleep(pause) }
                }
                finished.signal()
            }
        }

        /// Closes the tap as an app that ends does, and returns what the reader got, once it
        /// saw the end.
        func closeTap() throws -> [FeedRecord] {
            server.sendLastRecords()
            server.remove(server.clients)
            #expect(finished.wait(timeout: .now() + 30) == .success)
            return String(decoding: received.withLock { $0 }, as: UTF8.self).split(separator: "\n")
                .compactMap { try? FeedRecord.decode(line: String($0)) }
        }
    }

    /// The events counted in the last `dropped` line of `records`, 0 without one.
    private func lastDropCount(_ records: [FeedRecord]) -> Int {
        records.compactMap { record -> Int? in
            if case .dropped(let drops) = record { return drops.events } else { return nil }
        }.last ?? 0
    }

    @Test("a reader behind in the history gets the rest of it and the last snapshot while it reads")
    func aReaderBehindGetsTheRestAndTheLastSnapshot() throws {
        let tap = try Fixture(capacity: 20_000, largeSendBuffer: true)
        // Given 2,000 events in the history (three times what a reader is given at once, few
        // enough for a sanitizer build to send in the grace a closing tap allows) and a reader
        // that has read none of them
        let note = String(repeating: "x", count: 200)
        let total = 2_000
        for number in 1...total { tap.bus.publish(Ping(number: number, note: note)) }
        tap.server.collect()
        // and that reads all the time
        tap.startReading()
        // When the tap closes
        let records = try tap.closeTap()
        // Then the reader got every event, and last the snapshot that counts them all
        #expect(records.events.count == total)
        #expect(records.snapshots.last?.snapshot["Ping"]?.published == total)
        if case .snapshot = records.last {} else { Issue.record("the last line is not the snapshot") }
    }

    @Test("a reader too slow to take the rest in time is told what it will not get, then the last snapshot")
    func aSlowReaderIsToldWhatItLost() throws {
        let tap = try Fixture(capacity: 40_000, largeSendBuffer: false)
        // Given far more events in the history than a reader taking 64 KiB every 20 ms reads
        // in the moment a closing tap waits (about 1.6 MB in 0.5 s; these are about 9 MB)
        let note = String(repeating: "x", count: 700)
        let total = 30_000
        for number in 1...total { tap.bus.publish(Ping(number: number, note: note)) }
        tap.server.collect()
        tap.startReading(pausingAfterEachRead: 20_000)
        // When the tap closes
        let records = try tap.closeTap()
        // Then every event either reached the reader or is counted in the last `dropped` line,
        // and the last line is the snapshot that counts them all
        #expect(records.events.count < total, "the reader was meant to fall behind")
        #expect(records.events.count + lastDropCount(records) == total)
        #expect(records.snapshots.last?.snapshot["Ping"]?.published == total)
        if case .snapshot = records.last {} else { Issue.record("the last line is not the snapshot") }
    }

    @Test(
        "events the inbox dropped in the last round are counted for a reader that was behind, before the snapshot"
    )
    func theLastRoundsDropsAreCounted() throws {
        // An inbox of 1,000 events
        let tap = try Fixture(capacity: 1_000, largeSendBuffer: true)
        // that the app filled three times over since the last round, with a reader that reads
        let total = 3_000
        for number in 1...total { tap.bus.publish(Ping(number: number, note: "")) }
        tap.startReading()
        // When the tap closes
        let records = try tap.closeTap()
        // Then the events it got and the last count of those dropped add up to all of them
        #expect(records.events.count == 1_000)
        #expect(records.events.count + lastDropCount(records) == total)
        if case .snapshot = records.last {} else { Issue.record("the last line is not the snapshot") }
    }
}
