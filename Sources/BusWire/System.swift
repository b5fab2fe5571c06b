#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The C library calls whose spelling differs between Darwin and Linux, each with both branches
/// side by side, for the wire's sockets and clocks and for the tap and the monitor built on them.
///
/// The differences (from the platforms' headers): glibc imports `SOCK_STREAM` as an enum and
/// takes `SOCK_CLOEXEC`/`SOCK_NONBLOCK` in `socket`'s type and `MSG_NOSIGNAL` in `send`'s flags;
/// Darwin has none of the three, so it sets the same properties with `fcntl` and `SO_NOSIGPIPE`.
/// Darwin's `sockaddr_un` and `sockaddr_in` carry a length byte. glibc's `setpriority` takes its
/// own `__priority_which_t`. Darwin has no coarse clock.
package enum System {
    /// `SOCK_STREAM`, as the `Int32` that `socket` takes on every platform.
    package static var streamSocketType: Int32 {
        #if canImport(Darwin)
            SOCK_STREAM
        #else
            Int32(SOCK_STREAM.rawValue)
        #endif
    }

    /// A new stream socket of `family` that is non-blocking, closed on exec and never raises
    /// `SIGPIPE`; -1 with `errno` set when it cannot be made.
    package static func makeStreamSocket(family: Int32) -> Int32 {
        #if canImport(Darwin)
            let descriptor = socket(family, SOCK_STREAM, 0)
            if descriptor >= 0 { configure(descriptor) }
            return descriptor
        #else
            return socket(
                family, streamSocketType | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        #endif
    }

    /// Makes a descriptor from `accept`, `pipe` or `socket` non-blocking and closed on exec, and
    /// on Darwin, where `send` takes no `MSG_NOSIGNAL`, a socket one that never raises `SIGPIPE`.
    package static func configure(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
        #if canImport(Darwin)
            // SO_NOSIGPIPE fails with ENOTSOCK on a pipe; F_SETNOSIGPIPE covers both.
            var on: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
            _ = fcntl(descriptor, F_SETNOSIGPIPE, 1)
        #endif
    }

    /// Sends what the socket takes now of `count` bytes at `pointer`, without waiting and
    /// without raising `SIGPIPE`; the count sent, or -1 with `errno` set.
    package static func sendNow(_ descriptor: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
            // SO_NOSIGPIPE was set when the socket was configured.
            return send(descriptor, pointer, count, MSG_DONTWAIT)
        #else
            return send(descriptor, pointer, count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        #endif
    }

    /// `accept(2)` on a listening socket: the new connection's descriptor, configured as
    /// ``configure(_:)`` does, or -1 with `errno` set.
    package static func acceptConnection(_ listener: Int32) -> Int32 {
        let descriptor = accept(listener, nil, nil)
        if descriptor >= 0 { configure(descriptor) }
        return descriptor
    }

    /// A pipe whose write end wakes a thread sleeping in `poll`, both ends configured as
    /// ``configure(_:)`` does (neither platform's module offers `pipe2`).
    package static func makeWakePipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { configure(end) }
        return (ends[0], ends[1])
    }

    /// Reads a wake pipe empty.
    package static func drainWakePipe(_ descriptor: Int32) {
        var scratch = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &scratch, scratch.count) > 0 {}
    }

    /// Writes a byte to a wake pipe, waking whoever polls its read end.
    package static func signalWakePipe(_ descriptor: Int32) {
        var byte: UInt8 = 1
        _ = write(descriptor, &byte, 1)
    }

    /// Waits up to `seconds` for `descriptor` to be readable.
    package static func waitForInput(on descriptor: Int32, seconds: Double) {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&entry, 1, Int32(seconds * 1000))
    }

    /// Sends as much of `bytes[offset...]` as the socket takes now, without raising SIGPIPE.
    ///
    /// - Returns: Bytes sent, or nil when the peer is gone or the socket failed.
    package static func sendAvailable(_ descriptor: Int32, _ bytes: [UInt8], from offset: Int) -> Int? {
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

    /// Reads what `descriptor` has to read now, without waiting, appending at most `limit`
    /// bytes to `input` and discarding the rest.
    ///
    /// - Returns: `false` once the peer closed the connection or it failed.
    package static func receiveAvailable(_ descriptor: Int32, into input: inout [UInt8], limit: Int) -> Bool {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &scratch, scratch.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                let room = max(0, limit - input.count)
                input.append(contentsOf: scratch[0..<min(count, room)])
                continue
            }
            if count == 0 { return false }
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR
        }
    }

    /// Reads and drops whatever `descriptor` has waiting; returns false when its peer has gone.
    package static func discardInput(_ descriptor: Int32) -> Bool {
        var scratch = [UInt8](repeating: 0, count: 512)
        while true {
            let count = recv(descriptor, &scratch, scratch.count, Int32(MSG_DONTWAIT))
            if count > 0 { continue }
            if count == 0 { return false }
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR
        }
    }

    /// Accepts the connections waiting on `listener`, at most `maximum` of them, configured as
    /// ``configure(_:)`` does, handing each to `handle`.
    ///
    /// - Returns: Until when to stop polling the listener: out of file descriptors, the
    ///   connection stays queued and `poll` would report it again at once, so a server rests a
    ///   tenth of a second instead of spinning; 0 otherwise (also when `maximum` were taken and
    ///   more wait: `poll` reports them next round).
    package static func acceptWaitingConnections(
        _ listener: Int32, maximum: Int = .max, _ handle: (Int32) -> Void
    ) -> Double {
        for _ in 0..<max(1, maximum) {
            let descriptor = acceptConnection(listener)
            guard descriptor >= 0 else {
                return errno == EMFILE || errno == ENFILE ? MonotonicClock.now() + 0.1 : 0
            }
            handle(descriptor)
        }
        return 0
    }

    /// Receives what is waiting now, up to `count` bytes, without waiting; 0 at end of file, or
    /// -1 with `errno` set.
    package static func receiveNow(
        _ descriptor: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int
    ) -> Int {
        recv(descriptor, pointer, count, Int32(MSG_DONTWAIT))
    }

    /// `close(2)`, named apart from the many methods called `close`.
    package static func closeDescriptor(_ descriptor: Int32) {
        _ = close(descriptor)
    }

    /// Writes every byte of `bytes` to `descriptor`: carries on after a signal, and waits (in
    /// `poll(2)`, 100 ms at a time) while a non-blocking descriptor's reader is slow.
    ///
    /// The one write loop of the package: a recording, headless output, busmon's error lines and
    /// the tests' peers all go through it. A closed peer comes back as `EPIPE`, never as a
    /// SIGPIPE that ends the process, whoever made the descriptor: on Linux a socket is written
    /// with `send(2)` and `MSG_NOSIGNAL`; on Darwin, where that flag does not exist and
    /// `SO_NOSIGPIPE` is set only on sockets the package made, the descriptor is first set
    /// `F_SETNOSIGPIPE` (a socket or a pipe given as stdout, say), and a socket that can no
    /// longer take it (shut down both ways) is reported as `EPIPE` without a write. A pipe on
    /// Linux has no such setting: there SIGPIPE must be ignored (busmon does).
    ///
    /// - Returns: `nil` once all is written; else the `errno` that stopped it, or 0 when the
    ///   descriptor took nothing without saying why.
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard var next = bytes.baseAddress else { return nil }
        #if canImport(Darwin)
            // On a socket xnu turns this into SO_NOSIGPIPE, which fails with EINVAL once the
            // socket is shut down both ways: then a send would raise SIGPIPE, so none is made.
            if fcntl(descriptor, F_SETNOSIGPIPE, 1) == -1 {
                let code = errno
                return code == EINVAL ? EPIPE : code
            }
        #endif
        var left = bytes.count
        var isSocket = true
        while left > 0 {
            let written = isSocket ? sendSignalFree(descriptor, next, left) : write(descriptor, next, left)
            if written < 0, errno == ENOTSOCK {
                isSocket = false
                continue
            }
            if written > 0 {
                next += written
                left -= written
                continue
            }
            guard written < 0 else { return 0 }
            let code = errno
            switch code {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, 100)
            default:
                return code
            }
        }
        return nil
    }

    /// `send(2)` without raising SIGPIPE; the count sent, or -1 with `errno` set.
    private static func sendSignalFree(_ descriptor: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int
    {
        #if canImport(Darwin)
            // writeAll set F_SETNOSIGPIPE on the descriptor before its first write.
            return send(descriptor, pointer, count, 0)
        #else
            return send(descriptor, pointer, count, Int32(MSG_NOSIGNAL))
        #endif
    }

    /// Ends the writing side of a connected socket: the peer reads what was sent, then end of
    /// file.
    package static func shutDownWriting(_ descriptor: Int32) {
        // SHUT_WR is an Int32 on Darwin and an enum case imported as Int on Linux.
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// `connect(2)`, named apart from the many methods called `connect`.
    package static func connectSocket(
        _ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t
    ) -> Int32 {
        connect(descriptor, address, length)
    }

    /// `listen(2)`, named apart from the many methods called `listen`.
    package static func listenOnSocket(_ descriptor: Int32, backlog: Int32) -> Int32 {
        listen(descriptor, backlog)
    }

    /// A Unix socket address for `bytes` of a path (already checked to fit), with Darwin's
    /// length field set.
    package static func unixAddress(path bytes: [UInt8]) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        #if canImport(Darwin)
            address.sun_len = UInt8(MemoryLayout<sockaddr_un>.size)
        #endif
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        return address
    }

    /// An IPv4 address, with Darwin's length field set.
    package static func internetAddress(_ networkOrderAddress: UInt32, port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = networkOrderAddress
        return address
    }

    /// The offset of the first `byte` in the `count` bytes at `start`, or `nil`: `memchr`, which
    /// finds the end of a line many times faster than a search in Swift does in a debug build,
    /// where every reader of a stream looks for each line's end.
    package static func firstOffset(of byte: UInt8, in start: UnsafeRawPointer, count: Int) -> Int? {
        guard count > 0, let found = memchr(start, Int32(byte), count) else { return nil }
        return start.distance(to: UnsafeRawPointer(found))
    }

    /// Gives the calling thread a lower scheduling priority (nice +10), so that when a monitor's
    /// or a tap's thread competes for a CPU with the app's own threads, the app wins: a monitor
    /// should lose records, not slow the app. On Linux the nice value
    /// belongs to the thread; on Darwin `setpriority` would lower the whole process, so the
    /// thread asks for the utility quality of service instead, which does the same for it.
    package static func lowerThreadPriority() {
        #if canImport(Darwin)
            _ = pthread_set_qos_class_self_np(QOS_CLASS_UTILITY, 0)
        #elseif canImport(Glibc)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #else
            _ = setpriority(PRIO_PROCESS, 0, 10)
        #endif
    }

    /// This machine's host name, or `localhost` when it has none.
    package static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return bytes.isEmpty ? "localhost" : String(decoding: bytes, as: UTF8.self)
    }
}
