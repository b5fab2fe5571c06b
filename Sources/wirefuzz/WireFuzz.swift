import BusMonitor
import BusWire
import CFuzzerDriver

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Checks one input as the tap's wire reader and the recording reader see it: each line must
/// decode to a record or a thrown error, and a record must survive being encoded and decoded
/// again unchanged. A failed check traps, which libFuzzer reports with the input that caused it.
///
/// - Returns: How many lines the input has and how many of them decoded to a record.
@discardableResult
func checkWireInput(_ bytes: UnsafeBufferPointer<UInt8>) -> (lines: Int, records: Int) {
    var lines = 0
    var records = 0
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        lines += 1
        guard let record = try? FeedRecord.decode(line: line) else { continue }
        records += 1
        // Times are written to the microsecond, so the first encoding may round; from then on
        // encoding and decoding must agree exactly.
        let encoded = record.encodeLine()
        let again = try? FeedRecord.decode(line: encoded)
        precondition(again?.encodeLine() == encoded, "a decoded record did not survive re-encoding")
    }
    return (lines, records)
}

/// Built for fuzzing (`-DFUZZING`, with libFuzzer linked in; see README.md, "Fuzzing for
/// longer"), the program hands its command line to libFuzzer, which generates inputs for
/// ``checkWireInput(_:)``.
#if FUZZING
    @main
    enum WireFuzz {
        static func main() {
            var argc = CommandLine.argc
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
            exit(
                LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                    checkWireInput(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
                    return 0
                })
        }
    }
#else
    /// Built without libFuzzer, the program checks the files named on its command line, such as
    /// an input libFuzzer saved when a check failed, or a whole recording.
    @main
    enum WireFuzz {
        static let usage = """
            usage: wirefuzz FILE...

            Checks each file as tap wire or recording input: every line must decode to a record
            or an error, and a record must encode and decode again unchanged. Built with
            libFuzzer (see README.md, "Fuzzing for longer"), it generates inputs itself.
            """

        static func main() {
            let paths = CommandLine.arguments.dropFirst()
            if paths.contains("--help") {
                print(usage)
                exit(0)
            }
            if paths.isEmpty || paths.contains(where: { $0.hasPrefix("-") }) {
                printError(
                    (paths.isEmpty ? "wirefuzz: no input files" : "wirefuzz: unknown option") + "\n" + usage)
                exit(2)
            }
            for path in paths {
                let contents: [UInt8]
                do throws(RecordingError) {
                    contents = try ReplaySource.readFile(path)
                } catch {
                    if case .unreadable(_, let reason) = error {
                        printError("wirefuzz: cannot read '\(path)': \(reason)")
                    } else {
                        printError("wirefuzz: \(error)")
                    }
                    exit(1)
                }
                let counts = contents.withUnsafeBufferPointer { checkWireInput($0) }
                print("\(path): \(counts.lines) line(s), \(counts.records) record(s), all checks passed")
            }
        }

        /// Writes `message` and a newline to standard error.
        private static func printError(_ message: String) {
            _ = (message + "\n").withCString { write(2, $0, strlen($0)) }
        }
    }
#endif
