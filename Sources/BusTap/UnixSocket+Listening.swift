import BusWire

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A tap's claim on its socket's path: a lock file beside the socket (`PATH.lock`), locked with
/// `flock` for as long as the tap lives.
///
/// Whether a socket file is still served cannot be learned from `connect` alone on every
/// platform: Linux answers `ECONNREFUSED` only when nothing listens (a full listen queue is
/// `EAGAIN`), but Darwin answers `ECONNREFUSED` for a full queue too, so a busy live tap would
/// look like a dead one and lose its path. The kernel drops a `flock` when its process dies, so
/// a lock that cannot be taken means a live tap, on both.
struct SocketPathLock {
    /// The locked lock file's descriptor.
    let descriptor: Int32
    /// The lock file's path.
    let path: String

    /// Takes the lock for the socket at `socketPath`.
    ///
    /// - Throws: ``BusTapError/alreadyInUse(path:)`` when a live tap holds it, or why the lock
    ///   file could not be made.
    static func take(for socketPath: String) throws(BusTapError) -> SocketPathLock {
        let path = socketPath + ".lock"
        // Twice at most: a lock file a closing tap removes between our open and our lock is
        // opened anew, so that two taps never hold locks on two different files.
        for _ in 0..<2 {
            let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                let code = errno
                if code == ELOOP { throw .notASocket(path: path) }
                throw .directoryNotWritable(path: socketPath, reason: UnixSocket.errorText(code))
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let code = errno
                close(descriptor)
                if code == EWOULDBLOCK || code == EAGAIN { throw .alreadyInUse(path: socketPath) }
                throw .systemCall(name: "flock", path: path, reason: UnixSocket.errorText(code))
            }
            var opened = stat()
            if fstat(descriptor, &opened) == 0,
                let named = UnixSocket.identity(of: path),
                named.device == UInt64(truncatingIfNeeded: opened.st_dev),
                named.inode == UInt64(truncatingIfNeeded: opened.st_ino)
            {
                return SocketPathLock(descriptor: descriptor, path: path)
            }
            close(descriptor)
        }
        throw .alreadyInUse(path: socketPath)
    }

    /// Removes the lock file, then lets the lock go.
    func release() {
        _ = unlink(path)
        _ = close(descriptor)
    }
}

extension UnixSocket {
    /// Creates a listening socket at `path`, readable and writable by its owner only from the
    /// moment it can be reached, and locks the path for this process (``SocketPathLock``).
    ///
    /// A socket file left by a process that died is replaced; a live tap's socket, or anything
    /// else at the path, is an error and stays as it is.
    static func listen(
        at path: String
    ) throws(BusTapError) -> (descriptor: Int32, identity: FileIdentity?, lock: SocketPathLock) {
        guard !path.isEmpty, path.utf8.count <= maximumPathLength else {
            throw .pathTooLong(path: path, limit: maximumPathLength)
        }
        let lock = try SocketPathLock.take(for: path)
        do throws(BusTapError) {
            try removeStaleSocket(at: path)
            let descriptor = try bindPrivately(at: path)
            guard System.listenOnSocket(descriptor, backlog: 64) == 0 else {
                let code = errno
                close(descriptor)
                _ = unlink(path)
                throw .systemCall(name: "listen", path: path, reason: errorText(code))
            }
            return (descriptor, identity(of: path), lock)
        } catch {
            lock.release()
            throw error
        }
    }

    /// A socket bound at `path` whose file nobody else can reach before it is 0600.
    ///
    /// The socket is bound inside a new folder only its owner may enter (`mkdtemp`, 0700) beside
    /// `path`, set to 0600 there, then renamed into place. Setting the mode with `fchmod` before
    /// `bind` works on Linux only; on Darwin the file gets the umask's mode until a later
    /// `chmod`, and the umask belongs to the whole process. When the folder's longer path would
    /// not fit in a socket address, the socket is bound at `path` itself with both settings.
    private static func bindPrivately(at path: String) throws(BusTapError) -> Int32 {
        let descriptor = System.makeStreamSocket(family: AF_UNIX)
        guard descriptor >= 0 else {
            throw .systemCall(name: "socket", path: path, reason: errorText(errno))
        }
        let parent = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        var template = Array(((parent.isEmpty ? "" : parent) + "/.tap-XXXXXX").utf8CString)
        let folder: String? = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        let privatePath = folder.map { $0 + "/s" }
        defer { if let folder { _ = rmdir(folder) } }

        let bindPath: String
        if let privatePath, privatePath.utf8.count <= maximumPathLength {
            bindPath = privatePath
        } else {
            bindPath = path
        }
        // Linux gives the file the mode of the socket's own inode, less the umask.
        _ = fchmod(descriptor, 0o600)
        let bound = withAddress(bindPath) { bind(descriptor, $0, $1) } ?? -1
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
        _ = chmod(bindPath, 0o600)
        if bindPath != path, rename(bindPath, path) != 0 {
            let code = errno
            _ = unlink(bindPath)
            close(descriptor)
            throw .systemCall(name: "rename", path: path, reason: errorText(code))
        }
        return descriptor
    }

    /// Removes a socket file that no live process serves; called with the path's lock held, so
    /// no tap of this package serves it. Another program (or a tap from before locks) may.
    private static func removeStaleSocket(at path: String) throws(BusTapError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: path) }
        switch connect(to: path) {
        case .connected(let descriptor):
            close(descriptor)
            throw .alreadyInUse(path: path)
        case .failed(let code) where code == ECONNREFUSED:
            // Nobody accepts there any more: a socket left by a process that died. (On Darwin a
            // full queue answers the same; the lock already told a live tap of ours apart.)
            guard unlink(path) == 0 || errno == ENOENT else {
                throw .directoryNotWritable(
                    path: path, reason: "cannot remove stale socket: \(errorText(errno))")
            }
        case .failed(let code) where code == EAGAIN:
            // The backlog is full: a live but busy server.
            throw .alreadyInUse(path: path)
        case .failed(let code):
            throw .systemCall(name: "connect", path: path, reason: errorText(code))
        }
    }
}
