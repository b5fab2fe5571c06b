import Dispatch
import EventBus
import EventBusTesting
import TestSupport
import Testing

struct LoadFailed: Error, CustomStringConvertible {
    let item: Int
    var description: String { "item \(item) is corrupt" }
}

final class FailingScreen: Sendable {}

/// An error that holds the screen it failed for, as an app's error might hold its context.
struct ScreenFailed: Error {
    let screen: FailingScreen
    let item: Int
}

@Suite("Throwing handlers")
struct HandlerFailureTests {
    @Test("a thrown error reaches neither the publisher nor the other subscribers, and is reported")
    func failureIsContained() {
        let bus = EventBus()
        let changes = Journal<SubscriberLifecycleEvent>()
        let watch = bus.observeLifecycle { if $0.kind == .handlerFailed { changes.append($0) } }
        let screen = FailingScreen()
        let after = Journal<Int>()
        bus.subscribe(observer: screen) { (tick: Tick) throws in
            if tick.value == 2 { throw LoadFailed(item: tick.value) }
        }
        let others = bus.subscribe(to: Tick.self) { after.append($0.value) }

        for value in 1...3 { bus.publish(Tick(value: value)) }

        #expect(after.entries == [1, 2, 3])
        #expect(changes.count == 1)
        let failure = changes.entries.first
        #expect(failure?.eventTypeName == "Tick")
        #expect(failure?.observerTypeName == "FailingScreen")
        #expect(failure?.observerID != nil)
        #expect(failure?.reason == "item 2 is corrupt")
        #expect(
            failure?.description
                == "FailingScreen #\(failure?.observerID ?? 0) failed on Tick: item 2 is corrupt")

        let snapshot = bus.snapshot()
        #expect(snapshot[Tick.self]?.handlerFailures == 1)
        #expect(snapshot.observers.first { $0.className == "FailingScreen" }?.handlerFailures == 1)
        let row = snapshot.handlers.first { $0.observerTypeName == "FailingScreen" }
        #expect(row?.failures == 1)
        #expect(row?.eventTypeName == "Tick")
        _ = (watch, others, screen)
    }

    @Test("failures the report rate limit holds back are counted by a later report, none lost")
    func heldBackFailuresAreCounted() {
        let bus = EventBus()
        let reports = LockedValue<[SubscriberLifecycleEvent]>([])
        let watch = bus.observeLifecycle { change in
            if change.kind == .handlerFailed { reports.withLock { $0.append(change) } }
        }
        let failing = bus.subscribe(to: Ping.self) { (ping: Ping) throws in throw LoadFailed(item: ping.hop) }
        // 150 failures within a second: a hundred are reported one by one, 50 are held back.
        for hop in 1...150 { bus.publish(Ping(hop: hop)) }
        // They go out as one report once their second is over, at the next snapshot.
        #expect(
            eventually {
                _ = bus.snapshot(); return reports.current.reduce(0) { $0 + $1.count } >= 150
            })
        let counts = reports.current.map(\.count)
        #expect(counts.reduce(0, +) == 150)
        #expect(counts.count == 101)
        #expect(counts.last == 50)
        #expect(reports.current.last?.description.hasSuffix("(and 49 more failures held back)") == true)
        #expect(bus.snapshot()[Ping.self]?.handlerFailures == 150)
        watch.cancel()
        failing.cancel()
    }

    @Test("a held-back report holds neither its handler nor its error: what they held is freed")
    func heldBackReportsHoldNoHandler() {
        let bus = EventBus()
        weak var heldByHandler: FailingScreen?
        do {
            let screen = FailingScreen()
            heldByHandler = screen
            let failing = bus.subscribe(to: Ping.self) { (ping: Ping) throws in
                throw ScreenFailed(screen: screen, item: ping.hop)
            }
            // 150 failures within a second: the last 50 are held back, for a report to come.
            for hop in 1...150 { bus.publish(Ping(hop: hop)) }
            failing.cancel()
        }
        // No snapshot has sent them yet; what the handler held is gone all the same.
        #expect(heldByHandler == nil)
    }

    @Test("token, queued and wildcard handlers may throw too; non-throwing ones compile unchanged")
    func everyFormMayThrow() async {
        let bus = EventBus()
        let failures = Journal<String>()
        let watch = bus.observeLifecycle { change in
            if change.kind == .handlerFailed { failures.append(change.eventTypeName) }
        }
        // Watching after the observer above, so that it has every report the recorder has.
        let recorder = EventRecorder(bus: bus)
        let queue = DispatchQueue(label: "throwing")
        let token = bus.subscribe(to: Tick.self) { (_: Tick) throws in throw LoadFailed(item: 1) }
        let queued = bus.subscribe(to: Tick.self, on: queue) { (_: Tick) throws in throw LoadFailed(item: 2) }
        let wildcard = bus.subscribeAll { (_: any Event) throws in throw LoadFailed(item: 3) }
        let plain = bus.subscribe(to: Tick.self) { _ in }
        bus.publish(Tick(value: 1))
        for _ in 0..<3 { await recorder.nextChange(.handlerFailed) }
        #expect(failures.count == 3)
        #expect(failures.entries.allSatisfy { $0 == "Tick" })
        #expect(bus.snapshot()[Tick.self]?.handlerFailures == 2)
        _ = (watch, token, queued, wildcard, plain)
    }

    @Test("a main-actor handler may throw; its error is reported from the main actor")
    @MainActor
    func mainActorHandlerMayThrow() async {
        let bus = EventBus()
        let failures = Journal<String?>()
        let watch = bus.observeLifecycle { change in
            if change.kind == .handlerFailed { failures.append(change.reason) }
        }
        let screen = FailingScreen()
        bus.subscribe(observer: screen) { @MainActor (tick: Tick) throws in
            throw LoadFailed(item: tick.value)
        }
        await Task.detached { bus.publish(Tick(value: 9)) }.value
        while failures.count < 1 { await Task.yield() }
        #expect(failures.entries == ["item 9 is corrupt"])
        _ = (watch, screen)
    }
}
