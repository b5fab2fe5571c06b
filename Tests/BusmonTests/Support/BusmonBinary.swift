import Foundation
import Testing

/// Finds the built `busmon` executable, which SwiftPM puts in the same products folder as the
/// test runner. `BUSMON_BINARY` overrides the search.
enum BusmonBinary {
    static let path: String? = {
        let fileManager = FileManager.default
        if let override = ProcessInfo.processInfo.environment["BUSMON_BINARY"] {
            return fileManager.isExecutableFile(atPath: override) ? override : nil
        }
        let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        // On Linux the runner sits in the products folder; elsewhere it may be inside a bundle.
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("busmon").path
            if fileManager.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }()

    /// The path, or a test failure explaining how to get one.
    static func require() throws -> String {
        try #require(
            path, "busmon was not built next to the test runner; run `swift build` first or set BUSMON_BINARY"
        )
    }
}
