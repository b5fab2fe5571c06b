import Dispatch
import EventBus
import EventBusTesting
import TestSupport
import Testing

struct Ping: Event { let hop: Int }
struct Pong: Event { let hop: Int }

@Suite("Cascade limit")
struct CascadeLimitTests {
    @Test("two handlers that publish each other's event: publish returns and the loop is named")
    func pingPongIsStopped() {
        let bus = EventBus(cascadeLimit: 100)
        let changes = Journal<SubscriberLifecycleEvent>()
        let watch = bus.observeLifecycle { changes.append($0) }
        let delivered = Journal<Int>()
        let pingLine = #line + 2
        let pings = bus.subscribe(to: Ping.self) { ping in
            bus.publish(Pong(hop: ping.hop + 1))
        }
        let pongLine = #line + 3
        let pongs = bus.subscribe(to: Pong.self) { pong in
            delivered.append(pong.hop)
            bus.publish(Ping(hop: pong.hop + 1))
        }

        bus.publish(Ping(hop: 0))

        let stops = changes.entries.filter { $0.kind == .cascadeStopped }
        #expect(stops.count == 1)
        let stop = stops.first
        #expect(stop?.count == 100)
        let reason = stop?.reason ?? ""
        // Told from the type the cascade started with.
        #expect(reason.hasPrefix("Ping → Pong → Ping ("), "\(reason)")
        #expect(reason.contains("CascadeLimitTests.swift:\(pingLine)"), "\(reason)")
        #expect(reason.contains("CascadeLimitTests.swift:\(pongLine)"), "\(reason)")
        #expect(reason.contains("100 events"))
        #expect(stop?.description.hasPrefix("cascade stopped: ") == true)
        // The root Ping and 100 events it set off: 50 Pongs.
        #expect(delivered.count == 50)

        // The bus goes on serving other publishes, each with a budget of its own.
        let later = Journal<Int>()
        let ticks = bus.subscribe(to: Tick.self) { later.append($0.value) }
        bus.publish(Tick(value: 1))
        #expect(later.entries == [1])
        bus.publish(Ping(hop: 0))
        #expect(changes.entries.filter { $0.kind == .cascadeStopped }.count == 2)
        _ = (watch, pings, pongs, ticks)
    }

    @Test("a loop of three types is told from the type that started it")
    func threeTypeLoop() {
        struct Saved: Event {}
        let bus = EventBus(cascadeLimit: 60)
        let stopped = Journal<SubscriberLifecycleEvent>()
        let watch = bus.observeLifecycle { if $0.kind == .cascadeStopped { stopped.append($0) } }
        let tokens = [
            bus.subscribe(to: Tick.self) { _ in bus.publish(Ping(hop: 0)) },
            bus.subscribe(to: Ping.self) { _ in bus.publish(Pong(hop: 0)) },
            bus.subscribe(to: Pong.self) { _ in bus.publish(Saved()) },
            bus.subscribe(to: Saved.self) { _ in bus.publish(Ping(hop: 1)) },
        ]
        bus.publish(Tick(value: 0))
        // The cascade started with a Tick, which is not in the loop: the loop is told as found.
        let reason = stopped.entries.first?.reason ?? ""
        let loops = [
            "Ping → Pong → Saved → Ping", "Pong → Saved → Ping → Pong", "Saved → Ping → Pong → Saved",
        ]
        #expect(loops.contains { reason.hasPrefix($0 + " (") }, "\(reason)")
        bus.publish(Ping(hop: 0))
        #expect(stopped.entries.last?.reason?.hasPrefix("Ping → Pong → Saved → Ping (") == true)
        _ = (watch, tokens)
    }

    @Test("a fan-out loop stays bounded: with two events per handler, publish still returns")
    func fanOutIsBounded() {
        let bus = EventBus(cascadeLimit: 10_000)
        let stopped = Journal<SubscriberLifecycleEvent>()
        let watch = bus.observeLifecycle { if $0.kind == .cascadeStopped { stopped.append($0) } }
        let pings = bus.subscribe(to: Ping.self) { ping in
            bus.publish(Pong(hop: ping.hop + 1))
            bus.publish(Pong(hop: ping.hop + 1))
        }
        let pongs = bus.subscribe(to: Pong.self) { pong in bus.publish(Ping(hop: pong.hop + 1)) }
        bus.publish(Ping(hop: 0))
        #expect(stopped.count == 1)
        #expect(stopped.entries.first?.count == 10_000)
        _ = (watch, pings, pongs)
    }

    @Test("the default limit stops a loop on EventBus.shared's settings; nil turns it off")
    func defaultsAndOff() {
        #expect(EventBus.shared.cascadeLimit == 10_000)
        #expect(EventBus.shared.slowHandlerThreshold == .milliseconds(16))
        #expect(EventBus().cascadeLimit == 10_000)

        // With no limit, a long but finite cascade runs to its end.
        let bus = EventBus(cascadeLimit: nil)
        let last = Journal<Int>()
        let relay = bus.subscribe(to: Tick.self) { tick in
            if tick.value < 20_000 {
                bus.publish(Tick(value: tick.value + 1))
            } else {
                last.append(tick.value)
            }
        }
        bus.publish(Tick(value: 0))
        #expect(last.entries == [20_000])
        _ = relay
    }

    @Test("a cascade under the limit is delivered whole")
    func smallCascadeUntouched() {
        let bus = EventBus(cascadeLimit: 10)
        let seen = Journal<Int>()
        let stopped = Journal<SubscriberLifecycleEvent>()
        let watch = bus.observeLifecycle { if $0.kind == .cascadeStopped { stopped.append($0) } }
        let relay = bus.subscribe(to: Tick.self) { tick in
            seen.append(tick.value)
            if tick.value < 10 { bus.publish(Tick(value: tick.value + 1)) }
        }
        bus.publish(Tick(value: 0))
        #expect(seen.entries == Array(0...10))
        #expect(stopped.entries.isEmpty)
        _ = (watch, relay)
    }

    @Test("a loop through a queue is counted as one cascade and stopped")
    func loopThroughAQueue() async {
        let bus = EventBus(cascadeLimit: 200)
        let stopped = Journal<SubscriberLifecycleEvent>()
        let watch = bus.observeLifecycle { if $0.kind == .cascadeStopped { stopped.append($0) } }
        let recorder = EventRecorder(bus: bus)
        let queue = DispatchQueue(label: "loop")
        let pongsSeen = Journal<Int>()
        let pings = bus.subscribe(to: Ping.self, on: queue) { ping in bus.publish(Pong(hop: ping.hop + 1)) }
        let pongs = bus.subscribe(to: Pong.self) { pong in
            pongsSeen.append(pong.hop)
            bus.publish(Ping(hop: pong.hop + 1))
        }
        bus.publish(Ping(hop: 0))
        await recorder.nextChange(.cascadeStopped)
        #expect(stopped.count == 1)
        // Nothing more of that cascade comes once it is stopped.
        queue.sync {}
        let settled = pongsSeen.count
        queue.sync {}
        #expect(pongsSeen.count == settled)
        #expect(settled <= 100)
        #expect(stopped.entries.first?.reason?.contains("Ping") == true)
        _ = (watch, pings, pongs)
    }
}
