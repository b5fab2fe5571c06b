import Foundation
import ProcessTestSupport
import TestSupport
import Testing

/// The Python and the curses header that `.ci/check-clang-modules` needs, when both are here.
private let pythonForTheClangCheck: String? =
    FileManager.default.fileExists(atPath: "/usr/include/curses.h")
    ? ["/usr/bin/python3", "/usr/local/bin/python3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    : nil

/// `.ci/check-clang-modules` compiles the curses-facing C code as an Apple SDK and SwiftPM would
/// (curses.h inside a Clang module, public headers imported without the target's defines): it
/// passes this package's CNCurses, and fails the shim that once kept busmon from building on
/// macOS, naming the type the module hid.
@Suite(.enabled(if: pythonForTheClangCheck != nil, "needs python3 and Debian's curses.h (libncurses-dev)"))
struct ClangModuleCheckTests {
    private static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private static let script = packageRoot.appendingPathComponent(".ci/check-clang-modules").path

    private func check(root: String) throws -> ChildResult {
        try ChildProcess.run(
            try #require(pythonForTheClangCheck), [Self.script, root],
            environment: ProcessInfo.processInfo.environment)
    }

    @Test("this package's CNCurses compiles as a Clang module would build it on a Mac")
    func thisPackagePasses() throws {
        let result = try check(root: Self.packageRoot.path)
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(
            result.standardOutput.contains(
                "CNCurses.c, with the target's cSettings (-D_XOPEN_SOURCE_EXTENDED=1)"))
    }

    @Test("a shim that defines _XOPEN_SOURCE_EXTENDED before including curses.h fails: cchar_t is hidden")
    func theOldShimFails() throws {
        let root = TemporaryDirectory()
        let files = [
            "Package.swift":
                "let package = Package(name: \"P\", targets: [.systemLibrary(name: \"CNCurses\")])\n",
            "Sources/CNCurses/module.modulemap":
                "module CNCurses [system] {\n    header \"shim.h\"\n    export *\n}\n",
            "Sources/CNCurses/shim.h": """
            #ifndef _XOPEN_SOURCE_EXTENDED
            #define _XOPEN_SOURCE_EXTENDED 1
            #endif
            #include <wchar.h>
            #if defined(__APPLE__)
            #include <curses.h>
            #else
            #include <ncursesw/curses.h>
            #endif
            static inline int put(int y, int x, wchar_t character) {
                wchar_t text[2] = {character, L'\\0'};
                cchar_t cell;
                if (setcchar(&cell, text, A_NORMAL, 0, NULL) == ERR) return ERR;
                return mvwadd_wch(stdscr, y, x, &cell);
            }

            """,
        ]
        try write(files, into: root)
        let result = try check(root: root.path)
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("unknown type name 'cchar_t'"), "\(result.standardOutput)")
    }

    @Test("a C target whose .c file defines the macro itself, not in cSettings, fails too")
    func aDefineInTheCFileFails() throws {
        let root = TemporaryDirectory()
        try write(
            [
                "Package.swift":
                    "let package = Package(name: \"P\", targets: [.target(name: \"CNCurses\")])\n",
                "Sources/CNCurses/include/CNCurses.h": "int put(int y, int x, unsigned character);\n",
                "Sources/CNCurses/CNCurses.c": """
                #define _XOPEN_SOURCE_EXTENDED 1
                #include <wchar.h>
                #include <curses.h>
                #include "CNCurses.h"
                int put(int y, int x, unsigned character) {
                    wint_t key = 0;
                    wget_wch(stdscr, &key);
                    return (int)key + y + x + (int)character;
                }

                """,
            ], into: root)
        let result = try check(root: root.path)
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("wget_wch"), "\(result.standardOutput)")
    }

    private func write(_ files: [String: String], into root: TemporaryDirectory) throws {
        for (path, text) in files {
            let url = URL(fileURLWithPath: root.file(path))
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
    }
}
