#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The few socket calls the tap and its readers share, over Glibc.
enum UnixSocket {
    /// Bytes a path may have in `sockaddr_un.sun_path`, its terminating zero not counted.
    static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Runs `body` with the address of `path`, or throws when it does not fit.
    static func withAddress<Result>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
    ) throws(BusTapError) -> Result {
        let bytes = Array(path.utf8)
        guard bytes.count <= maximumPathLength, !bytes.isEmpty else {
            throw .pathTooLong(path: path, limit: maximumPathLength)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// A new non-blocking stream socket that is closed on exec.
    static func makeStreamSocket() -> Int32 {
        socket(
            AF_UNIX,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    }

    /// The result of trying to connect to a path.
    enum ConnectResult {
        case connected(Int32)
        case failed(errno: Int32)
    }

    /// Connects a non-blocking socket to `path`.
    static func connect(to path: String) -> ConnectResult {
        let descriptor = makeStreamSocket()
        guard descriptor >= 0 else { return .failed(errno: errno) }
        let status: Int32
        do {
            status = try withAddress(path) { Glibc.connect(descriptor, $0, $1) }
        } catch {
            close(descriptor)
            return .failed(errno: ENAMETOOLONG)
        }
        if status == 0 { return .connected(descriptor) }
        let code = errno
        close(descriptor)
        return .failed(errno: code)
    }

    /// Identifies a file, so that a tap removes only the socket it made.
    struct FileIdentity: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Creates a listening socket at `path`, readable and writable by its owner only.
    ///
    /// A socket file left by a process that died (nothing accepts on it) is replaced; anything
    /// else at the path is an error and stays as it is.
    static func listen(at path: String) throws(BusTapError) -> (descriptor: Int32, identity: FileIdentity?) {
        guard !path.isEmpty, path.utf8.count <= maximumPathLength else {
            throw .pathTooLong(path: path, limit: maximumPathLength)
        }
        try removeStaleSocket(at: path)

        let descriptor = makeStreamSocket()
        guard descriptor >= 0 else {
            throw .systemCall(name: "socket", path: path, reason: errorText(errno))
        }
        // Linux gives the socket file the mode of the socket's own inode, less the umask, so
        // setting it here makes the file 0600 from the moment it exists, without touching the
        // process-wide umask that other threads rely on.
        _ = fchmod(descriptor, 0o600)
        let bound = try withAddress(path) { bind(descriptor, $0, $1) }
        if bound != 0 {
            let code = errno
            close(descriptor)
            switch code {
            case EADDRINUSE: throw .alreadyInUse(path: path)
            case EACCES, EPERM, EROFS, ENOENT, ENOTDIR:
                throw .directoryNotWritable(path: path, reason: errorText(code))
            default: throw .systemCall(name: "bind", path: path, reason: errorText(code))
            }
        }
        // Also set it by name, for kernels that do not carry the socket inode's mode over.
        _ = chmod(path, 0o600)
        guard Glibc.listen(descriptor, 64) == 0 else {
            let code = errno
            close(descriptor)
            _ = unlink(path)
            throw .systemCall(name: "listen", path: path, reason: errorText(code))
        }
        return (descriptor, identity(of: path))
    }

    private static func removeStaleSocket(at path: String) throws(BusTapError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: path) }
        switch connect(to: path) {
        case .connected(let descriptor):
            close(descriptor)
            throw .alreadyInUse(path: path)
        case .failed(let code) where code == ECONNREFUSED:
            // Nobody accepts there any more: a socket left by a process that died.
            guard unlink(path) == 0 || errno == ENOENT else {
                throw .directoryNotWritable(
                    path: path, reason: "cannot remove stale socket: \(errorText(errno))")
            }
        case .failed(let code) where code == EAGAIN:
            // The backlog is full: a live but busy tap.
            throw .alreadyInUse(path: path)
        case .failed(let code):
            throw .systemCall(name: "connect", path: path, reason: errorText(code))
        }
    }

    /// Sends as much of `bytes[offset...]` as the socket takes now, without raising SIGPIPE.
    ///
    /// - Returns: Bytes sent, or nil when the peer is gone or the socket failed.
    static func sendAvailable(_ descriptor: Int32, _ bytes: [UInt8], from offset: Int) -> Int? {
        var sent = 0
        while offset + sent < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                send(
                    descriptor, buffer.baseAddress! + offset + sent, bytes.count - offset - sent,
                    Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if result > 0 {
                sent += result
            } else if result < 0 && errno == EINTR {
                continue
            } else if result < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                break
            } else {
                return nil
            }
        }
        return sent
    }

    /// A pipe whose write end wakes a thread sleeping in `poll`.
    static func makeWakePipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { makeNonBlocking(end) }
        return (ends[0], ends[1])
    }

    /// Sets `O_NONBLOCK` and `FD_CLOEXEC` (Glibc's module does not offer `accept4` or `pipe2`).
    static func makeNonBlocking(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
    }

    static func drain(_ descriptor: Int32) {
        var scratch = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &scratch, scratch.count) > 0 {}
    }

    static func wake(_ descriptor: Int32) {
        var byte: UInt8 = 1
        _ = write(descriptor, &byte, 1)
    }
}

/// Gives the calling thread a lower scheduling priority (nice +10), so that when it competes for
/// a CPU with the app's own threads, the app wins: a monitor should lose records, not slow the
/// app. On Linux the nice value belongs to the thread, not the process.
func lowerThreadPriority() {
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
}
