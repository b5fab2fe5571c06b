internal import CNCurses
package import ScreenGrid

/// A key as curses reports it, before decoding.
package enum RawKey: Sendable, Equatable {
    /// A character code (`get_wch` returned `OK`), such as 113 for `q` or 27 for Esc.
    case character(UInt32)
    /// A function key (`get_wch` returned `KEY_CODE_YES`), as CNCurses names it: `CNC_KEY_UP`
    /// and the like, `CNC_KEY_OTHER` for keys it does not tell apart.
    case function(Int32)
}

/// Turns what curses reads into dashboard keys.
package enum KeyDecoder {
    /// Decodes one key.
    ///
    /// Enter is 10, 13 or `CNC_KEY_ENTER`; Backspace is `CNC_KEY_BACKSPACE`, 127 or 8, and Delete counts
    /// as Backspace; 3 (Ctrl-C with signals off) is ``DashboardKey/interrupt``; 21 and 23 (Ctrl-U,
    /// Ctrl-W) erase the prompt's line and last word, as in a shell; F1 is `?` (help).
    ///
    /// - Parameter raw: The key as read.
    /// - Returns: The dashboard key, or `nil` for keys the dashboard has no use for.
    package static func decode(_ raw: RawKey) -> DashboardKey? {
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
        case 21: return .eraseLine
        case 23: return .eraseWord
        case 0..<0x20, 0x80..<0xA0: return nil
        default:
            guard let scalar = Unicode.Scalar(code) else { return nil }
            return .character(Character(scalar))
        }
    }

    private static func decodeFunction(_ code: Int32) -> DashboardKey? {
        switch code {
        case CNC_KEY_UP: .up
        case CNC_KEY_DOWN: .down
        case CNC_KEY_LEFT: .left
        case CNC_KEY_RIGHT: .right
        case CNC_KEY_PAGE_UP: .pageUp
        case CNC_KEY_PAGE_DOWN: .pageDown
        case CNC_KEY_HOME: .home
        case CNC_KEY_END: .end
        case CNC_KEY_ENTER: .enter
        case CNC_KEY_BACKSPACE, CNC_KEY_DELETE: .backspace
        case CNC_KEY_F1: .character("?")
        case CNC_KEY_BACK_TAB: .backTab
        default: nil
        }
    }
}
