import BusMonitor
import BusWire
import EventBus
import TestSupport
import Testing

@Suite("Flow graph")
struct FlowGraphTests {
    private func event(
        _ type: String, id: UInt64, cause: UInt64? = nil, file: String = "App/Auth.swift", line: Int = 1,
        app: String? = nil
    ) -> FeedEvent {
        FeedEvent(
            sequence: 0, time: 1, typeName: type, payload: .description("{}"), receivers: 1,
            origin: app.map { FeedOrigin(app: $0, host: "h", pid: 1) },
            trace: PublishTrace(eventID: id, causeID: cause, site: PublishSite(fileID: file, line: line)))
    }

    @Test(
        "names from apps are written without control characters and cut to a length; late deliveries are not failures"
    )
    func hostileNamesAndLateDeliveries() {
        var graph = FlowGraph()
        let evil = "Evil\u{1B}]0;PWNED\u{7}\u{1B}[2J\u{9B}\u{202E}\u{0}\r"
        let long = String(repeating: "x", count: 400_000)
        graph.take(
            SourceBatch(
                events: [event(evil, id: 1), event(long, id: 2, file: long)],
                lifecycle: [
                    FeedLifecycle(
                        time: 1,
                        change: SubscriberLifecycleEvent(
                            kind: .slowDelivery, eventTypeName: evil, observerTypeName: "Screen",
                            observerID: 1))
                ]))
        let dot = graph.dot(title: "app \u{1B}[31m")
        #expect(!dot.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(!dot.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) || $0.value == 0x202E })
        #expect(dot.contains(#"Evil\\u{1B}]0;PWNED\\u{7}"#), "shown as a visible escape")
        // A name with an invisible character in it does not pass for another.
        var lookalike = FlowGraph()
        lookalike.take(SourceBatch(events: [event("Log\u{200B}in\u{FEFF}\u{AD}", id: 1)]))
        let shown = lookalike.dot(title: "app")
        #expect(shown.contains(#"Log\\u{200B}in\\u{FEFF}\\u{AD}"#))
        #expect(!shown.unicodeScalars.contains { [0x200B, 0xFEFF, 0xAD].contains($0.value) })
        #expect(dot.utf8.count < 4_000, "each name cut to \(FlowGraph.maximumNameLength) characters")
        #expect(graph.publishes.keys.allSatisfy { $0.from.count <= FlowGraph.maximumNameLength })
        #expect(graph.troubles.isEmpty, "a late delivery waited; its handler did not fail and was not slow")
    }

    @Test("call sites publish types, classes handle them, and handlers' publishes link types")
    func edges() {
        var graph = FlowGraph()
        graph.take(
            SourceBatch(
                events: [
                    event("Login", id: 1, line: 10),
                    event("Load", id: 2, cause: 1, file: "App/Store.swift", line: 5),
                    event("Login", id: 3, line: 10),
                ],
                lifecycle: [
                    FeedLifecycle(
                        time: 1,
                        change: SubscriberLifecycleEvent(
                            kind: .subscribed, eventTypeName: "Load", observerTypeName: "Cache", observerID: 1
                        )),
                    FeedLifecycle(
                        time: 1,
                        change: SubscriberLifecycleEvent(
                            kind: .handlerFailed, eventTypeName: "Load", observerTypeName: "Cache",
                            observerID: 1,
                            reason: "bad \"quote\"")),
                ],
                snapshot: BusSnapshot(
                    busName: "b", eventTypes: [], wildcardObservers: 0,
                    handlers: [HandlerStatistics(observerTypeName: nil, eventTypeName: "Login", calls: 2)])))
        #expect(graph.publishes[FlowGraph.Edge(from: "Auth.swift:10", to: "Login")] == 2)
        #expect(graph.publishes[FlowGraph.Edge(from: "Store.swift:5", to: "Load")] == 1)
        #expect(graph.triggers == [FlowGraph.Edge(from: "Login", to: "Load"): 1])
        #expect(graph.handles[FlowGraph.Edge(from: "Load", to: "Cache")] == 0)
        #expect(
            graph.handles[FlowGraph.Edge(from: "Login", to: "token")] == 0, "counted from this snapshot on")
        #expect(graph.troubles[FlowGraph.Edge(from: "Load", to: "Cache")] == 1)
        graph.take(
            SourceBatch(
                snapshot: BusSnapshot(
                    busName: "b", eventTypes: [], wildcardObservers: 0,
                    handlers: [HandlerStatistics(observerTypeName: nil, eventTypeName: "Login", calls: 5)])))
        #expect(graph.handles[FlowGraph.Edge(from: "Login", to: "token")] == 3)

