import CNCurses
public import ScreenGrid

/// A key as curses reports it, before decoding.
public enum RawKey: Sendable, Equatable {
    /// A character code (`get_wch` returned `OK`), such as 113 for `q` or 27 for Esc.
    case character(UInt32)
    /// A curses key code (`get_wch` returned `KEY_CODE_YES`), such as `KEY_UP`.
    case function(Int32)
}

/// Turns what curses reads into dashboard keys.
public enum KeyDecoder {
    /// Decodes one key.
    ///
    /// Enter is 10, 13 or `KEY_ENTER`; Backspace is `KEY_BACKSPACE`, 127 or 8, and Delete counts
    /// as Backspace; 3 (Ctrl-C with signals off) is ``DashboardKey/interrupt``; F1 is `?` (help).
    ///
    /// - Parameter raw: The key as read.
    /// - Returns: The dashboard key, or `nil` for keys the dashboard has no use for.
    public static func decode(_ raw: RawKey) -> DashboardKey? {
        switch raw {
        case .character(let code): decodeCharacter(code)
        case .function(let code): decodeFunction(code)
        }
    }

    private static func decodeCharacter(_ code: UInt32) -> DashboardKey? {
        switch code {
        case 10, 13: return .enter
        case 27: return .escape
        case 9: return .tab
        case 8, 127: return .backspace
        case 3: return .interrupt
        case 0..<0x20, 0x80..<0xA0: return nil
        default:
            guard let scalar = Unicode.Scalar(code) else { return nil }
            return .character(Character(scalar))
        }
    }

    private static func decodeFunction(_ code: Int32) -> DashboardKey? {
        switch code {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_PPAGE: .pageUp
        case KEY_NPAGE: .pageDown
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_ENTER: .enter
        case KEY_BACKSPACE, KEY_DC: .backspace
        case cnc_key_f(1): .character("?")
        default: nil
        }
    }
}
