#if NATS
    import EventBus
    import EventBusNATS
    import EventBusTesting
    import Foundation
    import NATSClient
    import ProcessTestSupport
    import Testing
    import TestSupport

    /// Without nats-server these tests cannot run; this one says so rather than let the suite
    /// pass with nothing tested.
    @Test func natsServerIsInstalled() {
        if !NATSServer.isInstalled { Issue.record(Comment(rawValue: NATSServer.missingMessage)) }
    }

    /// Options for tests: a server that comes back is found again within a fraction of a second.
    /// These tests count the messages on `eventbus.>`, so the monitoring records (tested in
    /// MonitoringPublisherTests) are off.
    private func quickOptions(
        _ policy: NATSBridgeOptions.StartPolicy = .failIfUnreachable, queueCapacity: Int = 10_000
    ) -> NATSBridgeOptions {
        NATSBridgeOptions(
            whenUnreachable: policy, queueCapacity: queueCapacity, reconnectDelay: 0.02...0.2,
            connectTimeout: 1, monitoring: false)
    }

    /// Two bridged apps on one server, checkout and shipping: each a bus, a recorder of what its
    /// bus delivers, and a bridge.
    private struct TwoBridgedApps {
        let checkoutBus = EventBus(name: "checkout")
        let shippingBus = EventBus(name: "shipping")
        let checkoutEvents: EventRecorder
        let shippingEvents: EventRecorder
        let checkout: NATSBridge
        let shipping: NATSBridge

        init(server: NATSServer) throws {
            checkoutEvents = EventRecorder(bus: checkoutBus)
            shippingEvents = EventRecorder(bus: shippingBus)
            checkout = try NATSBridge(
                bus: checkoutBus, url: server.url, app: "checkout", options: quickOptions())
            shipping = try NATSBridge(
                bus: shippingBus, url: server.url, app: "shipping", options: quickOptions())
        }
    }

    @Suite(.serialized, .enabled(if: NATSServer.isInstalled, Comment(rawValue: NATSServer.missingMessage)))
    struct NATSBridgeTests {
        @Test func forwardsEventsWithTheirSubjectAndEnvelope() throws {
            // Given a bridged bus and a plain client listening to every bridged subject
            let server = try NATSServer()
            let listener = try RawNATSClient(url: server.url)
            _ = try listener.subscribe("eventbus.>")
            let bus = EventBus(name: "checkout-bus")
            let bridge = try NATSBridge(bus: bus, url: server.url, app: "checkout", options: quickOptions())
            #expect(bridge.state == .connected)

            // When the app publishes an Encodable event, then one that is not
            bus.publish(UserLoggedInEvent(userId: "42", userName: "Ada / Lovelace"))
            bus.publish(LocalOnlyEvent(note: "stays here"))
            bus.publish(UserLoggedInEvent(userId: "43", userName: "Grace"))
            #expect(bridge.flush())

            // Then the Encodable ones arrive, in order, on eventbus.<app>.<type>, in the envelope
            let first = try #require(listener.next())
            #expect(first.subject == "eventbus.checkout.UserLoggedInEvent")
            let envelope = try #require(first.json)
            #expect(envelope["kind"] as? String == "event")
            #expect(envelope["typeName"] as? String == "UserLoggedInEvent")
            #expect(envelope["app"] as? String == "checkout")
            #expect(envelope["host"] as? String == NATSBridgeOptions.hostName())
            #expect(envelope["pid"] as? Int == Int(getpid()))
            #expect(envelope["seq"] as? Int == 1)
            #expect(envelope["receivers"] as? Int == 0)
            #expect((envelope["origin"] as? String)?.isEmpty == false)
            #expect((envelope["time"] as? Double).map { abs($0 - Date().timeIntervalSince1970) < 60 } == true)
            // The payload is the tap's text: sorted keys, slashes not escaped.
            let text = String(decoding: first.data, as: UTF8.self)
            #expect(text.hasSuffix(#","payload":{"userId":"42","userName":"Ada / Lovelace"}}"# + "\n"))
            let second = try #require(listener.next())
            // Numbered among those published: the event that stays local takes no number, so a
            // gap a monitor sees is events lost after the bridge.
            #expect(second.json?["seq"] as? Int == 2)
            #expect((second.json?["payload"] as? [String: Any])?["userName"] as? String == "Grace")
            #expect(listener.next(timeout: 0.2) == nil)
            #expect(bridge.statistics.forwarded == 2)
            #expect(bridge.statistics.dropped == 0)
        }

        @Test func aReceivedTypeIsRepublishedOnceAndNotEchoed() throws {
            // Given two apps that both receive UserLoggedInEvent
            let server = try NATSServer()
            let apps = try TwoBridgedApps(server: server)
            let checkoutBus = apps.checkoutBus
            let (checkoutEvents, shippingEvents) = (apps.checkoutEvents, apps.shippingEvents)
            let (checkout, shipping) = (apps.checkout, apps.shipping)
            checkout.receive(UserLoggedInEvent.self)
            shipping.receive(UserLoggedInEvent.self)
            shipping.receive(UserLoggedInEvent.self)  // twice: still one subscription
            #expect(checkout.flush() && shipping.flush())

            // When checkout publishes one
            let event = UserLoggedInEvent(userId: "7", userName: "Ada")
            checkoutBus.publish(event)
            #expect(checkout.flush())

            // Then shipping's bus has it once, and checkout's only its own publish
            #expect(eventually(timeout: 10) { shippingEvents.count(of: UserLoggedInEvent.self) == 1 })
            #expect(shipping.flush() && checkout.flush())
            usleep(200_000)
            #expect(shippingEvents.events(of: UserLoggedInEvent.self) == [event])
            #expect(checkoutEvents.events(of: UserLoggedInEvent.self) == [event])
            #expect(shipping.statistics.received == 1)
            #expect(checkout.statistics.received == 0)
            #expect(checkout.statistics.forwarded == 1)
            // Shipping's bus saw the event, but it came from the network: not sent again.
            #expect(shipping.statistics.forwarded == 0)
        }

        @Test func twoBridgesReceivingEachOthersTypesDoNotLoop() throws {
            // Given two apps that receive each other's events, and a handler in shipping that
            // answers every login with a welcome
            let server = try NATSServer()
            let apps = try TwoBridgedApps(server: server)
            let (checkoutBus, shippingBus) = (apps.checkoutBus, apps.shippingBus)
            let (checkoutEvents, shippingEvents) = (apps.checkoutEvents, apps.shippingEvents)
            let (checkout, shipping) = (apps.checkout, apps.shipping)
            for bridge in [checkout, shipping] {
                bridge.receive(UserLoggedInEvent.self)
                bridge.receive(WelcomeSentEvent.self)
            }
            let answer = shippingBus.subscribe(to: UserLoggedInEvent.self) { event in
                shippingBus.publish(WelcomeSentEvent(userId: event.userId))
            }
            #expect(checkout.flush() && shipping.flush())

            // When checkout publishes three logins
            for index in 0..<3 { checkoutBus.publish(UserLoggedInEvent(userId: "\(index)", userName: "u")) }
            #expect(checkout.flush())

            // Then each crosses once, each welcome (a new event, published in reaction) crosses
            // back once, and nothing goes round again
            #expect(eventually(timeout: 10) { checkoutEvents.count(of: WelcomeSentEvent.self) == 3 })
            for _ in 0..<3 { #expect(checkout.flush() && shipping.flush()) }
            usleep(200_000)
            #expect(checkoutEvents.count(of: UserLoggedInEvent.self) == 3)
            #expect(shippingEvents.count(of: UserLoggedInEvent.self) == 3)
            #expect(shippingEvents.count(of: WelcomeSentEvent.self) == 3)
            #expect(checkoutEvents.count(of: WelcomeSentEvent.self) == 3)
            #expect(checkout.statistics.forwarded == 3)
            #expect(shipping.statistics.forwarded == 3)
            #expect(checkout.statistics.received == 3)
            #expect(shipping.statistics.received == 3)
            answer.cancel()
        }

        @Test func aServerKilledAndRestartedOnTheSamePortIsSurvived() throws {
            // Given two bridged apps
            let server = try NATSServer()
            let apps = try TwoBridgedApps(server: server)
            let (checkoutBus, shippingEvents) = (apps.checkoutBus, apps.shippingEvents)
            let (checkout, shipping) = (apps.checkout, apps.shipping)
            shipping.receive(UserLoggedInEvent.self)
            #expect(shipping.flush())
            checkoutBus.publish(UserLoggedInEvent(userId: "before", userName: "u"))
            #expect(eventually(timeout: 10) { shippingEvents.count(of: UserLoggedInEvent.self) == 1 })

            // When the server dies
            server.stop()
            #expect(
                eventually(timeout: 10) { checkout.state == .reconnecting && shipping.state == .reconnecting }
            )
            checkoutBus.publish(UserLoggedInEvent(userId: "while down", userName: "u"))
            #expect(!checkout.flush(timeout: 0.2))

            // and comes back on the same port
            try server.start()
            #expect(eventually(timeout: 10) { checkout.state == .connected && shipping.state == .connected })
            #expect(checkout.statistics.reconnects == 1)
            #expect(shipping.statistics.reconnects == 1)

            // Then events flow again
            #expect(shipping.flush())
            checkoutBus.publish(UserLoggedInEvent(userId: "after", userName: "u"))
            #expect(checkout.flush())
            #expect(
                eventually(timeout: 10) {
                    shippingEvents.events(of: UserLoggedInEvent.self).contains { $0.userId == "after" }
                })
            // The event published while down was kept and sent once connected.
            #expect(checkout.statistics.forwarded == 3)
            #expect(checkout.statistics.dropped == 0)
        }

        @Test func thePublisherNeverWaitsWhileTheServerIsDown() throws {
            // Given a bridge started while no server listens, with room for 100 events
            let port = try NATSServer.freePort()
            let bus = EventBus(name: "offline")
            let bridge = try NATSBridge(
                bus: bus, url: "nats://127.0.0.1:\(port)", app: "offline",
                options: quickOptions(.keepTrying, queueCapacity: 100))
            #expect(bridge.state == .reconnecting)

            // When the app publishes 20,000 events
            let clock = ContinuousClock()
            let elapsed = clock.measure {
                for index in 0..<20_000 { bus.publish(Wrapper(value: index)) }
            }

            // Then publishing took no waiting (well under a millisecond per event, even in a
            // debug build under a sanitizer), and all but the newest 100 were dropped
            #expect(elapsed < .seconds(5))
            #expect(bridge.statistics.dropped == 19_900)
            #expect(bridge.statistics.forwarded == 0)
            #expect(bridge.state == .reconnecting)
            bridge.close()
            #expect(bridge.state == .closed)
        }

        @Test func theNewestEventsAreSentOnceTheServerComesUp() throws {
            // Given a bridge started before its server, with room for 10 events
            let server = try NATSServer()
            server.stop()
            let bus = EventBus(name: "early")
            let bridge = try NATSBridge(
                bus: bus, url: server.url, app: "early", options: quickOptions(.keepTrying, queueCapacity: 10)
            )
            for index in 0..<50 { bus.publish(Wrapper(value: index)) }
            #expect(bridge.statistics.dropped == 40)

            // When the server starts
            try server.start()

            // Then the bridge connects and sends the newest 10
            #expect(eventually(timeout: 10) { bridge.state == .connected })
            #expect(bridge.flush())
            #expect(bridge.statistics.forwarded == 10)
            #expect(bridge.statistics.reconnects == 0)
        }

        @Test func badInputGetsAClearError() throws {
            let bus = EventBus(name: "bad")
            for url in [
                "", "http://127.0.0.1:4222", "127.0.0.1:4222", "nats://:4222", "nats://host:notaport",
                "nats://host:70000", "nats://host:4222/path",
            ] {
                #expect(throws: NATSBridgeError.self, "\(url)") {
                    try NATSBridge(bus: bus, url: url, app: "x")
                }
                do {
                    _ = try NATSBridge(bus: bus, url: url, app: "x")
                } catch {
                    guard case .invalidURL = error else {
                        Issue.record("\(url): \(error)")
                        continue
                    }
                    #expect(error.description.contains("not a NATS server URL"))
                }
            }
            #expect(throws: NATSBridgeError.invalidAppName) {
                try NATSBridge(bus: bus, url: "nats://127.0.0.1:4222", app: "")
            }

            // Nothing listens on a free port: with the default policy, that is an error.
            let port = try NATSServer.freePort()
            do {
                _ = try NATSBridge(
                    bus: bus, url: "nats://127.0.0.1:\(port)", app: "x", options: quickOptions())
                Issue.record("connected to nothing")
            } catch {
                guard case .unreachable = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(error.description.contains("no NATS server reachable at nats://127.0.0.1:\(port)"))
            }
        }

        @Test func undecodableMessagesAreCountedAndSkipped() throws {
            // Given an app that receives UserLoggedInEvent
            let server = try NATSServer()
            let bus = EventBus(name: "shipping")
            let events = EventRecorder(bus: bus)
            let bridge = try NATSBridge(bus: bus, url: server.url, app: "shipping", options: quickOptions())
            bridge.receive(UserLoggedInEvent.self)
            #expect(bridge.flush())

            // When another client sends garbage, a payload of the wrong shape, then a good one
            let sender = try RawNATSClient(url: server.url)
            sender.publish("eventbus.rogue.UserLoggedInEvent", "not json at all")
            sender.publish("eventbus.rogue.UserLoggedInEvent", #"{"kind":"event","payload":{"userId":42}}"#)
            sender.publish("eventbus.rogue.UserLoggedInEvent", "")
            sender.publish(
                "eventbus.rogue.UserLoggedInEvent",
                #"{"kind":"event","payload":{"userId":"1","userName":"Ada"}}"#)

            // Then the bad ones are counted, and the good one arrives
            #expect(eventually(timeout: 10) { events.count(of: UserLoggedInEvent.self) == 1 })
            #expect(bridge.statistics.undecodable == 3)
            #expect(bridge.statistics.received == 1)
        }

        @Test func namesNATSDoesNotAllowAreEscaped() throws {
            // Given an app whose name holds a dot and a space, and an event type named Wrapper<Int>
            let server = try NATSServer()
            let listener = try RawNATSClient(url: server.url)
            _ = try listener.subscribe("eventbus.>")
            let senderBus = EventBus(name: "sender")
            let receiverBus = EventBus(name: "receiver")
            let received = EventRecorder(bus: receiverBus)
            let sender = try NATSBridge(
                bus: senderBus, url: server.url, app: "my.app v2", options: quickOptions())
            let receiver = try NATSBridge(
                bus: receiverBus, url: server.url, app: "receiver", options: quickOptions())
            receiver.receive(Wrapper<Int>.self)
            #expect(receiver.flush())

            // When it publishes one
            senderBus.publish(Wrapper(value: 5))
            #expect(sender.flush())

            // Then the subject holds each name as one escaped token, and the event crosses
            let message = try #require(listener.next())
            #expect(message.subject == "eventbus.my%2Eapp%20v2.Wrapper<Int%3E")
            #expect(message.json?["app"] as? String == "my.app v2")
            #expect(message.json?["typeName"] as? String == "Wrapper<Int>")
            #expect(eventually(timeout: 10) { received.events(of: Wrapper<Int>.self) == [Wrapper(value: 5)] })
        }

        @Test func anAppNamedWithQuotesAndEscapesConnectsAndKeepsItsName() throws {
            // Given app names that would break, or add fields to, the connection's first line
            let server = try NATSServer()
            let listener = try RawNATSClient(url: server.url)
            _ = try listener.subscribe("eventbus.>")
            for name in [#"a"b"#, #"x","pedantic":true,"name":"y"#, "tab\there\u{1B}[2J\\"] {
                let bus = EventBus(name: "odd")
                // When it connects and publishes
                let bridge = try NATSBridge(bus: bus, url: server.url, app: name, options: quickOptions())
                bus.publish(Wrapper(value: 1))
                #expect(bridge.flush(), "\(name)")
                // Then the event arrives under the app's own name
                let message = try #require(listener.next())
                #expect(message.json?["app"] as? String == name)
                bridge.close()
            }
            #expect(NATSConnection.connectName(#"x","pedantic":true"#) == #"x_,_pedantic_:true"#)
            #expect(NATSConnection.connectName("tab\t\u{1B}é\\") == "tab____")
        }

        @Test func aSubscriptionBehindShedsAllButTheMessagesItKeeps() throws {
            // Given a subscription whose handler is held up at its first message, shedding all
            // but snapshots once more than 10 messages wait
            let server = try NATSServer()
            let connection = try NATSConnection.connect(
                url: server.url, name: "monitor", options: quickOptions(),
                events: ConnectionEvents(onConnected: {}))
            defer { connection.close() }
            let received = LockedValue<[String]>([])
            let entered = DispatchSemaphore(value: 0)
            let held = DispatchSemaphore(value: 0)
            let subscription = try connection.subscribeForBridge(
                "eventbus.>", shedding: NATSShedding(backlog: 10, keptLastTokens: ["_snapshot"])
            ) { bytes in
                let text = String(decoding: bytes, as: UTF8.self)
                if text == "first" {
                    entered.signal()
                    held.wait()
                }
                received.withLock { $0.append(text) }
            }
            defer { subscription.cancel() }
            #expect(connection.flush(timeout: 5))
            // When a flood comes meanwhile, a snapshot in its middle, and a type named alike
            let publisher = try RawNATSClient(url: server.url)
            publisher.publish("eventbus.app.Tick", "first")
            // (the handler holds the first message before the flood comes: a slow machine, or a
            // sanitizer, once let the flood queue up behind it first, and "first" was shed)
            #expect(entered.wait(timeout: .now() + 10) == .success)
            for index in 0..<100 { publisher.publish("eventbus.app.Tick", "event \(index)") }
            publisher.publish("eventbus.app._snapshot", "snapshot")
            publisher.publish("eventbus.app.My_snapshot", "lookalike")
            publisher.publish("eventbus.app.Tick", "last")
            // (each publish waited for the server; a round trip after them puts every message
            // in the subscription's queue, behind the handler held up)
            #expect(connection.flush(timeout: 5))
            held.signal()
            // Then the snapshot arrives, in its place, and most of the flood was shed unread
            #expect(eventually { received.current.contains("snapshot") && received.current.contains("last") })
            let texts = received.current
            #expect(texts.first == "first")
            #expect(texts.count < 40, "\(texts.count) of 104 handed over")
            // in order among what was handed over
            let snapshotPlace = try #require(texts.firstIndex(of: "snapshot"))
            #expect(texts.firstIndex(of: "last").map { $0 > snapshotPlace } == true)
        }

        @Test func aJetStreamStreamIsCreatedOrReused() throws {
            // Given a server with JetStream
            let server = try NATSServer()
            let bus = EventBus(name: "history")
            let stream = NATSStreamOptions(name: "FLEET", maximumAge: 600, maximumBytes: 1 << 20)

            // When a bridge starts with a stream, and another with the same name and other limits
            let bridge = try NATSBridge(
                bus: bus, url: server.url, app: "history", stream: stream, options: quickOptions())
            let other = try NATSBridge(
                bus: EventBus(), url: server.url, app: "other",
                stream: NATSStreamOptions(name: "FLEET", maximumAge: 60, maximumBytes: 1 << 21),
                options: quickOptions())
            other.close()
            bus.publish(UserLoggedInEvent(userId: "1", userName: "Ada"))
            bus.publish(UserLoggedInEvent(userId: "2", userName: "Grace"))
            #expect(bridge.flush())

            // Then the stream exists and keeps what the bridge sends
            let client = try RawNATSClient(url: server.url)
            #expect(eventually(timeout: 10) { client.streamMessageCount("FLEET") == 2 })
            #expect(bridge.lastError == nil)

            // and a name JetStream does not allow is a clear error
            #expect {
                try NATSBridge(
                    bus: bus, url: server.url, app: "x", stream: NATSStreamOptions(name: "bad.name"),
                    options: quickOptions())
            } throws: { error in
                guard let error = error as? NATSBridgeError, case .streamFailed = error else { return false }
                return error.description.contains("bad.name")
            }
        }

        @Test func closeStopsEverythingAndReleaseCloses() throws {
            let server = try NATSServer()
            let listener = try RawNATSClient(url: server.url)
            _ = try listener.subscribe("eventbus.>")
            let bus = EventBus(name: "closing")
            var bridge: NATSBridge? = try NATSBridge(
                bus: bus, url: server.url, app: "closing", options: quickOptions())
            bridge!.receive(UserLoggedInEvent.self)
            bus.publish(UserLoggedInEvent(userId: "last", userName: "u"))

            // Closing sends what was queued, then nothing more
            bridge!.close()
            bridge!.close()
            #expect(bridge!.state == .closed)
            #expect(listener.next()?.json?["seq"] as? Int == 1)
            bus.publish(UserLoggedInEvent(userId: "after", userName: "u"))
            #expect(listener.next(timeout: 0.3) == nil)
            #expect(bus.snapshot().wildcardObservers == 0)

            // Releasing a bridge closes it: its observer leaves the bus
            weak var released: NATSBridge?
            bridge = try NATSBridge(bus: bus, url: server.url, app: "released", options: quickOptions())
            released = bridge
            #expect(bus.snapshot().wildcardObservers == 1)
            bridge = nil
            #expect(released == nil)
            #expect(bus.snapshot().wildcardObservers == 0)
        }
    }
#endif