        let dot = graph.dot(title: "an \"app\"")
        #expect(dot.hasPrefix("digraph busmon {\n  label=\"an \\\"app\\\"\";"))
        #expect(dot.contains(#""site:Auth.swift:10" -> "type:Login" [label="2"];"#))
        #expect(dot.contains(#""type:Login" -> "type:Load" [label="1", style=dashed, color=red];"#))
        #expect(
            dot.contains(
                #""type:Load" -> "class:Cache" [label="1 failed or slow", color=red, fontcolor=red];"#))
        #expect(dot.hasSuffix("}\n"))
    }

    /// A snapshot whose one handler row says `observer` was called `calls` times for `type`.
    private func snapshot(_ type: String = "Load", observer: String = "Cache", calls: Int) -> FeedRecord {
        .snapshot(
            FeedSnapshot(
                time: 1,
                snapshot: BusSnapshot(
                    busName: "b", eventTypes: [], wildcardObservers: 0,
                    handlers: [
                        HandlerStatistics(observerTypeName: observer, eventTypeName: type, calls: calls)
                    ])))
    }

    @Test("an app restarted behind one socket adds its calls to those of the process before it")
    func aRestartedAppAddsItsCalls() {
        var graph = FlowGraph()
        let edge = FlowGraph.Edge(from: "Load", to: "Cache")
        graph.take(
            SourceBatch(records: [
                .hello(FeedHello(pid: 11, process: "shop", bus: "main", time: 1)), snapshot(calls: 70),
                // The same process attached again: its counters go on.
                .hello(FeedHello(pid: 11, process: "shop", bus: "main", time: 2)), snapshot(calls: 74),
                // Event numbers start over too: 1 is the new process's Login, not the old one's.
                .event(event("Login", id: 1)),
                .hello(FeedHello(pid: 12, process: "shop", bus: "main", time: 3)), snapshot(calls: 5),
                .event(event("Load", id: 2, cause: 1)),
            ]))
        // Counted from each process's first snapshot: 4 calls of the first, none of the second.
        #expect(graph.handles[edge] == 4)
        #expect(graph.triggers.isEmpty, "event 1 of the old process caused nothing in the new one")
        graph.take(SourceBatch(records: [snapshot(calls: 66)]))
        #expect(graph.handles[edge] == 65)
        // And the title, which names the newest process, says the counts are two processes'
        #expect(graph.processesBefore == 1)
        #expect(graph.dot(title: "shop (pid 12)").contains("(the counts of 2 processes in turn, added up)"))
    }

    @Test(
        "events lost on the way are said in the title, and events held at the end are not counted, not 'yet'")
    func lostAndLastEventsAreSaid() {
        var graph = FlowGraph()
        var batch = SourceBatch(records: [
            .hello(FeedHello(pid: 11, process: "shop", bus: "main", time: 1)), snapshot(calls: 7),
            .event(event("Login", id: 1)),
        ])
        batch.droppedEvents = 40
        graph.take(batch)
        #expect(graph.lostEvents == 40)
        let live = graph.dot(title: "shop")
        #expect(live.contains("40 events lost on the way, not counted"), "\(live)")
        #expect(live.contains("1 events after the newest snapshot not counted yet"), "\(live)")
        #expect(!live.contains("processes"))
        let last = graph.dot(title: "shop", final: true)
        #expect(last.contains("1 events after the newest snapshot not counted)"), "\(last)")
    }

