import Dispatch
import EventBus
import EventBusTesting
import TestSupport
import Testing

@Suite("Causes and call sites")
struct CauseAndSiteTests {
    @Test("a record names its publish call's file and line; the article's spelling too")
    func recordsCarryTheCallSite() {
        let bus = EventBus()
        let records = Journal<DeliveryRecord>()
        let watch = bus.observeDeliveries { records.append($0) }
        let line = #line + 1
        bus.publish(Tick(value: 1))
        bus.publish(event: Tick(value: 2))
        let sites = records.entries.map(\.site)
        #expect(
            sites.map { $0?.description } == [
                "CauseAndSiteTests.swift:\(line)", "CauseAndSiteTests.swift:\(line + 1)",
            ])
        #expect(sites.first??.fileID == "EventBusTests/CauseAndSiteTests.swift")
        #expect(sites.first??.line == line)
        _ = watch
    }

    @Test("event numbers are unique and increase in publish order; a top-level publish has no cause")
    func numbersIncrease() {
        let bus = EventBus()
        let records = Journal<DeliveryRecord>()
        let watch = bus.observeDeliveries { records.append($0) }
        for value in 0..<5 { bus.publish(Tick(value: value)) }
        let ids = records.entries.map(\.eventID)
        #expect(ids.count == 5)
        #expect(ids == ids.sorted() && Set(ids).count == 5 && ids.allSatisfy { $0 > 0 })
        #expect(records.entries.allSatisfy { $0.causeID == nil })
        _ = watch
    }

    @Test("an event published by a handler names the handled event as its cause, down a chain")
    func causesFollowTheChain() {
        let bus = EventBus()
        let records = Journal<DeliveryRecord>()
        let watch = bus.observeDeliveries { records.append($0) }
        let relay = bus.subscribe(to: Tick.self) { tick in
            if tick.value < 3 { bus.publish(Tick(value: tick.value + 1)) }
        }
        let loads = bus.subscribe(to: Tick.self) { tick in
            if tick.value == 0 { bus.publish(DataLoadedEvent(data: ["from 0"])) }
        }
        bus.publish(Tick(value: 0))
        let byValue = Dictionary(
            records.entries.compactMap { record in (record.event as? Tick).map { ($0.value, record) } },
            uniquingKeysWith: { first, _ in first })
        #expect(byValue[0]?.causeID == nil)
        for value in 1...3 {
            #expect(byValue[value]?.causeID == byValue[value - 1]?.eventID)
            #expect((byValue[value]?.eventID ?? 0) > (byValue[value - 1]?.eventID ?? .max))
        }
        let load = records.entries.first { $0.event is DataLoadedEvent }
        #expect(load?.causeID == byValue[0]?.eventID)
        _ = (watch, relay, loads)
    }

    @Test("an event published by a queued handler names the event that handler was given")
    func causeCrossesAQueue() async {
        let bus = EventBus()
        let records = Journal<DeliveryRecord>()
        let watch = bus.observeDeliveries { records.append($0) }
        // Subscribed after the watch, so the watch has the record when the recorder has the event.
        let recorder = EventRecorder(bus: bus)
        let queue = DispatchQueue(label: "cause test")
        let relay = bus.subscribe(to: Tick.self, on: queue) { tick in
            bus.publish(DataLoadedEvent(data: ["after \(tick.value)"]))
        }
        bus.publish(Tick(value: 7))
        await recorder.next(DataLoadedEvent.self)
        let tick = records.entries.first { $0.event is Tick }
        let load = records.entries.first { $0.event is DataLoadedEvent }
        #expect(load?.causeID != nil)
        #expect(load?.causeID == tick?.eventID)
        _ = (watch, relay)
    }

    @Test("an event published by a main-actor handler names its cause")
    @MainActor
    func causeCrossesTheMainActor() async {
        let bus = EventBus()
        let records = Journal<DeliveryRecord>()
        let watch = bus.observeDeliveries { records.append($0) }
        let relay = bus.subscribe(to: Tick.self) { @MainActor tick in
            bus.publish(DataLoadedEvent(data: ["after \(tick.value)"]))
        }
        // Published from another thread: the handler waits for the main actor.
        await Task.detached { bus.publish(Tick(value: 3)) }.value
        while records.count < 2 { await Task.yield() }
        let tick = records.entries.first { $0.event is Tick }
        let load = records.entries.first { $0.event is DataLoadedEvent }
        #expect(load?.causeID == tick?.eventID)
        _ = (watch, relay)
    }

    @Test("a site from text reads like one from a call")
    func siteFromText() {
        let site = PublishSite(fileID: "App/LoginService.swift", line: 42)
        #expect(site.description == "LoginService.swift:42")
        #expect(site.fileName == "LoginService.swift")
        #expect(site == PublishSite(fileID: "App/LoginService.swift", line: 42))
        #expect(PublishSite(fileID: "Plain.swift", line: 1).description == "Plain.swift:1")
    }
}
