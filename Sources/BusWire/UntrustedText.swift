/// Text that came from an app or the network, made safe to write where a terminal reads it.
///
/// An app's name, an event type, a refusal's reason: anyone who can reach a socket or a port
/// chooses these bytes. Written raw to a terminal, `ESC ] 0 ; … BEL` sets the window title,
/// `ESC [ 2 J` clears the screen, a newline forges a line, and on some terminals OSC 52 writes
/// the clipboard. Every such string passes ``escaped(_:keepingNewlines:)`` before busmon writes
/// it to stderr (the dashboard draws through a cell grid, which shows no control character, and
/// JSON output escapes them itself).
package enum UntrustedText {
    /// `text` with each control character shown as a visible escape instead: C0 controls, DEL
    /// and C1 controls as `\u{1B}` and the like, the bidirectional marks, overrides and isolates
    /// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) that reorder what a terminal
    /// shows, the line and paragraph separators (U+2028, U+2029), and the characters that show
    /// nothing at all, with which a stranger's name passes for another's (`Log\u{200B}in` for
    /// `Login`): the soft hyphen, zero-width spaces and joiners, the word joiner and invisible
    /// operators, fillers, the byte order mark, interlinear annotations and tags.
    ///
    /// - Parameters:
    ///   - text: What an app or a peer sent.
    ///   - keepingNewlines: Keeps `\n` as a line break; for text busmon composed around parts
    ///     already escaped. A name or a notice keeps none, so it cannot forge a line of its own.
    package static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingNewlines: keepingNewlines) })
        else {
            return text
        }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepingNewlines: keepingNewlines) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, keepingNewlines: Bool) -> Bool {
        switch scalar.value {
        case 0x0A: !keepingNewlines
        case 0x00...0x1F: true
        default: isHiddenOrReordering(scalar.value)
        }
    }

    /// Whether the scalar `value` is one a terminal must not be handed raw, C0 controls aside:
    /// DEL and the C1 controls, the bidirectional marks, overrides and isolates, the line and
    /// paragraph separators, and the characters that show nothing. The JSON writer escapes the
    /// same ones, so that what busmon writes on stderr and in JSON hides nothing differently.
    package static func isHiddenOrReordering(_ value: UInt32) -> Bool {
        switch value {
        case 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        // Invisible: soft hyphen, combining grapheme joiner, Hangul and Mongolian fillers and
        // separators, zero-width space, non-joiner and joiner, word joiner and invisible
        // operators (U+2060-U+206F), byte order mark, interlinear annotations, tags.
        case 0x00AD, 0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B...0x180F, 0x200B...0x200D,
            0x2060...0x206F, 0x3164, 0xFEFF, 0xFFA0, 0xFFF9...0xFFFB, 0x1D173...0x1D17A, 0xE0000...0xE007F:
            true
        default: false
        }
    }
}
