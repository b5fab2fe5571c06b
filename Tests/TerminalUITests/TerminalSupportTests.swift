import TerminalUI
import TestSupport
import Testing

@Suite struct TerminalSupportTests {
    @Test(arguments: ["UTF-8", "utf-8", "utf8", "UTF8"])
    func recognisesUTF8Codesets(codeset: String) {
        #expect(TerminalSupport.isUTF8(codeset: codeset))
    }

    @Test(arguments: ["ANSI_X3.4-1968", "ISO-8859-1", "", "UTF-16"])
    func treatsOtherCodesetsAsASCII(codeset: String) {
        #expect(!TerminalSupport.isUTF8(codeset: codeset))
    }

    @Test func coloursAreAllowedByDefault() {
        #expect(TerminalSupport.colorAllowed(noColorFlag: false, environment: ["TERM": "xterm"]))
    }

    @Test func theFlagTurnsColoursOff() {
        #expect(!TerminalSupport.colorAllowed(noColorFlag: true, environment: [:]))
    }

    @Test func noColorTurnsColoursOffUnlessEmpty() {
        #expect(!TerminalSupport.colorAllowed(noColorFlag: false, environment: ["NO_COLOR": "1"]))
        #expect(TerminalSupport.colorAllowed(noColorFlag: false, environment: ["NO_COLOR": ""]))
    }
}
