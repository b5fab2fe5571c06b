import Foundation

/// Finds executables SwiftPM built into the same products folder as the test runner;
/// `<NAME>_BINARY` (such as `BUSMON_BINARY`) overrides the search.
package enum BuiltProduct {
    package static func path(named name: String) -> String? {
        let fileManager = FileManager.default
        if let override = ProcessInfo.processInfo.environment[name.uppercased() + "_BINARY"] {
            return fileManager.isExecutableFile(atPath: override) ? override : nil
        }
        let runner = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]))
            .resolvingSymlinksInPath()
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
