#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A TCP endpoint as people write it: `HOST:PORT`, `[IPv6]:PORT`, or `:PORT` for every
/// interface.
package struct NetworkAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host name or address, without brackets; empty for every interface.
    package var host: String
    /// The port, 0 to let the system choose one (when listening).
    package var port: Int

    /// Reads `HOST:PORT`; `nil` when it is not of that shape or the port is out of range.
    package init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.allSatisfy(\.isASCII), let port = Int(portText),
            (0...65535).contains(port)
        else { return nil }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil  // an IPv6 address needs its brackets, or the port is ambiguous
        }
        guard !host.contains(where: { $0.isWhitespace || $0 == "/" }) else { return nil }
        self.host = host
        self.port = port
    }

    /// Creates an address from its parts.
    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `HOST:PORT`, with brackets around an IPv6 address.
    package var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// The TCP calls the dial-in link uses on both ends, over the platform's C library.
package enum TCPSocket {
    /// A resolved address to connect or bind to.
    package struct Resolved {
        package var storage: sockaddr_storage
        package var length: socklen_t
        package var family: Int32
    }

    /// Resolves `address`, numeric or by name; an empty host means every interface.
    ///
    /// - Returns: The addresses, or why there are none.
    package static func resolve(_ address: NetworkAddress, passive: Bool) -> Result<[Resolved], Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = System.streamSocketType
        hints.ai_flags = passive ? AI_PASSIVE : 0
        var list: UnsafeMutablePointer<addrinfo>?
        let status =
            address.host.isEmpty
            ? getaddrinfo(nil, String(address.port), &hints, &list)
            : getaddrinfo(address.host, String(address.port), &hints, &list)
        guard status == 0, let first = list else {
            return .failure(
                Failure(
                    description: "cannot resolve \(address.host): \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(first) }
        var resolved: [Resolved] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            if let socketAddress = entry.pointee.ai_addr,
                entry.pointee.ai_family == AF_INET || entry.pointee.ai_family == AF_INET6
            {
                var storage = sockaddr_storage()
                let length = Int(entry.pointee.ai_addrlen)
                withUnsafeMutableBytes(of: &storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: socketAddress, count: length))
                }
                resolved.append(
                    Resolved(
                        storage: storage, length: entry.pointee.ai_addrlen, family: entry.pointee.ai_family))
            }
            next = entry.pointee.ai_next
        }
        // IPv4 first: a name such as localhost that resolves to both is then tried where a
        // monitor listening on 0.0.0.0 answers.
        resolved.sort { $0.family == AF_INET && $1.family != AF_INET }
        return resolved.isEmpty
            ? .failure(Failure(description: "no address for \(address.host)")) : .success(resolved)
    }

    /// Why a socket call failed, for people.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What failed, and why.
        package var description: String
    }

    /// A listening socket on `address` (non-blocking), and the port it got.
    package static func listen(
        on address: NetworkAddress, backlog: Int32 = 128
    ) -> Result<(Int32, Int), Failure> {
        let candidates: [Resolved]
        switch resolve(address, passive: true) {
        case .success(let list): candidates = list
        case .failure(let failure): return .failure(failure)
        }
        var lastError = Failure(description: "cannot listen on \(address)")
        for candidate in candidates {
            let descriptor = System.makeStreamSocket(family: candidate.family)
            guard descriptor >= 0 else {
                lastError = Failure(description: "socket: \(UnixSocket.errorText(errno))")
                continue
            }
            var on: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            var storage = candidate.storage
            let bound = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, candidate.length)
                }
            }
            guard bound == 0, System.listenOnSocket(descriptor, backlog: backlog) == 0 else {
                lastError = Failure(
                    description: "cannot listen on \(address): \(UnixSocket.errorText(errno))")
                System.closeDescriptor(descriptor)
                continue
            }
            return .success((descriptor, boundPort(descriptor) ?? address.port))
        }
        return .failure(lastError)
    }

    /// The local port a socket is bound to.
    package static func boundPort(_ descriptor: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { return nil }
        return port(of: storage)
    }

    /// The peer of a connected socket, as `HOST:PORT`.
    package static func peerName(_ descriptor: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        }
        guard named == 0 else { return "unknown peer" }
        var host = [CChar](repeating: 0, count: 64)
        let family = Int32(storage.ss_family)
        withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    var address = $0.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &address, &host, socklen_t(host.count))
                }
            } else if family == AF_INET6 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    var address = $0.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &address, &host, socklen_t(host.count))
                }
            }
        }
        let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return NetworkAddress(host: text, port: port(of: storage) ?? 0).description
    }

    private static func port(of storage: sockaddr_storage) -> Int? {
        var storage = storage
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET {
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
            }
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
            return nil
        }
    }

    /// Starts a non-blocking connection to `candidate`.
    ///
    /// - Returns: The socket, connected or still connecting (poll it for writing, then ask
    ///   ``connectionError(_:)``), or the error.
    package static func startConnecting(to candidate: Resolved) -> Result<Int32, Failure> {
        let descriptor = System.makeStreamSocket(family: candidate.family)
        guard descriptor >= 0 else {
            return .failure(Failure(description: "socket: \(UnixSocket.errorText(errno))"))
        }
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        var storage = candidate.storage
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                System.connectSocket(descriptor, $0, candidate.length)
            }
        }
        if status == 0 || errno == EINPROGRESS || errno == EINTR { return .success(descriptor) }
        let code = errno
        System.closeDescriptor(descriptor)
        return .failure(Failure(description: UnixSocket.errorText(code)))
    }

    /// Whether a connection started by ``startConnecting(to:)`` failed: its error's text, or
    /// `nil` once connected.
    package static func connectionError(_ descriptor: Int32) -> String? {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else {
            return UnixSocket.errorText(errno)
        }
        return code == 0 ? nil : UnixSocket.errorText(code)
    }
}
