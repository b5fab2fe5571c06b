import Foundation
import Simulator
import Testing

@testable import BusmonApp

@Suite struct CommandLineParserTests {
    @Test func noArgumentsGiveTheDefaults() throws {
        let parsed = try options([])
        #expect(parsed == BusmonOptions())
        #expect(parsed.rate == BusmonOptions.defaultRate)
        #expect(parsed.seed == nil)
        #expect(parsed.duration == nil)
        #expect(parsed.source == .simulator(rate: BusmonOptions.defaultRate, seed: nil))
    }

    @Test func readsEveryDisplayAndSimulatorFlag() throws {
        let parsed = try options([
            "--rate", "50", "--seed", "7", "--duration", "2.5", "--ascii", "--no-color",
        ])
        #expect(
            parsed == BusmonOptions(rate: 50, seed: 7, duration: 2.5, ascii: true, noColor: true))
        #expect(parsed.source == .simulator(rate: 50, seed: 7))
    }

    @Test func theRateLimitIsTheSimulatedAppsOwnAndHelpSaysIt() throws {
        #expect(CommandLineParser.maximumRate == Int(SimulatedApp.maximumRate))
        #expect(
            try CommandLineParser.parse(["--rate", "\(CommandLineParser.maximumRate)"])
                == .run(BusmonOptions(rate: CommandLineParser.maximumRate)))
        #expect(CommandLineParser.usage.contains("1 to \(CommandLineParser.maximumRate)"))
    }

    @Test func acceptsValuesAfterAnEqualsSign() throws {
        let parsed = try options(["--rate=75", "--duration=0.5", "--record=out.jsonl"])
        #expect(parsed.rate == 75)
        #expect(parsed.duration == 0.5)
        #expect(parsed.recordPath == "out.jsonl")
    }

    @Test func theLastOfARepeatedFlagWins() throws {
        #expect(try options(["--rate", "10", "--rate", "20"]).rate == 20)
    }

    @Test func readsTheSourceAndOutputModes() throws {
        let attach = try options(["--attach", "/tmp/app.sock", "--record", "a.jsonl", "--headless"])
        #expect(attach.source == .attach(path: "/tmp/app.sock"))
        #expect(attach.recordPath == "a.jsonl")
        #expect(attach.headless)

        let replay = try options(["--replay", "a.jsonl", "--speed", "4"])
        #expect(replay.source == .replay(path: "a.jsonl", speed: 4))
        // Decimals in every spelling a person writes them, the slowest speed and full speed
        for (text, speed) in [
            (".5", 0.5), ("2.", 2), ("1e3", 1_000), ("2.5E+1", 25), ("0.001", 0.001), ("2e6", 2e6),
        ] {
            #expect(
                try options(["--replay", "r", "--speed", text]).source == .replay(path: "r", speed: speed))
        }
    }

    @Test(arguments: [["--help"], ["-h"], ["--rate", "abc", "--help"], ["--frob", "-h"]])
    func helpWinsOverEverythingElse(arguments: [String]) throws {
        #expect(try CommandLineParser.parse(arguments) == .help)
    }

    @Test func helpAfterDoubleDashIsAnArgumentNotAFlag() {
        #expect(parseError(["--", "--help"]) == "unexpected argument '--help'")
    }

    @Test(arguments: [
        (["--rate", "abc"], "--rate needs a whole number from 1 to 10000000, got 'abc'"),
        (["--rate", "-5"], "--rate needs a whole number from 1 to 10000000, got '-5'"),
        (["--rate", "0"], "--rate needs a whole number from 1 to 10000000, got '0'"),
        (["--rate", "2.5"], "--rate needs a whole number from 1 to 10000000, got '2.5'"),
        (["--rate", "10000001"], "--rate needs a whole number from 1 to 10000000, got '10000001'"),
        (["--rate"], "--rate needs a value"),
        (["--rate", "--ascii"], "--rate needs a value"),
        (["--seed", "-1"], "--seed needs a whole number of 0 or more, got '-1'"),
        (["--duration"], "--duration needs a value"),
        (["--duration", "0"], "--duration needs a number of seconds greater than 0, got '0'"),
        (
            ["--duration", "nan"],
            "--duration needs a number of seconds written in decimals, such as 4 or 0.5, got 'nan'"
        ),
        (
            ["--duration", "inf"],
            "--duration needs a number of seconds written in decimals, such as 4 or 0.5, got 'inf'"
        ),
        (
            ["--duration", "soon"],
            "--duration needs a number of seconds written in decimals, such as 4 or 0.5, got 'soon'"
        ),
        (["--replay", "a", "--speed", "-2"], "--speed needs a speed factor greater than 0, got '-2'"),
        // Hexadecimal, which Double(_:) reads, is no way to write a speed or a time.
        (
            ["--replay", "a", "--speed", "0x10"],
            "--speed needs a speed factor written in decimals, such as 4 or 0.5, got '0x10'"
        ),
        (
            ["--duration", "0x10"],
            "--duration needs a number of seconds written in decimals, such as 4 or 0.5, got '0x10'"
        ),
        (
            ["--duration", "1e"],
            "--duration needs a number of seconds written in decimals, such as 4 or 0.5, got '1e'"
        ),
        (
            ["--duration", "."],
            "--duration needs a number of seconds written in decimals, such as 4 or 0.5, got '.'"
        ),
        (["--replay", "a", "--speed", "1e400"], "--speed: '1e400' is too large a number"),
        (["--replay", "a", "--speed", "1e-9"], "--speed needs a speed factor of at least 0.001, got '1e-9'"),
        (["--attach", ""], "--attach needs a non-empty path"),
        (["--record="], "--record needs a non-empty path"),
        (
            ["--listen", ":7777"],
            "--listen needs HOST:PORT, such as 127.0.0.1:7777 or 0.0.0.0:7777, got ':7777'"
        ),
        (["--frob"], "unknown option '--frob'"),
        (["-x"], "unknown option '-x'"),
        (["extra"], "unexpected argument 'extra'"),
        (["--ascii=yes"], "--ascii takes no value"),
    ])
    func rejectsMalformedCommandLines(arguments: [String], message: String) {
        #expect(parseError(arguments) == message)
    }

    @Test(arguments: [
        (["--attach", "s", "--replay", "r"], "--attach and --replay cannot be used together"),
        (["--speed", "2"], "--speed only applies to --replay"),
        (["--at", "1:12"], "--at only applies to --replay"),
        (
            ["--replay", "r", "--at", "soon"],
            "--at needs a time such as 1:12, 1:02:03 or 72.4 (seconds), got 'soon'"
        ),
        (["--attach", "s", "--rate", "5"], "--rate only applies to the simulated app, not to --attach"),
        (["--replay", "r", "--seed=3"], "--seed only applies to the simulated app, not to --replay"),
        (["--replay", "r", "--record", "w"], "--record cannot be used with --replay"),
        (["--replay", "-"], "--replay - (standard input) needs --headless; the dashboard reads keys there"),
    ])
    func rejectsFlagsThatContradictEachOther(arguments: [String], message: String) {
        #expect(parseError(arguments) == message)
    }

    @Test func usageMentionsEveryFlag() {
        for flag in [
            "--rate", "--seed", "--duration", "--ascii", "--no-color", "--help", "--attach", "--record",
            "--replay", "--speed", "--headless", "--since",
        ] {
            #expect(CommandLineParser.usage.contains(flag), "usage lacks \(flag)")
        }
        #expect(CommandLineParser.usage.hasPrefix("usage: busmon"))
    }
}

