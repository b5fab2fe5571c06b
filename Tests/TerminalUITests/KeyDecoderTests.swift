import CNCurses
import ScreenGrid
import TerminalUI
import TestSupport
import Testing

@Suite struct KeyDecoderTests {
    @Test(arguments: [
        (CNC_KEY_UP, DashboardKey.up), (CNC_KEY_DOWN, .down), (CNC_KEY_LEFT, .left), (CNC_KEY_RIGHT, .right),
        (CNC_KEY_PAGE_UP, .pageUp), (CNC_KEY_PAGE_DOWN, .pageDown), (CNC_KEY_HOME, .home),
        (CNC_KEY_END, .end),
        (CNC_KEY_ENTER, .enter), (CNC_KEY_BACKSPACE, .backspace), (CNC_KEY_DELETE, .backspace),
        (CNC_KEY_BACK_TAB, .backTab),
    ])
    func decodesFunctionKeys(code: Int32, key: DashboardKey) {
        #expect(KeyDecoder.decode(.function(code)) == key)
    }

    @Test func functionKeyOneAsksForHelp() {
        #expect(KeyDecoder.decode(.function(CNC_KEY_F1)) == .character("?"))
    }

    @Test(arguments: [
        (UInt32(10), DashboardKey.enter), (13, .enter), (27, .escape), (9, .tab), (127, .backspace),
        (8, .backspace), (3, .interrupt), (21, .eraseLine), (23, .eraseWord),
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
        #expect(KeyDecoder.decode(.function(CNC_KEY_RESIZE)) == nil)  // the terminal handles resizes
        #expect(KeyDecoder.decode(.function(CNC_KEY_OTHER)) == nil)
    }
}
