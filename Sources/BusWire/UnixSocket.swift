#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The few Unix socket calls the tap and its readers share, over the platform's C library.
package enum UnixSocket {
    /// Bytes a path may have in `sockaddr_un.sun_path`, its terminating zero not counted.
    package static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    package static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Runs `body` with the address of `path`; `nil` when the path is empty or does not fit.
    package static func withAddress<Result>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
    ) -> Result? {
        let bytes = Array(path.utf8)
        guard bytes.count <= maximumPathLength, !bytes.isEmpty else { return nil }
        var address = System.unixAddress(path: bytes)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// The result of trying to connect to a path.
    package enum ConnectResult {
        case connected(Int32)
        case failed(errno: Int32)
    }

    /// Connects a non-blocking socket to `path`.
    package static func connect(to path: String) -> ConnectResult {
        let descriptor = System.makeStreamSocket(family: AF_UNIX)
        guard descriptor >= 0 else { return .failed(errno: errno) }
        guard let status = withAddress(path, { System.connectSocket(descriptor, $0, $1) }) else {
            close(descriptor)
            return .failed(errno: ENAMETOOLONG)
        }
        if status == 0 { return .connected(descriptor) }
        let code = errno
        close(descriptor)
        return .failed(errno: code)
    }

    /// Identifies a file, so that a tap removes only the socket it made.
    package struct FileIdentity: Equatable {
        package let device: UInt64
        package let inode: UInt64
    }

    package static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return FileIdentity(
            device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino))
    }
}
