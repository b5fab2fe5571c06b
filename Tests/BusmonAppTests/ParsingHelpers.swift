import Testing

@testable import BusmonApp

/// The options busmon's command line `arguments` give; records an issue if they ask for help.
func options(_ arguments: [String]) throws -> BusmonOptions {
    let command = try CommandLineParser.parse(arguments)
    guard case .run(let options) = command else {
        Issue.record("expected options for \(arguments), got \(command)")
        return BusmonOptions()
    }
    return options
}

/// The message busmon gives for `arguments`, or `nil` if it takes them.
func parseError(_ arguments: [String]) -> String? {
    do {
        _ = try CommandLineParser.parse(arguments)
        return nil
    } catch {
        return error.message
    }
}
