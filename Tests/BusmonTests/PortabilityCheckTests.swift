// check-portability: quotes Linux-only code as test data
import Foundation
import ProcessTestSupport
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

    /// Runs the check on a package made of `files` (path to text) and, unless `files` has one, a
    /// Package.swift.
    private func check(_ files: [String: String], platforms: Bool = true) throws -> ChildResult {
        let root = TemporaryDirectory()
        var all = files
        all["Package.swift"] =
            files["Package.swift"]
            ?? (platforms
                ? "let package = Package(\n    platforms: [.macOS(.v15)],\n)\n" : "let package = Package()\n")
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

    @Test("each C type or call that Darwin imports in another shape is named, with its file and line")
    func namesEachDarwinShape() throws {
        let mistakes: [(file: String, code: String, says: String)] = [
            (
                "Tests/ATests/Spawn.swift", "var actions = posix_spawn_file_actions_t()",
                "declare `posix_spawn_file_actions_t? = nil`"
            ),
            (
                "Sources/A/Spawn.swift", "var attributes = posix_spawnattr_t()",
                "declare `posix_spawnattr_t? = nil`"
            ),
            ("Sources/A/Thread.swift", "var thread = pthread_t()", "a non-optional pointer on Darwin"),
            ("Sources/A/Wait.swift", "_ = sem_init(&semaphore, 0, 0)", "unnamed semaphores are unsupported"),
            ("Tests/ATests/Wait.swift", "let r = sem_timedwait(&semaphore, &deadline)", "DispatchSemaphore"),
            ("Examples/Demo/Age.swift", "let seconds = info.st_mtim.tv_sec", "st_mtimespec"),
            ("Sources/A/Cell.swift", "let c = wchar_t(bitPattern: scalar.value)", "truncatingIfNeeded"),
        ]
        for mistake in mistakes {
            let result = try check([mistake.file: Self.libcImport + mistake.code + "\n"])
            #expect(result.status == 1, "\(mistake.file): \(result.standardOutput)")
            #expect(
                result.standardOutput.contains("\(mistake.file):8: shaped differently on Darwin"),
                "\(result.standardOutput)")
            #expect(result.standardOutput.contains(mistake.says), "\(mistake.file): \(result.standardOutput)")
        }
    }

    @Test("what a macOS host lacks is named in Sources, Examples and Tests, in string literals too")
    func namesWhatAMacLacks() throws {
        let mistakes: [(file: String, code: String, says: String)] = [
            ("Tests/ATests/Tmux.swift", #"let environment = ["LC_ALL": "C.UTF-8"]"#, "no C.UTF-8 locale"),
            ("Sources/A/Locale.swift", #"_ = setlocale(LC_ALL, "C.UTF-8")"#, "en_US.UTF-8"),
            (
                "Tests/ATests/Full.swift", #"let writer = try RecordingWriter(path: "/dev/full")"#,
                "no /dev/full"
            ),
            ("Examples/Demo/Record.swift", #"let arguments = ["--record=/dev/full"]"#, "no /dev/full"),
            ("Tests/ATests/Runner.swift", "let runner = Bundle.main.executableURL", "Bundle.allBundles"),
            ("Sources/A/Finder.swift", "let folder = Bundle.main.bundleURL", "swiftpm-testing-helper"),
            (
                "Tests/ATests/Status.swift",
                #"let s = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)"#,
                "no /proc on Darwin"
            ),
            (
                "Tests/ATests/Peak.swift",
                #"let s = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)"#,
                "no /proc on Darwin"
            ),
            ("Tests/ATests/Root.swift", #"let root = URL(fileURLWithPath: "/proc")"#, "no /proc on Darwin"),
        ]
        for mistake in mistakes {
            let result = try check([mistake.file: Self.libcImport + mistake.code + "\n"])
            #expect(result.status == 1, "\(mistake.file): \(result.standardOutput)")
            #expect(result.standardOutput.contains("\(mistake.file):8:"), "\(result.standardOutput)")
            #expect(result.standardOutput.contains(mistake.says), "\(mistake.file): \(result.standardOutput)")
        }
        let script = try check([
            "Tests/ATests/Script.swift":
                "let script = \"\"\"\n    LC_ALL=C.UTF-8 tmux new-session -d\n    \"\"\"\n"
        ])
        #expect(script.standardOutput.contains("Tests/ATests/Script.swift:2: not on a macOS host"))
    }

    @Test("Bundle.main is named everywhere but in an executable target, whose main bundle is the program")
    func bundleMainInExecutables() throws {
        let finds = "import Foundation\nlet folder = Bundle.main.executableURL\n"
        let result = try check([
            "Package.swift": """
            let package = Package(
                platforms: [.macOS(.v15)],
                targets: [
                    .target(name: "Lib"),
                    .executableTarget(name: "tool", dependencies: [.product(name: "P", package: "p")]),
                    .executableTarget(name: "demo", path: "Examples/demo"),
                ]
            )

            """,
            "Sources/tool/main.swift": finds,
            "Examples/demo/main.swift": finds,
            "Sources/Lib/Finder.swift": finds,
        ])
        #expect(result.status == 1, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("Sources/Lib/Finder.swift:2: not on a macOS host"))
        #expect(!result.standardOutput.contains("Sources/tool/"), "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("Examples/demo/"), "\(result.standardOutput)")
    }

    @Test("comments, doc comments, the code in a multi-line literal and Linux-only branches do not count")
    func quotedOrLinuxOnlyDoesNotCount() throws {
        let result = try check([
            "Tests/ATests/Quoted.swift": #"""
            import Foundation

            /// Finds products from `Bundle.main`, in `C.UTF-8`; `pthread_t()` is a pointer on Darwin.
            // Writing to "/dev/full" fails with ENOSPC; "/proc/self/status" has VmHWM.
            let locale = "en_US.UTF-8"  // not "C.UTF-8", nor "/proc/self/status"
            /* sem_init(&s, 0, 0) and st_mtim
               posix_spawnattr_t() */
            let message = "recording to /dev/full stopped: No space left on device"
            let url = URL(string: "https://example.com/proc")
            let fixture = """
                #if defined(__APPLE__)
                #include <curses.h>
                #else
                #include <ncursesw/curses.h>
                #endif
                var actions = posix_spawn_file_actions_t()
                """
            #if os(Linux) && DEBUG
                let peak = try? String(contentsOfFile: "/proc/\(getpid())/status", encoding: .utf8)
                var attributes = posix_spawnattr_t()
                let environment = ["LC_ALL": "C.UTF-8"]
                let path = "/dev/full"
                let runner = Bundle.main.executableURL
            #endif

            """#,
            "Sources/CNCurses/CNCurses.c": """
            #if defined(__linux__) && __has_include(<ncursesw/curses.h>)
            #include <ncursesw/curses.h>
            #elif __has_include(<curses.h>)
            #include <curses.h>
            #endif

            """,
        ])
        #expect(result.status == 0, "\(result.standardOutput)")
        let either = try check([
            "Sources/CNCurses/CNCurses.c": """
            #if defined(__linux__) && __has_include(<ncursesw/curses.h>) || defined(NCURSESW)
            #include <ncursesw/curses.h>
            #endif

            """
        ])
        #expect(
            either.standardOutput.contains("CNCurses.c:2: Linux-only spelling"), "\(either.standardOutput)")
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
                    static func modified(_ info: stat) -> timespec {
                        #if canImport(Darwin)
                            info.st_mtimespec
                        #else
                            info.st_mtim
                        #endif
                    }
                    static func cell(_ scalar: Unicode.Scalar) -> wchar_t {
                        wchar_t(truncatingIfNeeded: scalar.value)
                    }
                    static let done = DispatchSemaphore(value: 0)
                }

                """,
            "Tests/ATests/Spawn.swift": Self.libcImport + """
                #if canImport(Darwin)
                    var actions: posix_spawn_file_actions_t? = nil
                    var attributes: posix_spawnattr_t? = nil
                    var thread: pthread_t? = nil
                #else
                    var actions = posix_spawn_file_actions_t()
                    var attributes = posix_spawnattr_t()
                    var thread = pthread_t()
                #endif

                """,
            "Tests/ATests/Host.swift": #"""
            import Foundation

            let environment = ["LC_ALL": "en_US.UTF-8"]
            let products = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL
            let source = URL(fileURLWithPath: #filePath)
            #if os(Linux)
                let full = "/dev/full"
                let status = try? String(contentsOfFile: "/proc/\(getpid())/status", encoding: .utf8)
                let locale = "C.UTF-8"
            #endif

            """#,
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
