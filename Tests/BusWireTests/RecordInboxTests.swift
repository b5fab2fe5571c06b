import EventBus
import Foundation
import Testing

@testable import BusWire

@Suite("Record inbox")
struct RecordInboxTests {
    private struct Tick: Event {
        var value: Int
    }

    private static func append(_ value: Int, to inbox: RecordInbox) {
        inbox.append(DeliveryRecord(event: Tick(value: value), eventTypeName: "Tick", receivers: 1))
    }

    private static func values(_ drained: RecordInbox.Drained) -> [Int] {
        drained.records.events.compactMap { event in
            guard case .value(let value) = event.payload else { return nil }
            return (value as? Tick)?.value
        }
    }

    @Test("a full inbox that drops the newest keeps what fits in order and numbers what it dropped")
    func dropNewestMatchesAModel() {
        // Given appends of every size around the capacity
        let capacity = 5
        let inbox = RecordInbox(capacity: capacity, whenFull: .dropNewest)
        var next = 0
        var drops = 0
        for round in 0..<60 {
            let appended = round * 7 % 13
            for _ in 0..<appended {
                Self.append(next, to: inbox)
                next += 1
            }
            drops += max(0, appended - capacity)
            // Then each drain hands over the first of the round, numbered from 1 across rounds,
            // its type named; drops are a running total, and the numbers skip them
            let drained = inbox.drain()
            let kept = Array((next - appended)..<(next - appended + min(appended, capacity)))
            #expect(Self.values(drained) == kept)
            #expect(drained.records.events.map(\.sequence) == kept.map { $0 + 1 })
            #expect(drained.records.events.allSatisfy { $0.typeName == "Tick" })
            #expect(drained.droppedEvents == drops)
            #expect(drained.eventsAppended == next)
            #expect(inbox.eventsAppended == next)
        }
    }

    @Test("a drainer that asks for fewer events gets that many next time, the rest numbered as drops")
    func aLimitHoldsForOneRound() {
        let inbox = RecordInbox(capacity: 10, whenFull: .dropNewest)
        _ = inbox.drain(keepingAtMost: 3)
        for value in 0..<6 { Self.append(value, to: inbox) }
        let limited = inbox.drain()
        #expect(Self.values(limited) == [0, 1, 2])
        #expect(limited.droppedEvents == 3)
        // The drain that asked for nothing lifted the limit: the whole capacity again.
        for value in 6..<18 { Self.append(value, to: inbox) }
        let whole = inbox.drain(keepingAtMost: 100)
        #expect(Self.values(whole) == Array(6..<16))
        #expect(whole.records.events.map(\.sequence) == Array(7...16))
        #expect(whole.droppedEvents == 5)
    }

    @Test("a full inbox that drops the oldest keeps the newest, numbered after what it wrote over")
    func dropOldestKeepsTheNewest() {
        let inbox = RecordInbox(capacity: 3, whenFull: .dropOldest)
        for value in 0..<8 { Self.append(value, to: inbox) }
        #expect(inbox.eventsAppended == 8)
        let drained = inbox.drain()
        #expect(Self.values(drained) == [5, 6, 7])
        #expect(drained.records.events.map(\.sequence) == [6, 7, 8])
        #expect(drained.droppedEvents == 5)
        Self.append(8, to: inbox)
        #expect(inbox.drain().records.events.map(\.sequence) == [9])
    }

    @Test("lifecycle changes come out where they happened among the events, the newest kept")
    func lifecycleChangesKeepTheirPlace() {
        let inbox = RecordInbox(capacity: 4, whenFull: .dropOldest)
        func change(_ name: String) -> SubscriberLifecycleEvent {
            SubscriberLifecycleEvent(kind: .subscribed, eventTypeName: name)
        }
        inbox.append(change("first"))
        Self.append(0, to: inbox)
        Self.append(1, to: inbox)
        inbox.append(change("after 1"))
        // Events 2 to 5 write over 0 and 1; the change stays after event 1.
        for value in 2..<6 { Self.append(value, to: inbox) }
        inbox.append(change("last"))
        let drained = inbox.drain()
        let order = drained.records.map { record -> String in
            switch record {
            case .event(let event): return "\(event.sequence)"
            case .lifecycle(let change): return change.change.eventTypeName
            default: return "?"
            }
        }
        #expect(order == ["first", "after 1", "3", "4", "5", "6", "last"])
        #expect(drained.firstLifecycleSequence == 1)
        #expect(inbox.nextSequences() == (event: 7, lifecycle: 4))
    }

    @Test("lifecycle changes beyond their capacity are counted, the oldest dropped")
    func lifecycleChangesAreBounded() {
        let inbox = RecordInbox(capacity: 10, whenFull: .dropNewest)
        for index in 0..<25 {
            inbox.append(SubscriberLifecycleEvent(kind: .subscribed, eventTypeName: "T\(index)"))
        }
        let drained = inbox.drain()
        #expect(drained.records.lifecycleChanges.map(\.change.eventTypeName) == (15..<25).map { "T\($0)" })
        #expect(drained.droppedLifecycle == 15)
        #expect(drained.firstLifecycleSequence == 16)
    }

