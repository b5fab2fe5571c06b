import Foundation

/// A fresh directory under /tmp with a short path (socket paths are limited to 107 bytes),
/// removed with everything in it when the value goes away.
package final class TemporaryDirectory {
    /// The directory's path.
    package let path: String

    /// Creates the directory.
    package init() {
        var template = Array("/tmp/bustest-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The path of `name` inside the directory.
    package func file(_ name: String) -> String { path + "/" + name }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
