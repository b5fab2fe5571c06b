/// How the dashboard draws, as the terminal and the person allow.
package struct DashboardOptions: Sendable, Equatable {
    /// ASCII glyphs only: no box drawing, no block characters in sparklines, no arrows. For
    /// terminals whose locale is not UTF-8.
    package var ascii: Bool
    /// Whether styles carry colours; `false` when `NO_COLOR` is set or `--no-color` is given.
    /// Bold, dim and reverse remain, so selection and highlights still show.
    package var color: Bool

    /// Creates options.
    ///
    /// - Parameters:
    ///   - ascii: ASCII glyphs only.
    ///   - color: Whether to use colours.
    package init(ascii: Bool = false, color: Bool = true) {
        self.ascii = ascii
        self.color = color
    }
}
