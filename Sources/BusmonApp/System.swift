internal import Foundation

#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// What busmon reads of its own process, with Darwin's and Linux's ways side by side.
enum System {
    /// This program's peak resident memory in KiB.
    ///
    /// On Linux, `VmHWM` from /proc/self/status, which starts afresh at exec: getrusage's
    /// `ru_maxrss` would also count whatever ran in this process before exec, such as
    /// `swift run`. Darwin has no /proc, and its `ru_maxrss` is in bytes, not kilobytes.
    static func peakResidentKiB() -> Int? {
        var usage = rusage()
        #if canImport(Darwin)
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
            return Int(usage.ru_maxrss) / 1024
        #else
            if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
                let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
                if let kib = line?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) { return kib }
            }
            guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return nil }
            return Int(usage.ru_maxrss)
        #endif
    }

    /// Opens `/dev/null` on each of stdin, stdout and stderr that the parent left closed
    /// (`busmon >&-`), before anything else opens a file.
    ///
    /// The kernel hands out the lowest free descriptor: with stdout closed, `--record FILE`
    /// would be opened as descriptor 1, and every line meant for stdout would land in the
    /// recording. Output to a closed stream is thrown away instead, as the user asked, except
    /// where it is all there is: a headless run that writes no file, or the help, is refused
    /// with exit 1 rather than lost in silence.
    ///
    /// - Returns: The descriptors that were closed, so that output meant for one of them is not
    ///   thrown away in silence.
    @discardableResult
    static func occupyClosedStandardDescriptors() -> Set<Int32> {
        var closed: Set<Int32> = []
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO]
        where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            closed.insert(descriptor)
            let opened = open("/dev/null", O_RDWR)
            // open gives the lowest free descriptor, which is this one; if not, move it there.
            if opened >= 0, opened != descriptor {
                _ = dup2(opened, descriptor)
                _ = close(opened)
            }
        }
        return closed
    }

    /// The positions of this process's arguments, the program name left out, whose bytes are
    /// not valid UTF-8.
    static func undecodableArguments() -> [Int] {
        (1..<max(1, Int(CommandLine.argc))).compactMap { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return nil }
            // Decoding replaces what is not UTF-8, so the bytes come back changed (a check
            // available on every platform the package supports, unlike newer validating
            // initializers).
            let bytes = UnsafeBufferPointer(
                start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self), count: strlen(argument)
            )
            return String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes) ? nil : index - 1
        }
    }

    /// Overwrites `value` with `x`s wherever it is, alone or after `=` (or `anywhere` in an
    /// argument that is a URL, holding `://`), in this process's command line, which is what `ps` shows of it (Linux's
    /// /proc/PID/cmdline and Darwin's KERN_PROCARGS2 both read the process's own copy). The
    /// Swift arguments were copied before.
    static func hideArgument(_ value: String, anywhere: Bool = false) {
        guard !value.isEmpty else { return }
        let secret = Array(value.utf8)
        for index in 0..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            let length = strlen(argument)
            guard length >= secret.count else { continue }
            // A short password must not blank `/var/log` elsewhere on the line.
            if anywhere, strstr(argument, "://") == nil { continue }
            let starts = anywhere ? Array(0...(length - secret.count)) : [length - secret.count]
            for start in starts {
                let matches = (0..<secret.count).allSatisfy {
                    UInt8(bitPattern: argument[start + $0]) == secret[$0]
                }
                let whole = anywhere || start == 0 || argument[start - 1] == CChar(UInt8(ascii: "="))
                if matches && whole { memset(argument + start, Int32(UInt8(ascii: "x")), secret.count) }
            }
        }
    }

    /// Blocks (or unblocks) `signals` in the calling thread; threads it starts afterwards are
    /// born with the same mask.
    static func setSignals(_ signals: [Int32], blocked: Bool) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(blocked ? SIG_BLOCK : SIG_UNBLOCK, &set, nil)
    }

    /// Whether `first` and `second` name one file that writing through one would destroy for the
    /// other: the same path however spelled (`./a` and `a`), or one existing file (a hard link,
    /// a symbolic link read through). A character device (`/dev/null`, `/dev/full`) takes any
    /// number of writers and is never one.
    static func areOneFile(_ first: String, _ second: String) -> Bool {
        var firstInfo = stat()
        var secondInfo = stat()
        let firstExists = stat(first, &firstInfo) == 0
        let secondExists = stat(second, &secondInfo) == 0
        if firstExists, firstInfo.st_mode & S_IFMT == S_IFCHR { return false }
        if firstExists, secondExists {
            return firstInfo.st_dev == secondInfo.st_dev && firstInfo.st_ino == secondInfo.st_ino
        }
        return resolvedPath(first) == resolvedPath(second)
    }

    /// Whether `path` is the regular file that stdout writes to (`busmon > out.json`).
    static func isStandardOutput(_ path: String) -> Bool {
        var output = stat()
        var info = stat()
        guard fstat(STDOUT_FILENO, &output) == 0, output.st_mode & S_IFMT == S_IFREG,
            stat(path, &info) == 0
        else { return false }
        return output.st_dev == info.st_dev && output.st_ino == info.st_ino
    }

    /// `path` made absolute, with its folder's symbolic links, `.` and `..` resolved: the file
    /// need not exist, its folder should.
    private static func resolvedPath(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let folder = url.deletingLastPathComponent().path
        guard let resolved = realpath(folder, nil) else { return url.path }
        defer { free(resolved) }
        return String(cString: resolved) + "/" + url.lastPathComponent
    }

    /// Whether `path` names a pipe, a FIFO, a character device or a socket: input read once, as
    /// it comes, rather than a file.
    static func isStream(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFCHR || type == S_IFSOCK
    }
}
