#if !NATS
    import EventBus
    import EventBusNATS
    import Testing

    /// Built without the trait, the bridge says how to get it instead of failing in some other way.
    @Test func withoutTheTraitTheBridgeSaysHowToEnableIt() {
        #expect {
            try NATSBridge(bus: EventBus(), url: "nats://127.0.0.1:4222", app: "checkout")
        } throws: { error in
            guard let error = error as? NATSBridgeError, error == .builtWithoutNATS else { return false }
            return error.description.contains("built without the NATS trait")
                && error.description.contains("swift build --traits NATS")
        }
    }
#endif