    @Test("events are released when dropped, drained, written over or left in the inbox")
    func releasesEveryEvent() {
        let released = LockedValue(0)
        do {
            let inbox = RecordInbox(capacity: 4, whenFull: .dropOldest)
            for _ in 0..<10 {
                inbox.append(
                    DeliveryRecord(event: Tracked(released: released), eventTypeName: "T", receivers: 0))
            }
            // Six were written over.
            #expect(released.current == 6)
            do {
                let drained = inbox.drain()
                #expect(drained.records.count == 4)
                withExtendedLifetime(drained) { #expect(released.current == 6) }
            }
            #expect(released.current == 10)
            // Two left in the inbox go with it.
            for _ in 0..<2 {
                inbox.append(
                    DeliveryRecord(event: Tracked(released: released), eventTypeName: "T", receivers: 0))
            }
        }
        #expect(released.current == 12)
    }

    @Test("an event written over is released outside the lock, so its deinit may append again")
    func releasesOutsideTheLock() {
        // Given a full inbox holding an event whose deinit appends to the same inbox, as an
        // event whose payload publishes when it is released would
        let inbox = RecordInbox(capacity: 1, whenFull: .dropOldest)
        inbox.append(
            DeliveryRecord(event: Reentrant(inbox: inbox, depth: 1), eventTypeName: "R", receivers: 0))

        // When an append writes over it, its deinit appends again without deadlocking
        Self.append(7, to: inbox)

        // Then the inbox holds what that deinit appended, the last event in
        let held = inbox.drain().records.events.compactMap { event -> Int? in
            guard case .value(let value) = event.payload else { return nil }
            return (value as? Reentrant)?.depth
        }
        #expect(held == [-1])
    }

    @Test("a taking thread that sleeps on an empty inbox is woken by the next append")
    func anAppendWakesASleeper() async {
        let inbox = RecordInbox(capacity: 8, whenFull: .dropOldest)
        #expect(inbox.drain(sleepingIfEmpty: true).records.isEmpty)
        let publisher = Thread { Self.append(1, to: inbox) }
        publisher.start()
        inbox.wait(timeout: nil)
        #expect(Self.values(inbox.drain()) == [1])
    }

    @Test(
        "publishers on four threads and a drainer on another lose nothing in silence",
        arguments: [RecordInbox.WhenFull.dropNewest, .dropOldest])
    func concurrentPublishersAndADrainer(whenFull: RecordInbox.WhenFull) {
        let threads = 4
        let perThread = 20_000
        let inbox = RecordInbox(capacity: 500, whenFull: whenFull)
        let finished = LockedValue(0)
        for thread in 0..<threads {
            Thread {
                for index in 0..<perThread { Self.append(thread * perThread + index, to: inbox) }
                finished.withLock { $0 += 1 }
            }.start()
        }
        // Drained while they publish, and once more after.
        var taken: [FeedEvent] = []
        var last = RecordInbox.Drained(
            records: [], firstLifecycleSequence: 1, eventsAppended: 0, droppedEvents: 0, droppedLifecycle: 0)
        while true {
            let done = finished.current == threads
            last = inbox.drain(sleepingIfEmpty: true)
            taken += last.records.events
            if done { break }
            // Nothing came: sleep until the next append wakes the drainer, rather than spin
            // against the publishers for the processor.
            if last.records.isEmpty { inbox.wait(timeout: 0.01) }
        }
        // Every event is either handed over or counted as dropped, and numbered once.
        #expect(taken.count + last.droppedEvents == threads * perThread)
        #expect(last.eventsAppended == threads * perThread)
        let sequences = taken.map(\.sequence)
        #expect(sequences == sequences.sorted())
        #expect(Set(sequences).count == sequences.count)
        #expect(sequences.allSatisfy { (1...(threads * perThread)).contains($0) })
        // Each thread's events come out in the order it published them.
        var lastOfThread = [Int: Int]()
        for event in taken {
            guard case .value(let value) = event.payload, let tick = value as? Tick else { continue }
            let thread = tick.value / perThread
            #expect(tick.value > lastOfThread[thread, default: -1])
            lastOfThread[thread] = tick.value
        }
    }
}

/// Counts its deinitializations.
private final class Tracked: Event {
    let released: LockedValue<Int>

    init(released: LockedValue<Int>) {
        self.released = released
    }

    deinit {
        released.withLock { $0 += 1 }
    }
}

/// Appends an event to its inbox when it is released, if its depth is positive.
private final class Reentrant: Event {
    let inbox: RecordInbox
    let depth: Int

    init(inbox: RecordInbox, depth: Int) {
        self.inbox = inbox
        self.depth = depth
    }

    deinit {
        if depth > 0 {
            inbox.append(
                DeliveryRecord(event: Reentrant(inbox: inbox, depth: -1), eventTypeName: "R", receivers: 0))
        }
    }
}
