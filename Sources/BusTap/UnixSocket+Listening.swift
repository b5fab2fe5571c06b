import BusWire

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension UnixSocket {
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
        let bound = withAddress(path) { bind(descriptor, $0, $1) } ?? -1
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
        guard System.listenOnSocket(descriptor, backlog: 64) == 0 else {
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
                System.sendNow(descriptor, buffer.baseAddress! + offset + sent, bytes.count - offset - sent)
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
}
