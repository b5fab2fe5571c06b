import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What a finished child process did.
package struct ChildResult {
    /// The exit status, or 128 + the signal number when a signal ended it.
    package var status: Int32
    package var standardOutput: String
    package var standardError: String
    /// The child's peak resident memory in KiB: as the kernel reported it when the child was
    /// reaped (Darwin), or the last reading of its high-water mark while it ran (Linux, every
    /// 10 ms while ``RunningChild/wait(timeout:)`` waits); `nil` when neither was taken.
    package var peakResidentKiB: Int?
    /// The CPU time the child used, user and system, in seconds, as reported when it was reaped.
    package var cpuSeconds: Double
}

/// Runs a program to completion with `posix_spawn` and `wait4`, its output captured in files,
/// and a deadline after which it is killed.
///
/// Foundation's `Process` is not used: it decides that a child has exited when every process
/// holding a descriptor it hands the child has closed it, and the server `tmux new-session` forks
/// keeps that descriptor, so waiting for the tmux client would never end.
package enum ChildProcess {
    /// A child that could not be started or did not finish in time.
    package struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        package var description: String

        /// Creates a failure saying `description`.
        package init(description: String) { self.description = description }
    }

    /// Runs `executable` with `arguments` to completion.
    ///
    /// - Parameters:
    ///   - environment: The child's whole environment.
    ///   - terminal: A pseudo-terminal to use as stdin and stdout; otherwise stdin is /dev/null
    ///     and stdout a file.
    ///   - timeout: Seconds to wait before killing the child and failing.
    package static func run(
        _ executable: String, _ arguments: [String], environment: [String: String],
        terminal: PseudoTerminal? = nil, timeout: Double = 30
    ) throws -> ChildResult {
        try start(executable, arguments, environment: environment, terminal: terminal).wait(timeout: timeout)
    }

    /// Starts `executable` with `arguments` and returns at once.
    package static func start(
        _ executable: String, _ arguments: [String], environment: [String: String],
        terminal: PseudoTerminal? = nil
    ) throws -> RunningChild {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("busmon-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let outputPath = folder.appendingPathComponent("stdout").path
        let errorPath = folder.appendingPathComponent("stderr").path

        var actions = System.makeSpawnActions()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let terminal {
            posix_spawn_file_actions_adddup2(&actions, terminal.secondary, STDIN_FILENO)
            posix_spawn_file_actions_adddup2(&actions, terminal.secondary, STDOUT_FILENO)
        } else {
            posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(
                &actions, STDOUT_FILENO, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        posix_spawn_file_actions_addopen(
            &actions, STDERR_FILENO, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        // The spawning thread may block signals (dispatch worker threads do), and a child
        // inherits that mask: a tmux server started that way never hears SIGCHLD and outlives
        // kill-server. Start every child with no signals blocked and default handlers.
        var attributes = System.makeSpawnAttributes()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { (text: String) in strdup(text) } + [nil]
        let envp = environment.map { (name: String, value: String) in strdup("\(name)=\(value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid: pid_t = 0
        let spawnError = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawnError == 0 else {
            throw Failure(description: "cannot start \(executable): error \(spawnError)")
        }

        return RunningChild(
            pid: pid, description: "\(executable) \(arguments)", folder: folder, outputPath: outputPath,
            errorPath: errorPath)
    }
}

/// A child process started with ``ChildProcess/start(_:_:environment:terminal:)``.
package final class RunningChild {
    package let pid: pid_t
    private let description: String
    private let folder: URL
    private let outputPath: String
    private let errorPath: String
    private var finished: ChildResult?
    /// The highest reading of the child's peak memory while it ran (Linux).
    private var sampledPeakKiB: Int?

    package init(pid: pid_t, description: String, folder: URL, outputPath: String, errorPath: String) {
        self.pid = pid
        self.description = description
        self.folder = folder
        self.outputPath = outputPath
        self.errorPath = errorPath
    }

    deinit {
        if finished == nil {
            kill(pid, SIGKILL)
            _ = System.reap(pid, block: true)
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// What the child has written to stdout so far.
    package var standardOutput: String {
        (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// What the child has written to stderr so far.
    package var standardError: String {
        (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
    }

    /// Whether the child is still running.
    package var isRunning: Bool {
        guard finished == nil else { return false }
        samplePeak()
        if let reaped = System.reap(pid, block: false) { finished = makeResult(reaped) }
        return finished == nil
    }

    /// Sends `signal` to the child.
    package func send(_ signal: Int32) {
        if finished == nil { kill(pid, signal) }
    }

    /// Waits for the child to exit, killing it and failing after `timeout` seconds.
    package func wait(timeout: Double = 30) throws -> ChildResult {
        if let finished { return finished }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            samplePeak()
            if let reaped = System.reap(pid, block: false) {
                let result = makeResult(reaped)
                finished = result
                return result
            }
            if Date() > deadline {
                kill(pid, SIGKILL)
                if let reaped = System.reap(pid, block: true) { finished = makeResult(reaped) }
                throw ChildProcess.Failure(description: "\(description) did not exit within \(timeout) s")
            }
            usleep(10_000)
        }
    }

    private func samplePeak() {
        if let now = System.peakResidentKiB(of: pid) { sampledPeakKiB = max(sampledPeakKiB ?? 0, now) }
    }

    private func makeResult(
        _ reaped: (status: Int32, cpuSeconds: Double, peakResidentKiB: Int?)
    ) -> ChildResult {
        let signal = reaped.status & 0x7F
        return ChildResult(
            status: signal == 0 ? (reaped.status >> 8) & 0xFF : 128 + signal,
            standardOutput: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "",
            peakResidentKiB: reaped.peakResidentKiB ?? sampledPeakKiB, cpuSeconds: reaped.cpuSeconds)
    }
}
