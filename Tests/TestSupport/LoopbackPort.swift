import BusWire

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// TCP ports on the loopback interface, for a local server started on a port nobody uses, such
/// as the nats-server of the NATS tests and of busbench.
package enum LoopbackPort {
    /// Why no free port was found.
    package struct Failure: Error, CustomStringConvertible {
        /// The call that failed and its error.
        package var description: String
    }

    /// A loopback port nothing listens on now: one the kernel picks, released again.
    package static func free() throws(Failure) -> Int {
        let descriptor = socket(AF_INET, System.streamSocketType, 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(UnixSocket.errorText(errno))") }
        defer { close(descriptor) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else { throw Failure(description: "bind: \(UnixSocket.errorText(errno))") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw Failure(description: "getsockname: \(UnixSocket.errorText(errno))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether a TCP connection to the loopback `port` succeeds.
    package static func accepts(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, System.streamSocketType, 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                System.connectSocket(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        System.internetAddress(UInt32(0x7F00_0001).bigEndian, port: UInt16(port))
    }
}
