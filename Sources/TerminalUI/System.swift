#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// The C library's spellings that differ between Darwin and Linux, side by side.
enum System {
    /// A `sigaction` that runs `handler`, blocks no other signal while it runs, and has `flags`.
    ///
    /// The handler sits in a union whose name differs: glibc's `__sigaction_handler` with
    /// `sa_handler`, Darwin's `__sigaction_u` with `__sa_handler`.
    static func signalAction(handler: @convention(c) (Int32) -> Void, flags: Int32) -> sigaction {
        var action = sigaction()
        #if canImport(Darwin)
            action.__sigaction_u.__sa_handler = handler
        #elseif canImport(Glibc)
            action.__sigaction_handler.sa_handler = handler
        #else
            action.__sa_handler.sa_handler = handler
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = flags
        return action
    }

    /// Whether this process has a controlling terminal: `/dev/tty` opens only then. Under
    /// `setsid` it has none, and Ctrl-C on its terminal raises no SIGINT for it.
    static func hasControllingTerminal() -> Bool {
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }
}
