/// A key the person at the dashboard pressed, as the terminal backend decodes it.
package enum DashboardKey: Hashable, Sendable {
    /// A printable character, such as `q`, `/`, space or `+`.
    case character(Character)
    /// Arrow up.
    case up
    /// Arrow down.
    case down
    /// Arrow left.
    case left
    /// Arrow right.
    case right
    /// Page up.
    case pageUp
    /// Page down.
    case pageDown
    /// Home.
    case home
    /// End.
    case end
    /// Enter or Return.
    case enter
    /// Escape.
    case escape
    /// Tab.
    case tab
    /// Shift-Tab.
    case backTab
    /// Backspace or Delete, for editing the filter.
    case backspace
    /// Ctrl-U: erases the filter being typed.
    case eraseLine
    /// Ctrl-W: erases the last word of the filter being typed.
    case eraseWord
    /// Text the person pasted, taken as text and never as keys: printable characters only,
    /// line breaks and tabs as spaces.
    case paste(String)
    /// Ctrl-C, or SIGINT/SIGTERM delivered to the program.
    case interrupt
}
