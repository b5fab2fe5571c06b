#if !NATS
    import Foundation
    import ProcessTestSupport
    import TestSupport
    import Testing

    /// busmon and simapp built without the NATS trait answer a `nats://` argument with how to
    /// get it, and exit 2: never a hang, never a socket error.
    @Suite struct FleetWithoutNATSTests {
        private let environment = ProcessInfo.processInfo.environment

        @Test func busmonSaysHowToEnableNATS() throws {
            let result = try ChildProcess.run(
                try BusmonBinary.require(), ["--attach", "nats://127.0.0.1:4222", "--headless"],
                environment: environment, timeout: 10)
            #expect(result.status == 2)
            #expect(
                result.standardError.contains("swift run --traits NATS busmon"), "\(result.standardError)")
            #expect(result.standardError.contains("apt-get install libnats-dev"), "\(result.standardError)")
            #expect(result.standardOutput.isEmpty)
        }

        @Test func simappSaysHowToEnableNATS() throws {
            let simapp = try #require(
                BuiltProduct.path(named: "simapp"), "simapp was not built next to the tests")
            let result = try ChildProcess.run(
                simapp, ["--nats", "nats://127.0.0.1:4222", "--app", "checkout"], environment: environment,
                timeout: 10)
            #expect(result.status == 2)
            #expect(
                result.standardError.contains("swift run --traits NATS simapp --nats nats://127.0.0.1:4222"),
                "\(result.standardError)")
            #expect(result.standardError.contains("apt-get install libnats-dev"), "\(result.standardError)")
        }

        @Test func simappsAdviceHidesThePassword() throws {
            let simapp = try #require(
                BuiltProduct.path(named: "simapp"), "simapp was not built next to the tests")
            let result = try ChildProcess.run(
                simapp, ["--nats", "nats://alice:s3cretpass@127.0.0.1:4222", "--app", "checkout"],
                environment: environment, timeout: 10)
            #expect(result.status == 2)
            #expect(
                result.standardError.contains("simapp --nats nats://alice:***@127.0.0.1:4222"),
                "\(result.standardError)")
            #expect(!result.standardError.contains("s3cretpass"))
        }
    }
#endif
