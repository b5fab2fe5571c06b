/// Why a tap could not open its socket, or could not start dialling its monitor.
public enum BusTapError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path does not fit in a Unix socket address.
    case pathTooLong(path: String, limit: Int)
    /// Something that is not a socket exists at the path; the tap never deletes it.
    case notASocket(path: String)
    /// A live process is already serving a tap at the path.
    case alreadyInUse(path: String)
    /// The socket cannot be created in the path's directory.
    case directoryNotWritable(path: String, reason: String)
    /// A system call failed.
    case systemCall(name: String, path: String, reason: String)
    /// The monitor's address is not `HOST:PORT`.
    case invalidMonitorAddress(String)
    /// The token for the monitor is empty, or holds a line break.
    case invalidToken

    /// A one-sentence account of the problem.
    public var description: String {
        switch self {
        case .pathTooLong(let path, let limit):
            return "socket path \(path) is longer than \(limit) bytes; choose a shorter path"
        case .notASocket(let path):
            return "\(path) exists and is not a socket; refusing to replace it"
        case .alreadyInUse(let path):
            return "another process is already serving a tap at \(path)"
        case .directoryNotWritable(let path, let reason):
            return "cannot create socket \(path): \(reason)"
        case .systemCall(let name, let path, let reason):
            return "\(name) failed for \(path): \(reason)"
        case .invalidMonitorAddress(let address):
            return "\(address) is not a monitor's address: give HOST:PORT, such as 192.168.1.20:7777"
        case .invalidToken:
            return "the token for the monitor is empty; give the token busmon --listen shows"
        }
    }
}
