import Foundation
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

/// Finds executables SwiftPM built into the same products folder as the test runner;
/// `<NAME>_BINARY` (such as `BUSMON_BINARY`) overrides the search.
enum BuiltProduct {
    static func path(named name: String) -> String? {
        let fileManager = FileManager.default
        if let override = ProcessInfo.processInfo.environment[name.uppercased() + "_BINARY"] {
            return fileManager.isExecutableFile(atPath: override) ? override : nil
        }
        let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        // On Linux the runner sits in the products folder; elsewhere it may be inside a bundle.
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent(name).path
            if fileManager.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }
}
