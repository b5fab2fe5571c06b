import BusMonitor
import BusWire
import EventBus
import Foundation
import TestSupport
import Testing

@testable import BusMonitor
@testable import BusTap
@testable import BusWire

/// A screen of the app being watched.
final class ProfileScreen: Sendable {}

/// Makes the classic leak on `bus`: a `ProfileScreen` whose handlers capture it strongly, so the
/// bus keeps it alive, which the app then expects to go within 50 ms of being closed.
///
/// - Returns: A closure that gives the screen while it lives, without keeping it alive.
func makeLeakedScreen(on bus: EventBus) -> () -> ProfileScreen? {
    let screen = ProfileScreen()
    bus.subscribe(observer: screen, on: nil) { (_: UserLoggedInEvent) in withExtendedLifetime(screen) {} }
    bus.subscribe(observer: screen, on: nil) { (_: DataLoadedEvent) in withExtendedLifetime(screen) {} }
    bus.expectDeallocation(of: screen, within: .milliseconds(50), reason: "screen closed")
    return { [weak screen] in screen }
}

@Suite("Leaks across the wire")
struct LeakMonitoringTests {
    @Test("a tapped app's leak is suspected, listed in snapshots, cleared, and replays from a recording")
    func leakAcrossTheTap() throws {
        // Given an app with a tap, watched by an AttachSource that is recorded
        let directory = TemporaryDirectory()
        let bus = EventBus(name: "app")
        let tap = try BusTap(
            bus: bus, socketPath: directory.file("t.sock"), snapshotInterval: 0.05, processName: "app")
        let writer = try RecordingWriter(path: directory.file("leak.jsonl"))
        let attach = AttachSource(socketPath: tap.socketPath, retryInterval: 0.05)
        defer { attach.close() }
        let source = RecordingSource(wrapping: attach, writer: writer)
        #expect(eventually { tap.connectedClients == 1 && bus.snapshot().wildcardObservers == 1 })

        // When a screen leaks
        let screen = makeLeakedScreen(on: bus)
        let whileLeaking = drainUntil(source) { batches in
            batches.flatMap(\.lifecycle).contains { $0.change.kind == .leakSuspected }
                && batches.contains { $0.snapshot?.leakSuspects.isEmpty == false }
        }

        // Then the monitor follows the object by its serial, from subscribing to suspicion
        let subscribed = whileLeaking.flatMap(\.lifecycle).map(\.change).filter {
            $0.kind == .subscribed && $0.observerTypeName == "ProfileScreen"
        }
        #expect(subscribed.count == 2)
        let serial = try #require(subscribed.first?.observerID)
        #expect(subscribed.allSatisfy { $0.observerID == serial })
        let suspected = try #require(
            whileLeaking.flatMap(\.lifecycle).map(\.change).first { $0.kind == .leakSuspected })
        #expect(suspected.observerID == serial)
        #expect(suspected.observerTypeName == "ProfileScreen")
        #expect(suspected.reason == "screen closed")
        #expect(suspected.expectedWithin == .milliseconds(50))
        #expect(suspected.overdue != nil)
        #expect(suspected.subscriptions.sorted() == ["DataLoadedEvent", "UserLoggedInEvent"])
        // And the snapshot lists it as a suspect, in its class's row, and as an instance
        let snapshot = try #require(whileLeaking.compactMap(\.snapshot).last { !$0.leakSuspects.isEmpty })
        let suspect = try #require(snapshot.leakSuspects.first)
        #expect(suspect.observerID == serial && suspect.className == "ProfileScreen")
        #expect(suspect.reason == "screen closed")
        #expect(suspect.subscriptions.sorted() == ["DataLoadedEvent", "UserLoggedInEvent"])
        let row = try #require(snapshot.observers.first { $0.className == "ProfileScreen" })
        #expect(row.liveInstances == 1 && row.liveSubscriptions == 2 && row.leakSuspects == 1)
        let instance = try #require(snapshot.instances.first { $0.observerID == serial })
        #expect(instance.state == .live && instance.leakReason == "screen closed" && instance.isLeakSuspect)
        #expect(instance.subscriptions.sorted() == ["DataLoadedEvent", "UserLoggedInEvent"])

