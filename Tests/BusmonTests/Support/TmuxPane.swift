import Foundation
import ProcessTestSupport
import TestSupport
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A program running in a pane of a private tmux server, driven the way a person would: keys
/// in, screen text out.
///
/// Each pane gets its own server on a socket in its own temporary folder (`tmux -S`), so tests
/// can run in parallel, never touch anyone's tmux sessions and leave nothing behind. The pane runs a small shell script that records busmon's
/// process id, runs it, then prints `EXIT=<status> TTY=restored|changed` (comparing `stty -g`
/// before and after) and stays open so the result can be read.
final class TmuxPane {
    /// The tmux executable, or `nil` when tmux is not installed.
    static let executable: String? = {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            .split(separator: ":").map(String.init)
        return (folders + ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"])
            .map { $0 + "/tmux" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Whether tmux tests can run here.
    static var isAvailable: Bool { executable != nil }

    private let tmux: String
    private let folder: URL
    private let socket: URL
    private let pidFile: URL
    private var closed = false

    /// Starts busmon in a new pane.
    ///
    /// - Parameters:
    ///   - arguments: busmon's arguments.
    ///   - width: Pane columns.
    ///   - height: Pane rows.
    ///   - environment: Variables to set for busmon (values) or unset (`nil`).
    convenience init(
        busmon: String, arguments: [String] = [], width: Int = 100, height: Int = 30,
        environment: [String: String?] = [:]
    ) throws {
        try self.init(width: width, height: height) { pidFile in
            let command =
                ["env"] + Self.settings(environment) + [
                    "sh", "-c", Self.quote("echo $$ > \"$0\"; exec \"$@\""), Self.quote(pidFile.path),
                    Self.quote(busmon),
                ] + arguments.map(Self.quote)
            return """
                trap : INT
                before=$(stty -g)
                \(command.joined(separator: " "))
                code=$?
                if [ "$before" = "$(stty -g)" ]; then tty=restored; else tty=changed; fi
                echo "EXIT=$code TTY=$tty"
                exec sleep 600

                """
        }
    }

    /// Starts an interactive POSIX shell (`sh -i`, with job control, its prompt `$ `) in a new
    /// pane, for the test to type commands into: what happens between busmon and the shell that
    /// started it (Ctrl-Z, `fg`). ``busmonProcessID()`` does not apply.
    convenience init(
        shellWithWidth width: Int = 100, height: Int = 30, environment: [String: String?] = [:]
    )
        throws
    {
        try self.init(width: width, height: height) { _ in
            (["exec", "env"] + Self.settings(environment) + ["PS1='$ '", "sh", "-i"]).joined(separator: " ")
                + "\n"
        }
    }

    /// env's arguments that set (values) or unset (`nil`) `environment`: its -u options come
    /// before its NAME=value assignments.
    private static func settings(_ environment: [String: String?]) -> [String] {
        let sorted = environment.sorted { $0.key < $1.key }
        return sorted.filter { $0.value == nil }.map { "-u \($0.key)" }
            + sorted.compactMap { name, value in value.map { "\(name)=\(Self.quote($0))" } }
    }

    /// Starts a private tmux server whose one pane runs the shell script `script` makes, given
    /// the file busmon's process id is to be written to.
    private init(width: Int, height: Int, script makeScript: (URL) -> String) throws {
        tmux = try #require(Self.executable, "tmux is not installed")
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("busmon-test-\(getpid())-\(UUID().uuidString.prefix(8))")
        socket = folder.appendingPathComponent("tmux.sock")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        pidFile = folder.appendingPathComponent("busmon.pid")
        let script = makeScript(pidFile)
        let scriptURL = folder.appendingPathComponent("run.sh")
        try script.write(to: scriptURL, atomically: true, encoding: .utf8)
        try run([
            "new-session", "-d", "-s", "busmon", "-x", "\(width)", "-y", "\(height)",
            "sh \(Self.quote(scriptURL.path))",
        ])
    }

    deinit {
        close()
    }

    /// Stops the private tmux server and everything in it.
    func close() {
        guard !closed else { return }
        closed = true
        _ = try? run(["kill-server"])
        try? FileManager.default.removeItem(at: folder)
    }

    /// The visible text of the pane.
    func screen() throws -> String {
        try run(["capture-pane", "-p", "-t", "busmon"])
    }

    /// The pane's text with its colour and attribute escape sequences.
    func screenWithStyles() throws -> String {
        try run(["capture-pane", "-p", "-e", "-t", "busmon"])
    }

    /// Presses keys, named as tmux names them (`q`, `Up`, `C-c`, `Escape`).
    func press(_ keys: String...) throws {
        try run(["send-keys", "-t", "busmon"] + keys)
    }

    /// Types text literally, such as non-ASCII characters.
    func type(_ text: String) throws {
        try run(["send-keys", "-t", "busmon", "-l", text])
    }

    /// Types `line` literally and presses Enter, as a person gives a shell a command.
    func enter(_ line: String) throws {
        try type(line)
        try press("Enter")
    }

    /// Pastes `text` as a terminal does: between bracketed-paste markers when busmon asked for
    /// them (tmux's `paste-buffer -p` adds them only then), else as if typed.
    func paste(_ text: String) throws {
        try run(["set-buffer", "-b", "busmon-test", text])
        try run(["paste-buffer", "-p", "-d", "-b", "busmon-test", "-t", "busmon"])
    }

    /// Resizes the window, as a person dragging the terminal's corner would.
    func resize(width: Int, height: Int) throws {
        try run(["resize-window", "-t", "busmon", "-x", "\(width)", "-y", "\(height)"])
    }

    /// A tmux format variable of the pane, such as `alternate_on` or `cursor_flag`.
    func value(_ name: String) throws -> String {
        try run(["display-message", "-p", "-t", "busmon", "#{\(name)}"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// busmon's process id, once the pane's script has started it.
    func busmonProcessID() async throws -> pid_t {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let text = try? String(contentsOf: pidFile, encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return pid
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TmuxError(description: "busmon's process id never appeared in \(pidFile.path)")
    }

    /// Polls the screen until `condition` holds, and returns that screen. The deadline is generous
    /// because the whole suite shares two cores; a passing wait costs only the time it takes.
    ///
    /// - Throws: When the deadline passes; the error shows the last screen seen.
    @discardableResult
    func waitForScreen(
        _ what: String, timeout: Double = 60, until condition: (String) -> Bool
    ) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(50))
        }
        // One look at the deadline itself: on a loaded machine this task may resume from its
        // sleep long after the previous look, whose screen would otherwise be all it judged.
        last = try screen()
        if condition(last) { return last }
        throw TmuxError(description: "timed out after \(timeout) s waiting for \(what); screen was:\n\(last)")
    }

    /// Polls the screen until it contains `text`.
    @discardableResult
    func waitForScreen(containing text: String, timeout: Double = 60) async throws -> String {
        try await waitForScreen("'\(text)'", timeout: timeout) { $0.contains(text) }
    }

    /// Waits for busmon to exit and returns the `EXIT=` line the pane's script printed.
    func waitForExit(timeout: Double = 60) async throws -> String {
        let screen = try await waitForScreen("busmon to exit", timeout: timeout) { $0.contains("EXIT=") }
        return screen.split(separator: "\n").first { $0.hasPrefix("EXIT=") }.map(String.init) ?? ""
    }

    struct TmuxError: Error, CustomStringConvertible {
        var description: String
    }

    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["TMUX"] = nil  // allowed to start a server even when the tests run inside tmux
        environment["LC_ALL"] = TestHost.utf8Locale  // so tmux keeps non-ASCII characters in captures
        let result = try ChildProcess.run(
            tmux, ["-u", "-f", "/dev/null", "-S", socket.path] + arguments, environment: environment,
            timeout: 20)
        guard result.status == 0 else {
            throw TmuxError(
                description:
                    "tmux \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.standardError)"
            )
        }
        return result.standardOutput
    }

    /// Quotes `text` for a POSIX shell.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
