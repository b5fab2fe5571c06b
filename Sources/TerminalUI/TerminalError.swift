/// Why the terminal could not be taken over; each case reads as a one-line message.
package enum TerminalError: Error, Equatable, CustomStringConvertible {
    /// Standard output is not a terminal (a pipe or a file).
    case stdoutNotTerminal
    /// Standard input is not a terminal, so no keys could be read.
    case stdinNotTerminal
    /// The `TERM` environment variable is unset or empty.
    case termNotSet
    /// curses does not know the terminal type named by `TERM`.
    case unknownTerminal(String)
    /// The terminal type cannot move the cursor (such as `dumb`), so no full screen can be drawn.
    case notFullScreen(String)
    /// The signal pipe could not be set up; carries the C error number.
    case signalSetupFailed(errno: Int32)

    /// The message to print after "busmon: ".
    package var description: String {
        switch self {
        case .stdoutNotTerminal: "stdout is not a terminal (use --headless for scripts)"
        case .stdinNotTerminal: "stdin is not a terminal, so keys cannot be read (use --headless for scripts)"
        case .termNotSet: "TERM is not set; set it to your terminal type, such as TERM=xterm-256color"
        case .unknownTerminal(let name):
            "unknown terminal type '\(name)' (TERM); try TERM=xterm-256color or install its terminfo entry"
        case .notFullScreen(let name):
            "terminal type '\(name)' cannot move the cursor; busmon needs a full-screen terminal"
        case .signalSetupFailed(let code): "cannot set up signal handling (errno \(code))"
        }
    }
}
