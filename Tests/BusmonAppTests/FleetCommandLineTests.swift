import Testing

@testable import BusmonApp

/// `--attach nats://…` and `--since`: the fleet's part of busmon's command line.
@Suite struct FleetCommandLineTests {
    @Test func aNATSURLAttachesToTheFleet() throws {
        #expect(
            try options(["--attach", "nats://127.0.0.1:4222"]).source
                == .fleet(url: "nats://127.0.0.1:4222", since: nil))
        #expect(try options(["--attach=NATS://h:1"]).source == .fleet(url: "NATS://h:1", since: nil))
        #expect(try options(["--attach", "/tmp/app.sock"]).source == .attach(path: "/tmp/app.sock"))
    }

    @Test(arguments: [
        ("30s", 30.0), ("10m", 600.0), ("2h", 7200.0), ("1d", 86_400.0), ("90", 90.0), ("1.5m", 90.0),
        ("1e300s", 1e300),
    ])
    func sinceTakesDurations(text: String, seconds: Double) throws {
        let parsed = try options(["--attach", "nats://h:4222", "--since", text])
        #expect(parsed.source == .fleet(url: "nats://h:4222", since: seconds))
    }

    @Test(arguments: [
        (
            ["--attach", "nats://h:1", "--since", "10x"],
            "--since needs a duration such as 30s, 10m or 2h, got '10x'"
        ),
        (
            ["--attach", "nats://h:1", "--since", "-5m"],
            "--since needs a duration such as 30s, 10m or 2h, got '-5m'"
        ),
        (
            ["--attach", "nats://h:1", "--since", "0s"],
            "--since needs a duration such as 30s, 10m or 2h, got '0s'"
        ),
        (
            ["--attach", "nats://h:1", "--since", "1e308d"],
            "--since needs a duration such as 30s, 10m or 2h, got '1e308d'"
        ),
        (
            ["--attach", " nats://alice:s3cret@h:1"],
            "--attach takes a socket path or nats://HOST:PORT; ' nats://alice:***@h:1' looks like a mistyped URL"
        ),
        (
            ["--attach=nats:/alice:s3cret@h:1"],
            "--attach takes a socket path or nats://HOST:PORT; 'nats:***@h:1' looks like a mistyped URL"
        ),
        (
            ["--attach", "127.0.0.1:4222,nats://alice:s3cret@h:1"],
            "--attach takes a socket path or nats://HOST:PORT; '127.0.0.1:4222,nats://alice:***@h:1' looks like a mistyped URL"
        ),
        (["--since", "10m"], "--since only applies to --attach nats://HOST:PORT"),
        (["--attach", "/tmp/a.sock", "--since", "10m"], "--since only applies to --attach nats://HOST:PORT"),
        (
            ["--attach", "nats://h:1", "--rate", "5"],
            "--rate only applies to the simulated app, not to --attach"
        ),
    ])
    func rejectsWhatDoesNotFit(arguments: [String], message: String) {
        #expect(parseError(arguments) == message)
    }
}
