import Dispatch
import EventBus
import EventBusTesting
import TestSupport
import Testing

private struct Greeting: Event, Equatable {
    let name: String
}

@Suite("Expectations in tests")
struct ExpectationTests {
    @Test("next waits for an event published later, passing over other types")
    func nextWaitsForALaterEvent() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        let queue = DispatchQueue(label: "later publisher")
        queue.async {
            bus.publish(Tick(value: 1))
            bus.publish(Greeting(name: "ada"))
        }
        let greeting = await recorder.next(Greeting.self)
        #expect(greeting == Greeting(name: "ada"))
    }

    @Test("an event recorded before the await counts, and each next moves on past it")
    func nextReadsInOrder() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        bus.publish(Greeting(name: "ada"))
        bus.publish(Greeting(name: "grace"))
        #expect(await recorder.next(Greeting.self)?.name == "ada")
        #expect(await recorder.next(Greeting.self)?.name == "grace")
    }

    @Test("a predicate picks the event, and the ones it refused are passed over")
    func nextWithAPredicate() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        let queue = DispatchQueue(label: "counting publisher")
        queue.async { for value in 1...5 { bus.publish(Tick(value: value)) } }
        let fourth = await recorder.next(Tick.self) { $0.value == 4 }
        #expect(fourth?.value == 4)
        #expect(await recorder.next(Tick.self)?.value == 5)
    }

    @Test("a main-actor handler's follow-up event is awaited, not polled for")
    @MainActor
    func mainActorFollowUp() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        let token = bus.subscribe(to: Tick.self) { tick in
            // A main-actor closure: it runs once the main actor takes the queued delivery.
            bus.publish(Greeting(name: "tick \(tick.value)"))
        }
        DispatchQueue.global().async { bus.publish(Tick(value: 3)) }
        #expect(await recorder.next(Greeting.self)?.name == "tick 3")
        token.cancel()
    }

    @Test("next fails after its timeout, naming what the bus published instead")
    func nextTimesOut() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        bus.publish(Tick(value: 9))
        await withKnownIssue {
            let greeting = await recorder.next(Greeting.self, within: .milliseconds(50))
            #expect(greeting == nil)
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("no Greeting arrived within") && text.contains("Tick(value: 9)")
        }
    }

    @Test("expect(exactly:) with types passes on exactly those, in order")
    func exactlyTheseTypes() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        DispatchQueue.global().async {
            bus.publish(Tick(value: 1))
            bus.publish(Greeting(name: "ada"))
        }
        #expect(await recorder.expect(exactly: [Tick.self, Greeting.self]))
    }

    @Test("expect(exactly:) fails on another order or an extra event, listing what came")
    func exactlyFailsOnOtherEvents() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        bus.publish(Greeting(name: "ada"))
        bus.publish(Tick(value: 1))
        bus.publish(Tick(value: 2))
        await withKnownIssue {
            await recorder.expect(exactly: [Tick.self, Greeting.self], within: .milliseconds(50))
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("expected exactly [Tick, Greeting]")
                && text.contains(#"[Greeting(name: "ada"), Tick(value: 1), Tick(value: 2)]"#)
        }
        // The cursor moved past what was read: the next expectation starts afresh.
        bus.publish(Greeting(name: "grace"))
        #expect(await recorder.expect(exactly: [Greeting(name: "grace")]))
    }

    @Test("expect(exactly:) with values compares them")
    func exactlyTheseValues() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        bus.publish(Greeting(name: "ada"))
        bus.publish(Greeting(name: "alan"))
        await withKnownIssue {
            await recorder.expect(exactly: [Greeting(name: "ada"), Greeting(name: "grace")])
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains(#"Greeting(name: "alan")"#)
        }
    }

    @Test("too few events fail once the timeout has passed")
    func exactlyTimesOut() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        bus.publish(Tick(value: 1))
        await withKnownIssue {
            await recorder.expect(exactly: [Tick.self, Tick.self], within: .milliseconds(50))
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("[Tick(value: 1)]")
        }
    }

    @Test("expectNone passes when nothing matching comes, and fails on the first that does")
    func expectNone() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        bus.publish(Tick(value: 1))
        #expect(await recorder.expectNone(of: Greeting.self, within: .milliseconds(20)))
        #expect(await recorder.expectNone(of: Tick.self, within: .milliseconds(20)) { $0.value > 1 })
        DispatchQueue.global().async { bus.publish(Greeting(name: "eve")) }
        await withKnownIssue {
            // Fails as the greeting arrives, long before the minute is up.
            await recorder.expectNone(of: Greeting.self, within: .seconds(60))
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains(#"expected no Greeting within 60.0 seconds"#)
        }
    }

    @Test("expectNoEvents fails on any event past the cursor")
    func expectNoEvents() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        bus.publish(Tick(value: 1))
        await recorder.next(Tick.self)
        #expect(await recorder.expectNoEvents(within: .milliseconds(20)))
        DispatchQueue.global().async { bus.publish(Tick(value: 2)) }
        await withKnownIssue {
            await recorder.expectNoEvents(within: .seconds(60))
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("Tick(value: 2)")
        }
    }

    @Test("removeAll starts the expectations again from the next event")
    func removeAllResetsTheCursor() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        bus.publish(Tick(value: 1))
        recorder.removeAll()
        bus.publish(Tick(value: 2))
        #expect(await recorder.next(Tick.self)?.value == 2)
    }

    @Test("a cancelled wait returns at once")
    func cancellation() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        let waiting = Task {
            await withKnownIssue {
                await recorder.next(Greeting.self, within: .seconds(3600))
            }
        }
        waiting.cancel()
        await waiting.value
    }
}

@Suite("Expectations on lifecycle changes")
struct LifecycleExpectationTests {
    @Test("nextChange waits for a change of a kind, with its own cursor")
    func nextChange() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        let queue = DispatchQueue(label: "failing later")
        let token = bus.subscribe(to: Tick.self, on: queue) { (tick: Tick) throws in
            struct Refused: Error {}
            if tick.value == 2 { throw Refused() }
        }
        bus.publish(Tick(value: 1))
        bus.publish(Tick(value: 2))
        let failure = await recorder.nextChange(.handlerFailed)
        #expect(failure?.eventTypeName == "Tick")
        // The event cursor is another: the ticks are still there to read.
        #expect(await recorder.next(Tick.self)?.value == 1)
        token.cancel()
        #expect(await recorder.nextChange(.cancelled)?.eventTypeName == "Tick")
    }

    @Test("a change that never comes fails, naming the changes that did")
    func nextChangeTimesOut() async {
        let bus = EventBus()
        let recorder = EventRecorder(bus: bus)
        let token = bus.subscribe(to: Tick.self) { _ in }
        await withKnownIssue {
            await recorder.nextChange(.reclaimed, within: .milliseconds(50))
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("no reclaimed change came") && text.contains("subscribed")
        }
        _ = token
    }
}
