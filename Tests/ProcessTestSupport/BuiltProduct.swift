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
    /// its path says nothing; the test bundle's binary (`…PackageTests.xctest/Contents/MacOS/…`)
    /// sits a few folders below the products folder. It is found from this image's own address,
    /// then from `--test-bundle-path` (as SwiftPM's own tests do), then from the `.xctest`
    /// bundles XCTest loaded. A tool that is itself a product finds its own folder the same way.
    package static let productsFolders: [URL] = {
        var starts: [URL] = []
        if let image = System.loadedImagePath() { starts.append(URL(fileURLWithPath: image)) }
        let arguments = CommandLine.arguments
        if let flag = arguments.firstIndex(of: "--test-bundle-path"), flag + 1 < arguments.count {
            starts.append(URL(fileURLWithPath: arguments[flag + 1]))
        }
        starts += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        starts.append(URL(fileURLWithPath: arguments[0]))
        var folders: [URL] = []
        for start in starts {
            // The binary may sit inside a bundle (…xctest/Contents/MacOS): look a few levels up.
            var folder = start.resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<4 {
                if !folders.contains(folder) { folders.append(folder) }
                folder = folder.deletingLastPathComponent()
            }
        }
        return folders
    }()
}
