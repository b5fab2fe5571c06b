#if NATS
    import EventBus
    import EventBusNATS
    import Foundation
    import ProcessTestSupport
    import Testing
    import TestSupport

    /// What a bridge publishes about its app for monitors: `_snapshot`, `_lifecycle`, `_bridge`.
    @Suite(.serialized, .enabled(if: NATSServer.isInstalled, Comment(rawValue: NATSServer.missingMessage)))
    struct MonitoringPublisherTests {
        private func options(monitoring: Bool = true) -> NATSBridgeOptions {
            NATSBridgeOptions(
                reconnectDelay: 0.02...0.2, connectTimeout: 1, host: "test-host", monitoring: monitoring,
                monitoringInterval: 0.1)
        }

        /// The messages of subscription `index` until `timeout` passes with none.
        private func drain(
            _ client: RawNATSClient, _ index: Int = 0, timeout: Double
        ) -> [RawNATSClient.Message] {
            var messages: [RawNATSClient.Message] = []
            while let message = client.next(index, timeout: timeout) { messages.append(message) }
            return messages
        }

        @Test func snapshotsLifecycleAndStateGoOutWithTheOrigin() throws {
            // Given a monitor listening to one app's monitoring subjects
            let server = try NATSServer()
            let listener = try RawNATSClient(url: server.url)
            _ = try listener.subscribe("eventbus.checkout._snapshot")
            _ = try listener.subscribe("eventbus.checkout._lifecycle")
            _ = try listener.subscribe("eventbus.checkout._bridge")
            let bus = EventBus(name: "checkout-bus")
            let bridge = try NATSBridge(bus: bus, url: server.url, app: "checkout", options: options())

            // When the app subscribes and publishes
            let token = bus.subscribe(to: UserLoggedInEvent.self, on: nil) { _ in }
            bus.publish(UserLoggedInEvent(userId: "1", userName: "Ada"))
            bus.publish(UserLoggedInEvent(userId: "2", userName: "Grace"))

            // Then its lifecycle change arrives with its origin,
            let change = try #require(listener.next(1)?.json)
            #expect(change["kind"] as? String == "lifecycle")
            #expect(change["change"] as? String == "subscribed")
            #expect(change["eventTypeName"] as? String == "UserLoggedInEvent")
            #expect(change["app"] as? String == "checkout")
            #expect(change["host"] as? String == "test-host")
            #expect(change["pid"] as? Int == Int(getpid()))
            // snapshots come with the bus's counts,
            #expect(
                eventually(timeout: 10) {
                    guard let snapshot = listener.next(0, timeout: 1)?.json,
                        let types = snapshot["eventTypes"] as? [[String: Any]]
                    else { return false }
                    return snapshot["app"] as? String == "checkout"
                        && snapshot["busName"] as? String == "checkout-bus"
                        && types.contains {
                            $0["typeName"] as? String == "UserLoggedInEvent" && $0["published"] as? Int == 2
                        }
                })
            // and the bridge's own state and counts.
            let report = try #require(listener.next(2)?.json)
            #expect(report["kind"] as? String == "bridge")
            #expect(report["state"] as? String == "connected")
            #expect(report["app"] as? String == "checkout")

            // When the bridge closes, its last snapshot and a `closed` record follow.
            bridge.close()
            let lastReport = drain(listener, 2, timeout: 0.5).last?.json
            #expect(lastReport?["state"] as? String == "closed")
            #expect(lastReport?["forwarded"] as? Int == 2)
            let lastSnapshot = drain(listener, 0, timeout: 0.2).last?.json
            let types = lastSnapshot?["eventTypes"] as? [[String: Any]]
            #expect(
                types?.first { $0["typeName"] as? String == "UserLoggedInEvent" }?["published"] as? Int == 2)
            withExtendedLifetime(token) {}
        }

        @Test func monitoringCanBeTurnedOff() throws {
            let server = try NATSServer()
            let listener = try RawNATSClient(url: server.url)
            _ = try listener.subscribe("eventbus.quiet.>")
            let bus = EventBus()
            let bridge = try NATSBridge(
                bus: bus, url: server.url, app: "quiet", options: options(monitoring: false))
            bus.publish(UserLoggedInEvent(userId: "1", userName: "Ada"))
            #expect(bridge.flush())
            let subjects = drain(listener, timeout: 0.5).map(\.subject)
            #expect(subjects == ["eventbus.quiet.UserLoggedInEvent"])
            bridge.close()
        }
    }
#endif