/// The README's synopsis, checked against the parser, so that it can only show what busmon takes.
@Suite struct ReadmeSynopsisTests {
    @Test func everyFormTheSynopsisShowsIsAccepted() throws {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n").map(String.init)
        let forms = lines.filter { $0.hasPrefix("busmon [") || $0.hasPrefix("busmon --") }
        #expect(forms.count >= 4, "the synopsis lists busmon's forms")
        let output = lines.first { $0.hasPrefix("OUTPUT: ") }.map { String($0.dropFirst("OUTPUT: ".count)) }
        for form in forms {
            // Every optional part present, placeholders filled in, the trailing comment dropped.
            var text = form.components(separatedBy: "    ").first ?? form
            text = text.replacingOccurrences(of: "[OUTPUT]", with: output ?? "")
            for (placeholder, value) in [
                ("PATH", "/tmp/app.sock"), ("FILE", "r.jsonl"), ("SECONDS", "1"), ("N", "5"), ("X", "2"),
                ("DURATION", "10m"), ("HOST:PORT", "127.0.0.1:7777"), ("TOKEN", "k3y-0123456789"),
                ("TIME", "1:12"),
            ] {
                text = text.replacingOccurrences(of: " \(placeholder)", with: " \(value)")
            }
            let arguments = text.replacingOccurrences(of: "[", with: "").replacingOccurrences(
                of: "]", with: ""
            )
            .split(separator: " ").dropFirst().map(String.init)
            #expect(throws: Never.self, "\(form)") { try CommandLineParser.parse(arguments) }
        }
    }
}
