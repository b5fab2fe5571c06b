import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A pseudo-terminal pair, so a child process sees a real terminal on stdin and stdout without
/// tmux.
///
/// Swift's C library module hides `posix_openpt`, `grantpt`, `unlockpt` and `ptsname` (they need
/// `_XOPEN_SOURCE`), so they are looked up in the C library at run time.
package final class PseudoTerminal {
    package struct Unavailable: Error, CustomStringConvertible {
        package var description: String
    }

    /// The side the test keeps; it must stay open while the child runs.
    package let primary: Int32
    /// The side the child uses as its terminal.
    package let secondary: Int32

    package init() throws {
        typealias OpenFunction = @convention(c) (Int32) -> Int32
        typealias NameFunction = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        let library = dlopen(nil, RTLD_NOW)
        func lookup<Function>(_ name: String, as type: Function.Type) throws -> Function {
            guard let symbol = dlsym(library, name) else { throw Unavailable(description: "no \(name)") }
            return unsafeBitCast(symbol, to: type)
        }
        let openPrimary = try lookup("posix_openpt", as: OpenFunction.self)
        let grant = try lookup("grantpt", as: OpenFunction.self)
        let unlock = try lookup("unlockpt", as: OpenFunction.self)
        let name = try lookup("ptsname", as: NameFunction.self)

        primary = openPrimary(O_RDWR | O_NOCTTY)
        guard primary >= 0 else { throw Unavailable(description: "posix_openpt failed: errno \(errno)") }
        guard grant(primary) == 0, unlock(primary) == 0, let path = name(primary) else {
            close(primary)
            throw Unavailable(description: "cannot unlock the pseudo-terminal: errno \(errno)")
        }
        secondary = open(path, O_RDWR | O_NOCTTY)
        guard secondary >= 0 else {
            close(primary)
            throw Unavailable(description: "cannot open \(String(cString: path)): errno \(errno)")
        }
        // A child gets the secondary as its stdin and stdout (dup2 clears this flag there), and
        // neither end beside them: a child that held the primary would keep its own terminal
        // alive after the test closed it.
        _ = fcntl(primary, F_SETFD, FD_CLOEXEC)
        _ = fcntl(secondary, F_SETFD, FD_CLOEXEC)
    }

    private var primaryClosed = false

    deinit {
        close(secondary)
        if !primaryClosed { close(primary) }
    }

    /// Closes the test's side, as closing a terminal window does: the child's reads and writes
    /// fail from then on, and its input reports a hang-up.
    package func closePrimary() {
        guard !primaryClosed else { return }
        primaryClosed = true
        close(primary)
    }

    /// Reads and discards what the child wrote, without waiting, so that it never blocks on a
    /// full terminal; returns how many bytes there were.
    @discardableResult
    package func drain() -> Int {
        readAvailable { _ in }
    }

    /// Reads what the child wrote, as ``drain()`` does, and keeps its last `limit` bytes at the
    /// end of `tail`: what a program prints last (a summary after its screen closes) without
    /// holding all it drew. Returns how many bytes there were.
    @discardableResult
    package func drain(keepingTailIn tail: inout [UInt8], limit: Int = 4096) -> Int {
        readAvailable { bytes in
            tail.append(contentsOf: bytes)
            if tail.count > limit { tail.removeFirst(tail.count - limit) }
        }
    }

    /// Reads everything waiting, without waiting for more, handing each read to `body`.
    private func readAvailable(_ body: (ArraySlice<UInt8>) -> Void) -> Int {
        guard !primaryClosed else { return 0 }
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            var ready = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 0) > 0, ready.revents & Int16(POLLIN) != 0 else { return total }
            let count = read(primary, &buffer, buffer.count)
            guard count > 0 else { return total }
            total += count
            body(buffer[..<count])
        }
    }

    /// Types `bytes` on the terminal, as a person at it would.
    package func type(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(primary, $0.baseAddress, $0.count) }
    }
}
