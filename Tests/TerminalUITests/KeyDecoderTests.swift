import CNCurses
import ScreenGrid
import TerminalUI
import TestSupport
import Testing

@Suite struct KeyDecoderTests {
    @Test(arguments: [
        (KEY_UP, DashboardKey.up), (KEY_DOWN, .down), (KEY_LEFT, .left), (KEY_RIGHT, .right),
        (KEY_PPAGE, .pageUp), (KEY_NPAGE, .pageDown), (KEY_HOME, .home), (KEY_END, .end),
        (KEY_ENTER, .enter), (KEY_BACKSPACE, .backspace), (KEY_DC, .backspace),
    ])
    func decodesCursesKeyCodes(code: Int32, key: DashboardKey) {
        #expect(KeyDecoder.decode(.function(code)) == key)
    }

    @Test func functionKeyOneAsksForHelp() {
        #expect(KeyDecoder.decode(.function(cnc_key_f(1))) == .character("?"))
    }

    @Test(arguments: [
        (UInt32(10), DashboardKey.enter), (13, .enter), (27, .escape), (9, .tab), (127, .backspace),
        (8, .backspace), (3, .interrupt),
    ])
    func decodesControlCharacters(code: UInt32, key: DashboardKey) {
        #expect(KeyDecoder.decode(.character(code)) == key)
    }

    @Test func decodesPrintableCharactersIncludingNonASCII() {
        #expect(KeyDecoder.decode(.character(113)) == .character("q"))
        #expect(KeyDecoder.decode(.character(32)) == .character(" "))
        #expect(KeyDecoder.decode(.character(0xE9)) == .character("é"))
        #expect(KeyDecoder.decode(.character(0x41F)) == .character("П"))
    }

    @Test func ignoresKeysTheDashboardHasNoUseFor() {
        #expect(KeyDecoder.decode(.character(1)) == nil)  // Ctrl-A
        #expect(KeyDecoder.decode(.character(0x85)) == nil)  // a C1 control
        #expect(KeyDecoder.decode(.character(0xD800)) == nil)  // a lone surrogate is no character
        #expect(KeyDecoder.decode(.function(KEY_RESIZE)) == nil)  // the terminal handles resizes
        #expect(KeyDecoder.decode(.function(cnc_key_f(5))) == nil)
    }
}
