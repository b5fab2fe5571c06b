#if NATS
    import BusMonitor
    @testable import BusMonitorNATS
    import BusWire
    import EventBus
    import EventBusNATS
    import Foundation
    import NATSClient
    import ProcessTestSupport
    import Testing
    import TestSupport

    private struct OrderPlaced: Event, Codable {
        var id: Int
    }

    /// The fleet source in this process, against a bridge in this process: the threads of both
    /// sides under one roof, where ThreadSanitizer sees them.
    @Suite(.serialized, .enabled(if: NATSServer.isInstalled, Comment(rawValue: NATSServer.missingMessage)))
    struct NATSFleetSourceTests {
        private let options = NATSBridgeOptions(
            reconnectDelay: 0.02...0.2, connectTimeout: 1, host: "here", monitoringInterval: 0.1)

        @Test func eventsSnapshotsAndPresenceOfABridgedBus() throws {
            let server = try NATSServer()
            let source = try NATSFleetSource(url: server.url)
            defer { source.close() }
            #expect(eventually(timeout: 10) { source.hasConnected })
            let bus = EventBus(name: "orders")
            let bridge = try NATSBridge(bus: bus, url: server.url, app: "orders", options: options)
            // The source's subscription reaches the server on its own connection, in its own
            // time: events published before it would pass unseen. The bridge's monitoring
            // records, sent every 0.1 s, show when it has.
            let joined = drainUntil(source, timeout: 20) { batches in
                batches.compactMap(\.fleet).last?.isEmpty == false
            }
            for id in 1...20 { bus.publish(OrderPlaced(id: id)) }
            #expect(bridge.flush())

            // The events, the snapshot and the bridge's report arrive on their own schedules.
            let batches =
                joined
                + drainUntil(source, timeout: 20) { later in
                    let batches = joined + later
                    return batches.flatMap(\.events).count == 20
                        && batches.compactMap(\.snapshot).last?["OrderPlaced"]?.published == 20
                        && batches.compactMap(\.fleet).last?.first?.bridgeState != nil
                }
            let events = batches.flatMap(\.events)
            #expect(events.count == 20)
            #expect(events.allSatisfy { $0.origin?.app == "orders" && $0.origin?.host == "here" })
            #expect(batches.compactMap(\.snapshot).last?.busName == "orders")
            #expect(batches.compactMap(\.newestSnapshot).last?.origin?.app == "orders")
            #expect(batches.compactMap(\.fleet).last?.first?.bridgeState == "connected")
            #expect(
                batches.flatMap(\.notices).map(\.text).contains {
                    $0.hasPrefix("orders@here:") && $0.hasSuffix("joined")
                })

            bridge.close()
            let after = drainUntil(source, timeout: 20) { batches in
                batches.compactMap(\.fleet).last?.first?.presence == .gone
            }
            #expect(after.flatMap(\.notices).contains { $0.text.hasSuffix("left (its bridge closed)") })
        }

        @Test func messagesBusmonCannotReadOrPlaceAreSaidNotOnlyCounted() throws {
            let server = try NATSServer()
            let source = try NATSFleetSource(url: server.url)
            defer { source.close() }
            #expect(eventually(timeout: 10) { source.hasConnected })
            let stranger = try NATSConnection.connect(
                url: server.url, name: "stranger", options: options, events: ConnectionEvents(onConnected: {})
            )
            defer { stranger.close() }
            // busmon's subscription reaches the server in its own time: a stranger says its
            // junk until busmon has heard some.
            let subject = Array("eventbus.x.y".utf8CString)
            let batches = drainUntil(source, timeout: 20) { batches in
                for line in [
                    "junk", #"{"kind":"event","seq":1,"time":1,"typeName":"T","receivers":0,"payload":"x"}"#,
                ] {
                    let bytes = Array(line.utf8)
                    _ = subject.withUnsafeBufferPointer { subject in
                        bytes.withUnsafeBufferPointer {
                            stranger.publish(subject: subject.baseAddress!, bytes: $0)
                        }
                    }
                }
                _ = stranger.flush(timeout: 2)
                return batches.flatMap(\.notices).contains { $0.text.contains("naming no app") }
            }
            let notice = try #require(batches.flatMap(\.notices).first { $0.text.contains("naming no app") })
            #expect(notice.isWarning)
            #expect(notice.text.hasPrefix("skipped "), "\(notice.text)")
            #expect(
                notice.text.contains("on eventbus.> that busmon could not read or place ("), "\(notice.text)")
        }

        @Test func sinceReplaysWhatTheStreamKept() throws {
            let server = try NATSServer()
            let bus = EventBus(name: "orders")
            let bridge = try NATSBridge(
                bus: bus, url: server.url, app: "history", stream: NATSStreamOptions(name: "FLEETTEST"),
                options: options)
            for id in 1...30 { bus.publish(OrderPlaced(id: id)) }
            #expect(bridge.flush())
            bridge.close()

            let source = try NATSFleetSource(url: server.url, since: 600)
            defer { source.close() }
            let batches = drainUntil(source, timeout: 20) { batches in
                batches.flatMap(\.notices).contains { $0.text.contains("from history; now live") }
            }
            #expect(batches.flatMap(\.events).filter { $0.typeName == "OrderPlaced" }.count == 30)
            #expect(batches.compactMap(\.fleet).last?.first?.presence == .gone, "its bridge closed")
        }
    }

    extension NATSFleetSourceTests {
        /// A server that restarts during a replay forgets its consumer: the replay stalled, and
        /// busmon said it had replayed the history and gone live, a third of it shown. It now
        /// goes on after the last message replayed: every event of the stream arrives once.
        @Test func aReplayGoesOnAfterTheServerRestarts() throws {
            let server = try NATSServer()
            // The bridge makes the stream; the history is written straight to the server, far
            // quicker than a bus publishes it.
            let bridge = try NATSBridge(
                bus: EventBus(name: "orders"), url: server.url, app: "history",
                stream: NATSStreamOptions(name: "RESTARTTEST"), options: options)
            #expect(bridge.flush())
            bridge.close()
            let writer = try NATSConnection.connect(
                url: server.url, name: "writer", options: options, events: ConnectionEvents(onConnected: {}))
            let subject = Array("eventbus.raw.Tick".utf8CString)
            let count = 200_000
            for number in 1...count {
                let line = Array(
                    (#"{"kind":"event","seq":\#(number),"time":\#(WallClock.now()),"typeName":"Tick","#
                        + #""receivers":0,"app":"raw","host":"h","pid":7,"payload":"x"}"#).utf8)
                _ = subject.withUnsafeBufferPointer { subject in
                    line.withUnsafeBufferPointer { writer.publish(subject: subject.baseAddress!, bytes: $0) }
                }
            }
            #expect(writer.flush(timeout: 30))
            writer.close()

            let source = try NATSFleetSource(url: server.url, since: 3_600)
            defer { source.close() }
            var events = 0
            var notices: [String] = []
            var restarted = false
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(120)
            while clock.now < deadline, !notices.contains(where: { $0.hasPrefix("replayed ") }) {
                let batch = source.drain()
                events += batch.events.count { $0.typeName == "Tick" }
                notices += batch.notices.map(\.text)
                // Early in the replay, while most of the history is still on the server.
                if !restarted, events >= 10_000 {
                    server.stop()
                    try server.start()
                    restarted = true
                }
                Thread.sleep(forTimeInterval: 0.005)
            }
            #expect(restarted)
            #expect(events == count, "\(notices)")
            #expect(
                notices.filter { $0.hasPrefix("replayed ") }.allSatisfy { $0.hasSuffix("now live") },
                "\(notices)")
        }
    }

    @Suite("A fleet's history replay holding live messages")
    struct FleetFeedHoldTests {
        @Test("what the full hold turns away is counted by its kind, and an event not at all (its gap is)")
        func aFullHoldCountsWhatItDropsByKind() {
            let ended = LockedValue<FleetMessageCounts?>(nil)
            let core = FleetFeedCore(
                replaying: true, deliver: { _, _ in },
                replayEnded: { _, drops in ended.withLock { $0 = drops } })
            func live(_ line: String) {
                Array(line.utf8).withUnsafeBytes { core.live($0) }
            }
            for number in 0..<NATSFleetFeed.heldCapacity {
                live(#"{"kind":"event","seq":\#(number)}"#)
            }
            live(#"{"kind":"lifecycle","change":"subscribed"}"#)
            live(#"{"kind":"call","seq":1}"#)
            live(#"{"kind":"call","seq":2}"#)
            live(#"{"kind":"snapshot","types":[]}"#)
            live(#"{"kind":"bridge","state":"closed"}"#)
            live(#"{"kind":"event","seq":-1}"#)

            var expected = FleetMessageCounts()
            expected[.lifecycle] = 1
            expected[.call] = 2
            expected[.report] = 2
            #expect(core.heldDrops == expected)
            core.finish(.finished(messages: 0))
            #expect(ended.withLock { $0 } == expected)
        }

        @Test("what the subscription sheds unread is counted by what it begins as")
        func shedMessagesAreCountedByKind() {
            let core = FleetFeedCore(replaying: false, deliver: { _, _ in }, replayEnded: { _, _ in })
            for line in [
                #"{"kind":"event","seq":1}"#, #"{"kind":"event","seq":2}"#, #"{"kind":"call","seq":1}"#,
                #"{"kind":"calls"}"#, "junk",
            ] {
                Array(line.utf8).withUnsafeBytes { core.shed($0) }
            }
            #expect(core.shedCounts[.event] == 2)
            #expect(core.shedCounts[.call] == 1)
            #expect(core.shedCounts[.other] == 2)
            #expect(core.shedCounts.total == 5)
        }
    }
#endif
