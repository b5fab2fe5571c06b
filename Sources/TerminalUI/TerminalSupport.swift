/// The decisions about what the terminal may show that do not need curses, kept apart so they
/// can be tested.
package enum TerminalSupport {
    /// Whether a locale's character encoding is UTF-8, so box drawing and block characters show.
    ///
    /// - Parameter codeset: The name `nl_langinfo(CODESET)` gives, such as "UTF-8" or
    ///   "ANSI_X3.4-1968".
    package static func isUTF8(codeset: String) -> Bool {
        let normalized = codeset.lowercased().filter { $0 != "-" && $0 != "_" }
        return normalized == "utf8"
    }

    /// Whether colours may be used, before asking the terminal whether it has them.
    ///
    /// Colours are off with `--no-color` or when `NO_COLOR` is set to anything but the empty
    /// string, as the convention at no-color.org asks.
    ///
    /// - Parameters:
    ///   - noColorFlag: Whether `--no-color` was given.
    ///   - environment: The process environment.
    package static func colorAllowed(noColorFlag: Bool, environment: [String: String]) -> Bool {
        if noColorFlag { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return true
    }
}
