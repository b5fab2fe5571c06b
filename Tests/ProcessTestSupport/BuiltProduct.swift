import Foundation

/// Finds executables SwiftPM built into the same products folder as the tests;
/// `<NAME>_BINARY` (such as `BUSMON_BINARY`) overrides the search.
package enum BuiltProduct {
    /// The path of the executable `name` beside the tests, or `nil` when it was not built.
    package static func path(named name: String) -> String? {
        let fileManager = FileManager.default
        if let override = ProcessInfo.processInfo.environment[name.uppercased() + "_BINARY"] {
            return fileManager.isExecutableFile(atPath: override) ? override : nil
        }
        for folder in productsFolders {
            let candidate = folder.appendingPathComponent(name).path
            if fileManager.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The folders SwiftPM put this build's products in (such as `.build/debug`), best first.
    ///
    /// On Linux the test runner is the test executable itself, in that folder. On macOS the
    /// runner is the toolchain's (`xctest`, or `swiftpm-testing-helper` for Swift Testing), so
    /// its path says nothing; the test bundle it loaded (`…PackageTests.xctest`) sits in the
    /// folder, as SwiftPM's own generated test code finds it. A benchmark or tool that is itself
    /// a product finds its folder from its own path.
    package static var productsFolders: [URL] {
        var starts: [URL] = Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        #if os(Linux)
            // /proc/self/exe: the runner's own path, whatever the working folder is now.
            if let executable = Bundle.main.executableURL { starts.append(executable) }
        #endif
        starts.append(URL(fileURLWithPath: CommandLine.arguments[0]))
        var folders: [URL] = []
        for start in starts {
            // The runner may sit inside a bundle (…xctest/Contents/MacOS): look a few levels up.
            var folder = start.resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<4 {
                if !folders.contains(folder) { folders.append(folder) }
                folder = folder.deletingLastPathComponent()
            }
        }
        return folders
    }
}
