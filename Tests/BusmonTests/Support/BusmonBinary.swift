import Foundation
import ProcessTestSupport
import TestSupport
import Testing

/// Finds the built `busmon` executable, which SwiftPM puts in the same products folder as the
/// test runner. `BUSMON_BINARY` overrides the search.
enum BusmonBinary {
    static let path: String? = BuiltProduct.path(named: "busmon")

    /// The path, or a test failure explaining how to get one.
    static func require() throws -> String {
        try #require(
            path, "busmon was not built next to the test runner; run `swift build` first or set BUSMON_BINARY"
        )
    }
}
