import Foundation
import ProcessTestSupport
import TestSupport
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Waits until `condition` holds, for what a child process does in its own time.
///
/// - Throws: When `timeout` seconds pass first, naming `what` was awaited.
func waitFor(_ what: String, timeout: Double = 60, _ condition: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else {
            throw ChildProcess.Failure(description: "timed out waiting for \(what)")
        }
        usleep(20_000)
    }
}

/// The built `simapp`, beside the test runner.
enum SimappBinary {
    /// The path, or a test failure saying it was not built.
    static func require() throws -> String {
        try #require(BuiltProduct.path(named: "simapp"), "simapp was not built next to the test runner")
    }
}

/// Whether this is a sanitizer build, whose memory figures mean nothing and which runs many
/// times slower; CI sets LSAN_OPTIONS for its AddressSanitizer run, and TSAN_OPTIONS or
/// ASAN_OPTIONS would mark one run by hand.
var underSanitizer: Bool {
    let environment = ProcessInfo.processInfo.environment
    return ["LSAN_OPTIONS", "ASAN_OPTIONS", "TSAN_OPTIONS"].contains { environment[$0] != nil }
}
