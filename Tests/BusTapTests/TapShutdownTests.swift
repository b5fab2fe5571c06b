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

    @Test("a reader too slow to take the rest in time is told what it will not get, then the last snapshot")
    func aSlowReaderIsToldWhatItLost() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus()
        let server = try TapServer(
            bus: bus, socketPath: directory.file("t.sock"), snapshotInterval: 100, capacity: 40_000,
            processName: "shop")
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, System.streamSocketType, 0, &ends) == 0)
        let (tapEnd, readerEnd) = (ends[0], ends[1])
        defer { close(readerEnd) }
        server.add(tapEnd)
        // Given far more events in the history than a reader taking 64 KiB every 20 ms reads
        // in the moment a closing tap waits (about 1.6 MB in 0.5 s; these are about 9 MB)
        let note = String(repeating: "x", count: 700)
        let total = 30_000
        for number in 1...total { bus.publish(Ping(number: number, note: note)) }
        server.collect()
        let received = LockedValue<[UInt8]>([])
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = recv(readerEnd, &chunk, chunk.count, 0)
                if count <= 0 { break }
                received.withLock { $0.append(contentsOf: chunk[0..<count]) }
                usleep(20_000)
            }
            finished.signal()
        }
        // When the tap closes
        server.sendLastRecords()
        server.remove(server.clients)
        #expect(finished.wait(timeout: .now() + 30) == .success)
        // Then every event either reached the reader or is counted in the last `dropped` line,
        // and the last line is the snapshot that counts them all
        let records = String(decoding: received.withLock { $0 }, as: UTF8.self).split(separator: "\n")
            .compactMap { try? FeedRecord.decode(line: String($0)) }
        let dropped = records.compactMap { record -> FeedDrops? in
            if case .dropped(let drops) = record { return drops } else { return nil }
        }
        #expect(records.events.count < total, "the reader was meant to fall behind")
        #expect(records.events.count + (dropped.last?.events ?? 0) == total)
        #expect(records.snapshots.last?.snapshot["Ping"]?.published == total)
        if case .snapshot = records.last {} else { Issue.record("the last line is not the snapshot") }
    }

    @Test(
        "events the inbox dropped in the last round are counted for a reader that was behind, before the snapshot"
    )
    func theLastRoundsDropsAreCounted() throws {
        let directory = TemporaryDirectory()
        let bus = EventBus()
        // An inbox of 1,000 events
        let server = try TapServer(
            bus: bus, socketPath: directory.file("t.sock"), snapshotInterval: 100, capacity: 1_000,
            processName: "shop")
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, System.streamSocketType, 0, &ends) == 0)
        let (tapEnd, readerEnd) = (ends[0], ends[1])
        defer { close(readerEnd) }
        var size: Int32 = 4 << 20
        _ = setsockopt(tapEnd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        server.add(tapEnd)
        // that the app filled three times over since the last round, with a reader that reads
        let total = 3_000
        for number in 1...total { bus.publish(Ping(number: number, note: "")) }
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
        // Then the events it got and the last count of those dropped add up to all of them
        let records = String(decoding: received.withLock { $0 }, as: UTF8.self).split(separator: "\n")
            .compactMap { try? FeedRecord.decode(line: String($0)) }
        let dropped = records.compactMap { record -> FeedDrops? in
            if case .dropped(let drops) = record { return drops } else { return nil }
        }
        #expect(records.events.count == 1_000)
        #expect(records.events.count + (dropped.last?.events ?? 0) == total)
        if case .snapshot = records.last {} else { Issue.record("the last line is not the snapshot") }
    }
}