    @Test("events count up to their app's newest snapshot, the moment its handlers' calls are of")
    func eventsCountUpToTheNewestSnapshot() {
        func snapshot(calls: Int) -> FeedRecord { self.snapshot("Login", observer: "Screen", calls: calls) }
        let published = FlowGraph.Edge(from: "Auth.swift:10", to: "Login")
        let handled = FlowGraph.Edge(from: "Login", to: "Screen")
        var graph = FlowGraph()
        graph.take(
            SourceBatch(records: [
                .hello(FeedHello(pid: 11, process: "shop", bus: "main", time: 1)), snapshot(calls: 7),
                .event(event("Login", id: 1, line: 10)), .event(event("Load", id: 2, cause: 1)),
                .event(event("Login", id: 3, line: 10)),
            ]))
        #expect(graph.publishes[published] == nil, "two logins after the snapshot that counted no call yet")
        #expect(graph.triggers.isEmpty)
        #expect(graph.handles[handled] == 0)
        #expect(graph.eventsAfterSnapshots == 3)
        #expect(graph.dot(title: "shop").contains("(3 events after the newest snapshot not counted yet)"))

        // 7 calls came before the first snapshot, with events the monitor never saw.
        graph.take(SourceBatch(records: [snapshot(calls: 9), .event(event("Login", id: 4, line: 10))]))
        #expect(graph.publishes[published] == 2, "the logins up to the snapshot that counts their 2 calls")
        #expect(graph.handles[handled] == 2)
        #expect(graph.triggers == [FlowGraph.Edge(from: "Login", to: "Load"): 1])
        #expect(graph.eventsAfterSnapshots == 1)

        // The app went away: no snapshot will come, and its last events count.
        graph.take(
            SourceBatch(records: [.detached(FeedDetached(time: 2, pid: 11, process: "shop", bus: "main"))]))
        #expect(graph.publishes[published] == 3)
        #expect(graph.eventsAfterSnapshots == 0)
        #expect(!graph.dot(title: "shop").contains("not counted yet"))
    }

    @Test("a fleet's app that is gone has its last events counted, and held arrows are bounded over all apps")
    func aGoneAppsEventsCountAndHeldArrowsAreBounded() {
        let origin = FeedOrigin(app: "a", host: "h", pid: 1)
        func appSnapshot() -> FeedRecord {
            .snapshot(
                FeedSnapshot(
                    time: 1, snapshot: BusSnapshot(busName: "b", eventTypes: [], wildcardObservers: 0),
                    origin: origin))
        }
        var graph = FlowGraph()
        let count = FlowGraph.maximumEdges + 5
        graph.take(
            SourceBatch(
                records: [appSnapshot()]
                    + (0..<count).map { .event(event("T", id: UInt64($0 + 1), line: $0 + 1, app: "a")) }))
        #expect(graph.publishes.isEmpty, "held until the app's next snapshot")
        #expect(graph.leftOut == 5, "arrows past the limit are not held, and are counted")
        #expect(graph.eventsAfterSnapshots == count)
        var gone = SourceBatch()
        gone.fleet = [FleetMember(origin: origin, presence: .gone, lastSeen: 1)]
        graph.take(gone)
        #expect(graph.publishes.count == FlowGraph.maximumEdges)
        #expect(graph.eventsAfterSnapshots == 0)
    }

    @Test("causes are looked up in the app that published them")
    func causesStayInTheirApp() {
        var graph = FlowGraph()
        graph.take(
            SourceBatch(events: [
                event("Login", id: 1, app: "a"), event("Tick", id: 1, app: "b"),
                event("Load", id: 2, cause: 1, app: "b"),
            ]))
        #expect(graph.triggers == [FlowGraph.Edge(from: "Tick", to: "Load"): 1])
    }

    @Test("arrows past the graph's limit are left out and the graph says how many")
    func arrowsPastTheLimit() {
        var graph = FlowGraph()
        let count = FlowGraph.maximumEdges + 5
        graph.take(SourceBatch(events: (0..<count).map { event("T", id: UInt64($0 + 1), line: $0 + 1) }))
        #expect(graph.publishes.count == FlowGraph.maximumEdges)
        #expect(graph.leftOut == 5)
        #expect(graph.dot(title: "app").contains("(5 records past the graph's limits left out)"))
    }
}