        // When the cycle is broken
        if let leaked = screen() { bus.unsubscribe(observer: leaked) }
        #expect(eventually { screen() == nil })
        let afterFix = drainUntil(source) { batches in
            batches.flatMap(\.lifecycle).contains { $0.change.kind == .leakCleared }
                && batches.contains { $0.snapshot?.leakSuspects.isEmpty == true }
        }

        // Then the suspicion is cleared, for the same serial
        let cleared = try #require(
            afterFix.flatMap(\.lifecycle).map(\.change).first { $0.kind == .leakCleared })
        #expect(cleared.observerID == serial && cleared.observerTypeName == "ProfileScreen")
        #expect(afterFix.compactMap(\.snapshot).last?.leakSuspects.isEmpty == true)

        // And the recording replays the same lifecycle records and the last counters
        writer.close()
        let live = whileLeaking + afterFix
        let replay = try ReplaySource(path: writer.path, speed: 0)
        #expect(replay.warnings.isEmpty)
        let replayed = drainUntil(replay) { _ in replay.isFinished }
        #expect(replayed.flatMap(\.lifecycle).map(\.change) == live.flatMap(\.lifecycle).map(\.change))
        #expect(replayed.compactMap(\.snapshot).last == live.compactMap(\.snapshot).last)
        let recorded = try String(contentsOfFile: writer.path, encoding: .utf8).split(separator: "\n")
            .map { try FeedRecord.decode(line: String($0)) }
        #expect(recorded.snapshots.contains { $0.snapshot.leakSuspects.first?.observerID == serial })
        #expect(recorded.lifecycleChanges.map(\.change) == live.flatMap(\.lifecycle).map(\.change))
    }

    @Test("headless output of an in-process bus has the suspicion, the snapshot's tables and the count")
    func headlessLeak() throws {
        // Given a bus with a leaked screen, watched in process and run headless into a file
        let directory = TemporaryDirectory()
        let path = directory.file("out.jsonl")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let output = try #require(FileHandle(forWritingAtPath: path))
        let bus = EventBus(name: "local")
        let source = LocalBusSource(bus: bus, snapshotInterval: 0.02)
        let runner = HeadlessRunner(
            source: source, output: output, drainInterval: 0.01, summaryInterval: 0.05)
        let outcome = LockedValue<HeadlessRunner.Outcome?>(nil)
        let thread = Thread { outcome.withLock { $0 = runner.run() } }
        thread.start()
        let screen = makeLeakedScreen(on: bus)

        // When the suspect has shown up in a written snapshot
        func records() -> [FeedRecord] {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? FeedRecord.decode(line: String($0)) }
        }
        #expect(eventually { records().snapshots.contains { !$0.snapshot.leakSuspects.isEmpty } })
        runner.stop()
        #expect(eventually { outcome.current != nil })
        try output.close()

        // Then the output has the suspicion with the serial, and a snapshot listing the screen
        let written = records()
        let suspected = try #require(written.lifecycleChanges.first { $0.change.kind == .leakSuspected })
        let serial = try #require(suspected.change.observerID)
        #expect(suspected.change.subscriptions.sorted() == ["DataLoadedEvent", "UserLoggedInEvent"])
        let snapshot = try #require(written.snapshots.last { !$0.snapshot.leakSuspects.isEmpty }).snapshot
        #expect(snapshot.leakSuspects.map(\.observerID) == [serial])
        #expect(snapshot.observers.first { $0.className == "ProfileScreen" }?.leakSuspects == 1)
        #expect(snapshot.instances.contains { $0.observerID == serial && $0.isLeakSuspect })
        // And the summaries count the suspects
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(#""leakSuspects":1,"types""#))
        #expect(screen() != nil, "nothing broke the cycle")
    }

    @Test("an in-process source lists up to the shared number of instances per class")
    func localInstancesBounded() {
        let bus = EventBus(name: "local")
        let screens = (0..<(FeedSnapshot.instancesPerClass + 10)).map { _ in Screen() }
        for screen in screens { bus.subscribe(observer: screen, on: nil) { (_: Tick) in } }
        let source = LocalBusSource(bus: bus, snapshotInterval: 0)
        let snapshot = source.drain().snapshot
        #expect(snapshot?.instances.count == FeedSnapshot.instancesPerClass)
        #expect(snapshot?.observers.first { $0.className == "Screen" }?.liveInstances == screens.count)
        withExtendedLifetime(screens) {}
    }
}
