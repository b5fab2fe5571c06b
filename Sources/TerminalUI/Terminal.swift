internal import CNCurses
package import ScreenGrid

#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// What the terminal turned out to support once curses started.
package struct TerminalCapabilities: Sendable, Equatable {
    /// The locale is UTF-8, so box drawing and block characters can be shown.
    package var unicode: Bool
    /// Colours are allowed and the terminal has them.
    package var color: Bool

    /// Creates capabilities.
    package init(unicode: Bool, color: Bool) {
        self.unicode = unicode
        self.color = color
    }
}

/// Something the terminal reported while waiting for input.
package enum TerminalEvent: Sendable, Equatable {
    /// A key was pressed.
    case key(DashboardKey)
    /// The terminal changed size; the next ``Terminal/draw(_:)`` repaints everything.
    case resize(width: Int, height: Int)
}

/// The ncurses backend: takes over the terminal, copies cell grids to it and reads keys.
///
/// Not thread-safe, like curses itself: create, use and stop it on one thread (the UI thread).
/// ``stop()`` restores the terminal and is also called on deinit, so every way out of the
/// program that unwinds restores it.
package final class Terminal {
    /// Whether curses currently owns the terminal.
    package private(set) var isActive = false
    /// What the terminal supports; meaningful once ``start(colorAllowed:environment:)`` returned.
    package private(set) var capabilities = TerminalCapabilities(unicode: false, color: false)

    private var screen: OpaquePointer?
    /// The grid drawn last, so the next frame only writes cells that changed; `nil` forces a
    /// full repaint (after start and after a resize).
    private var lastDrawn: CellGrid?

    /// Creates an inactive terminal.
    package init() {}

    deinit {
        stop()
    }

    /// Whether a screen could be drawn at all: stdout and stdin are terminals and `TERM` is set.
    /// Asked before anything is opened, so that a run that cannot draw does not first read a
    /// whole recording from a pipe, or connect to anything, only to say so.
    ///
    /// - Throws: ``TerminalError`` saying which of them is missing.
    package static func checkStandardStreams(environment: [String: String]) throws(TerminalError) {
        guard isatty(STDOUT_FILENO) == 1 else { throw .stdoutNotTerminal }
        guard isatty(STDIN_FILENO) == 1 else { throw .stdinNotTerminal }
        guard environment["TERM"]?.isEmpty == false else { throw .termNotSet }
    }

    /// Takes over the terminal: alternate screen, no echo, keys unbuffered, cursor hidden.
    ///
    /// Sets the locale from the environment first, so wide characters work in UTF-8 locales.
    ///
    /// - Parameters:
    ///   - colorAllowed: Whether colours may be used (see ``TerminalSupport/colorAllowed(noColorFlag:environment:)``);
    ///     they are used only if the terminal also has them.
    ///   - environment: The process environment, for `TERM`.
    /// - Returns: What the terminal supports.
    /// - Throws: ``TerminalError`` when stdout or stdin is not a terminal or `TERM` is missing or
    ///   unknown; the terminal is left untouched then.
    @discardableResult
    package func start(
        colorAllowed: Bool, environment: [String: String]
    ) throws(TerminalError) -> TerminalCapabilities {
        precondition(!isActive, "the terminal is already started")
        try Self.checkStandardStreams(environment: environment)
        guard let term = environment["TERM"] else { throw .termNotSet }

        setlocale(LC_ALL, "")
        let unicode = TerminalSupport.isUTF8(codeset: String(cString: cnc_codeset()))

        // Asked before curses starts, which would write a screenful of blanks to a terminal that
        // cannot take a full screen (`dumb`) before busmon could say so.
        switch cnc_terminal_addresses_cursor(term) {
        case -1: throw .unknownTerminal(term)
        case 0: throw .notFullScreen(term)
        default: break
        }
        // newterm, unlike initscr, returns NULL for an unknown terminal instead of exiting.
        guard let newScreen = cnc_newterm_stdio(term) else { throw .unknownTerminal(term) }
        screen = newScreen
        isActive = true
        guard cnc_can_address_cursor() else {
            stop()
            throw .notFullScreen(term)
        }

        // Keys arrive unbuffered; Ctrl-C raises SIGINT, which SignalWatcher catches. On a
        // terminal that is not the controlling one (busmon started under setsid), the signal
        // would reach nobody and Ctrl-C would do nothing: there it arrives as a key (3).
        cnc_enter_dashboard_mode(!System.hasControllingTerminal())
        cnc_buffer_output()

        var color = false
        var defaultBackground = false
        if colorAllowed, cnc_start_colors(Int32(CellStyle.Color.allCases.count), &defaultBackground) {
            let background = Int16(defaultBackground ? CNC_COLOR_DEFAULT : CNC_COLOR_BLACK)
            for styleColor in CellStyle.Color.allCases {
                _ = cnc_init_pair(
                    Self.pairNumber(for: styleColor), Self.cursesColor(for: styleColor), background)
            }
            color = true
        }
        capabilities = TerminalCapabilities(unicode: unicode, color: color)
        lastDrawn = nil
        _ = cnc_erase()
        return capabilities
    }

    /// Restores the terminal as it was before ``start(colorAllowed:environment:)``. Safe to
    /// call more than once.
    package func stop() {
        guard isActive else { return }
        isActive = false
        // Blank the screen before leaving it. After a resize, tmux brings part of the alternate
        // screen back onto the restored one when the program leaves it (seen with any curses
        // program, not with less); leaving a blank screen leaves nothing to bring back.
        cnc_end(screen)
        screen = nil
        fflush(nil)  // hand the rest of stdout to the restored terminal before the caller prints
    }

    /// Whether the terminal has gone: its other side closed (a window closed, a connection
    /// dropped) while busmon was not the session that would get SIGHUP for it, as under
    /// `setsid`. Reads then fail at once, so a loop that waits for keys would spin.
    package var hasHungUp: Bool {
        guard isActive else { return false }
        var input = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&input, 1, 0) >= 0 else { return false }
        return input.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
    }

    /// The current size in columns and rows.
    package var size: (width: Int, height: Int) {
        guard isActive else { return (0, 0) }
        var rows: Int32 = 0
        var columns: Int32 = 0
        cnc_screen_size(&rows, &columns)
        return (Int(max(0, columns)), Int(max(0, rows)))
    }

    /// Copies `grid` to the screen, writing only the cells that changed since the previous
    /// frame (curses then sends only what differs on the terminal, without flicker).
    ///
    /// Cells outside the screen are skipped. Without a UTF-8 locale, non-ASCII characters show
    /// as `?`; characters that are not one column wide always do, to keep columns aligned.
    package func draw(_ grid: CellGrid) {
        guard isActive else { return }
        let (width, height) = size
        if lastDrawn.map({ $0.width != grid.width || $0.height != grid.height }) ?? true { _ = cnc_erase() }
        grid.forEachChange(since: lastDrawn) { x, y, cell in
            guard x < width, y < height else { return }
            // Writing the bottom-right cell reports ERR but draws it; nothing to handle.
            _ = cnc_put_cell(
                Int32(y), Int32(x), displayCharacter(cell.scalar), attributes(for: cell.style),
                pair(for: cell.style))
        }
        _ = cnc_refresh()
        lastDrawn = grid
    }

    /// Waits up to `timeoutMilliseconds` for a key or a resize.
    ///
    /// - Parameter timeoutMilliseconds: How long to wait; 0 only looks.
    /// - Returns: The event, or `nil` when nothing came in time or the key means nothing to the
    ///   dashboard.
    package func nextEvent(timeoutMilliseconds: Int) -> TerminalEvent? {
        guard isActive else { return nil }
        cnc_timeout(Int32(clamping: max(0, timeoutMilliseconds)))
        var value: UInt32 = 0
        switch cnc_read_key(&value) {
        case CNC_READ_FUNCTION_KEY:
            let code = Int32(clamping: value)
            if code == CNC_KEY_RESIZE {
                lastDrawn = nil
                let (width, height) = size
                return .resize(width: width, height: height)
            }
            if code == CNC_KEY_PASTE_START { return .key(.paste(readPaste())) }
            return KeyDecoder.decode(.function(code)).map(TerminalEvent.key)
        case CNC_READ_CHARACTER:
            return KeyDecoder.decode(.character(value)).map(TerminalEvent.key)
        default:
            return nil
        }
    }

    /// The most characters of a paste kept; the rest is read and dropped.
    static let longestPaste = 4_096

    /// Reads a paste up to its end marker, as text: printable characters, line breaks and tabs
    /// as spaces, other controls (an Esc in the pasted text) dropped, at most ``longestPaste``
    /// characters. A terminal that lost the end marker ends the paste after 100 ms of silence,
    /// so that keys typed later are keys again.
    private func readPaste() -> String {
        var paste = PastedText()
        cnc_timeout(100)
        var value: UInt32 = 0
        while true {
            switch cnc_read_key(&value) {
            case CNC_READ_CHARACTER:
                paste.take(value)
            case CNC_READ_FUNCTION_KEY:
                let code = Int32(clamping: value)
                if code == CNC_KEY_PASTE_END { return paste.text }
                // Any other key inside a paste is part of what was pasted, not a command.
                if code == CNC_KEY_RESIZE { lastDrawn = nil }
            default:
                return paste.text
            }
        }
    }

    /// The Unicode scalar to draw for `scalar`: a space for a control character, `?` for
    /// what cannot be shown in one column.
    private func displayCharacter(_ scalar: Unicode.Scalar) -> UInt32 {
        let value = scalar.value
        if value < 0x20 { return 32 }
        if value < 0x7F { return value }
        guard capabilities.unicode else { return 63 }
        return cnc_character_width(value) == 1 ? value : 63
    }

    private func attributes(for style: CellStyle) -> UInt32 {
        var attributes: UInt32 = 0
        if style.bold { attributes |= CNC_STYLE_BOLD }
        if style.reverse { attributes |= CNC_STYLE_REVERSE }
        if style.dim { attributes |= CNC_STYLE_DIM }
        return attributes
    }

    private func pair(for style: CellStyle) -> Int16 {
        guard capabilities.color, let color = style.color else { return 0 }
        return Self.pairNumber(for: color)
    }

    /// Colour pair 0 is the terminal default; each style colour gets its own pair from 1.
    private static func pairNumber(for color: CellStyle.Color) -> Int16 {
        Int16(color.rawValue) + 1
    }

    private static func cursesColor(for color: CellStyle.Color) -> Int16 {
        let code =
            switch color {
            case .red: CNC_COLOR_RED
            case .green: CNC_COLOR_GREEN
            case .yellow: CNC_COLOR_YELLOW
            case .blue: CNC_COLOR_BLUE
            case .magenta: CNC_COLOR_MAGENTA
            case .cyan: CNC_COLOR_CYAN
            case .white: CNC_COLOR_WHITE
            }
        return Int16(code)
    }
}

/// A paste as it is read, character code by character code.
struct PastedText {
    private(set) var text = ""
    private var count = 0

    /// Adds the character `code`: printable ones as they are, line breaks and tabs as a space,
    /// other controls not at all; nothing past ``Terminal/longestPaste``.
    mutating func take(_ code: UInt32) {
        guard count < Terminal.longestPaste else { return }
        switch code {
        case 9, 10, 13:
            text.append(" ")
        case 0..<0x20, 0x7F..<0xA0:
            return
        default:
            guard let scalar = Unicode.Scalar(code) else { return }
            text.unicodeScalars.append(scalar)
        }
        count += 1
    }
}
