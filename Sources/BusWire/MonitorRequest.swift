/// A line a monitor sends to the app it watches, over a tap's socket or the connection an app
/// dialled: the one request there is asks for handler calls, which a monitor writing a trace
/// needs and nobody else should pay for.
///
/// ```json
/// {"kind":"trace","calls":true}
/// ```
///
/// The tap answers with `call` records for as long as the request stands: until the monitor
/// sends `"calls":false` or disconnects. A tap ignores any other line.
package enum MonitorRequest: Sendable, Hashable {
    /// Send handler calls (`true`), or stop sending them.
    case traceCalls(Bool)

    /// A line longer than this is not a request; a tap drops what it read of it.
    package static let maximumLength = 4096

    /// The request as one line, ending in `\n`.
    package func encodeLine() -> [UInt8] {
        var writer = JSONLineWriter()
        switch self {
        case .traceCalls(let calls):
            writer.beginRecord("trace")
            writer.field("calls", calls)
        }
        writer.endRecord()
        return writer.bytes
    }

    /// Reads one line (without its `\n`); `nil` for anything that is not a request.
    package static func decode(_ line: ArraySlice<UInt8>) -> MonitorRequest? {
        guard line.count <= maximumLength else { return nil }
        guard let members = JSONLineMembers(line), members.string("kind") == "trace",
            let calls = members.bool("calls")
        else { return nil }
        return .traceCalls(calls)
    }

    /// Takes the requests out of `input`, what a connection sent so far, leaving a line not
    /// finished yet; drops an unfinished line longer than ``maximumLength``, so a stranger's
    /// bytes cost bounded memory.
    package static func take(from input: inout [UInt8]) -> [MonitorRequest] {
        var requests: [MonitorRequest] = []
        var start = 0
        while let newline = input[start...].firstIndex(of: 0x0A) {
            if let request = decode(input[start..<newline]) { requests.append(request) }
            start = newline + 1
        }
        input.removeFirst(start)
        if input.count > maximumLength { input.removeAll() }
        return requests
    }
}
