/// A command line busmon cannot run, with the one-line reason to show.
package struct CommandLineError: Error, Equatable, CustomStringConvertible {
    /// Why the command line was rejected, such as "--rate needs a whole number from 1 to 1000000, got 'abc'".
    package let message: String

    /// Creates an error with the reason to show.
    package init(_ message: String) {
        self.message = message
    }

    /// The reason, as printed after "busmon: ".
    package var description: String { message }
}
