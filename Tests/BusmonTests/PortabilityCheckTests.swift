// check-portability: quotes Linux-only code as test data
import Foundation
import TestSupport
import Testing

/// The Python that runs the check, when there is one.
private let pythonForTheCheck: String? = [
    "/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3",
]
.first { FileManager.default.isExecutableFile(atPath: $0) }

/// `.ci/check-portability`, which stands in for a Darwin compiler here, fed one small package per
/// mistake that once kept every product from building on macOS and iOS: it must name each one,
/// and pass the same code written for both platforms.
@Suite(.enabled(if: pythonForTheCheck != nil, "python3 is not installed; the check needs it"))
struct PortabilityCheckTests {
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            ".ci/check-portability"
        ).path

    private static let libcImport = """
        #if canImport(Darwin)
            import Darwin
        #elseif canImport(Glibc)
            import Glibc
        #elseif canImport(Musl)
            import Musl
        #endif

        """

    /// Runs the check on a package made of `files` (path to text) and a Package.swift.
    private func check(_ files: [String: String], platforms: Bool = true) throws -> ChildResult {
        let root = TemporaryDirectory()
        var all = files
        all["Package.swift"] =
            platforms
            ? "let package = Package(\n    platforms: [.macOS(.v15)],\n)\n" : "let package = Package()\n"
        for (path, text) in all {
            let url = URL(fileURLWithPath: root.file(path))
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return try ChildProcess.run(
            try #require(pythonForTheCheck), [Self.script, root.path],
            environment: ProcessInfo.processInfo.environment)
    }

    @Test("each Linux-only spelling that broke the Darwin build is named, with its file and line")
    func namesEachMistake() throws {
        let mistakes: [(file: String, code: String, says: String)] = [
            (
                "Sources/A/Socket.swift",
                "let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)",
                "SOCK_CLOEXEC"
            ),
            ("Sources/A/NonBlock.swift", "let f = SOCK_NONBLOCK", "SOCK_NONBLOCK"),
            ("Sources/A/Send.swift", "send(fd, p, n, Int32(MSG_NOSIGNAL))", "MSG_NOSIGNAL"),
            ("Sources/A/Stream.swift", "let t = Int32(SOCK_STREAM.rawValue)", "SOCK_* is an Int32"),
            ("Sources/A/Connect.swift", "_ = Glibc.connect(fd, a, l)", "names glibc's module"),
            (
                "Sources/A/Priority.swift",
                "_ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)", "Darwin takes an Int32"
            ),
            ("Sources/A/Clock.swift", "clock_gettime(CLOCK_REALTIME_COARSE, &t)", "absent on Darwin"),
            ("Sources/A/Signal.swift", "action.__sigaction_handler.sa_handler = h", "__sigaction_u"),
            ("Sources/A/Usage.swift", "getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)", "glibc's type"),
            (
                "Sources/A/Key.swift",
                "let s = pthread_key_create(&key) { p in guard let p else { return } }", "destructor"
            ),
            ("Sources/A/Memory.swift", "let kib = usage.ru_maxrss", "bytes on Darwin"),
            (
                "Sources/A/Proc.swift", #"let s = try String(contentsOfFile: "/proc/self/status")"#,
                "no /proc on Darwin"
            ),
        ]
        for mistake in mistakes {
            let result = try check([mistake.file: Self.libcImport + mistake.code + "\n"])
            #expect(result.status == 1, "\(mistake.file): \(result.standardOutput)")
            #expect(result.standardOutput.contains("\(mistake.file):8:"), "\(result.standardOutput)")
            #expect(result.standardOutput.contains(mistake.says), "\(mistake.file): \(result.standardOutput)")
        }
    }

    @Test("imports: Glibc without Darwin, and libc calls with no import that gives them on Darwin")
    func imports() throws {
        let glibcOnly = try check([
            "Sources/A/Old.swift": "#if canImport(Glibc)\n    import Glibc\n#endif\nlet p = getpid()\n"
        ])
        #expect(glibcOnly.standardOutput.contains("no `canImport(Darwin)` branch"))
        let nothing = try check(["Sources/TerminalUI/Term.swift": "import Dispatch\nlet tty = isatty(1)\n"])
        #expect(nothing.standardOutput.contains("calls the C library with no import that gives it on Darwin"))
        let foundation = try check(["Sources/A/Fine.swift": "import Foundation\nlet p = getpid()\n"])
        #expect(foundation.status == 0, "\(foundation.standardOutput)")
    }

    @Test("the package: no platforms, ncursesw in a module map or a header")
    func package() throws {
        let noPlatforms = try check([:], platforms: false)
        #expect(noPlatforms.standardOutput.contains("no `platforms:`"))
        let modulemap = try check([
            "Sources/CNCurses/module.modulemap":
                "module CNCurses [system] {\n    header \"shim.h\"\n    link \"ncursesw\"\n}\n",
            "Sources/CNCurses/shim.h": "#include <ncursesw/curses.h>\n",
        ])
        #expect(modulemap.standardOutput.contains(#"links "ncursesw""#))
        #expect(modulemap.standardOutput.contains("shim.h:1:"))
    }

    @Test("the same code with both branches side by side passes")
    func bothBranchesPass() throws {
        let result = try check([
            "Sources/A/System.swift": Self.libcImport + """
                enum System {
                    static var streamType: Int32 {
                        #if canImport(Darwin)
                            SOCK_STREAM
                        #else
                            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
                        #endif
                    }
                    static func peakKiB(_ usage: rusage) -> Int {
                        #if canImport(Darwin)
                            Int(usage.ru_maxrss) / 1024
                        #else
                            Int(usage.ru_maxrss)
                        #endif
                    }
                }

                """,
            "Sources/CNCurses/shim.h":
                "#if defined(__APPLE__)\n#include <curses.h>\n#else\n#include <ncursesw/curses.h>\n#endif\n",
        ])
        #expect(result.status == 0, "\(result.standardOutput)")
    }

    @Test("this package passes")
    func thisPackagePasses() throws {
        let result = try ChildProcess.run(
            try #require(pythonForTheCheck), [Self.script], environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 0, "\(result.standardOutput)")
    }
}
