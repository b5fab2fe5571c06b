/// One control a source offers: a command, or a pair such as faster and slower, with the keys
/// that send each and how the monitor's key bar and help name it.
///
/// ```swift
/// package var supportedCommands: [SourceCommandDescription] {
///     [SourceCommandDescription(
///         keys: [.init(command: SourceCommand("destroy-screens"), characters: ["c"])], keyText: "c",
///         barLabel: "Destroy", help: "close a batch of screens at once")]
/// }
/// ```
package struct SourceCommandDescription: Sendable, Equatable {
    /// A command and the characters that send it.
    package struct Keys: Sendable, Equatable {
        /// The command sent.
        package var command: SourceCommand
        /// The characters that send it, such as `+` and `=` (the unshifted `+`).
        package var characters: [Character]
        /// For a command that needs a value, the prompt that asks for it, such as `Go to
        /// (mm:ss, h:mm:ss or seconds)`; the command is sent with what was typed. `nil` sends it at once.
        package var asks: String?

        /// Creates keys for a command.
        ///
        /// - Parameters:
        ///   - command: The command sent.
        ///   - characters: The characters that send it.
        ///   - asks: The prompt that asks for the command's value first, if it needs one.
        package init(command: SourceCommand, characters: [Character], asks: String? = nil) {
            self.command = command
            self.characters = characters
            self.asks = asks
        }
    }

    /// Each command of the control and the characters that send it.
    package var keys: [Keys]
    /// The keys as the key bar and the help show them, such as `+/-`.
    package var keyText: String
    /// A word for the key bar, such as `Rate`.
    package var barLabel: String
    /// A line for the help, such as `publish faster / slower (simulated app)`.
    package var help: String

    /// Creates a description.
    ///
    /// - Parameters:
    ///   - keys: Each command and the characters that send it.
    ///   - keyText: The keys as shown, such as `+/-`.
    ///   - barLabel: A word for the key bar.
    ///   - help: A line for the help.
    package init(keys: [Keys], keyText: String, barLabel: String, help: String) {
        self.keys = keys
        self.keyText = keyText
        self.barLabel = barLabel
        self.help = help
    }

    /// `+` plays a recording faster and `-` slower.
    package static let replaySpeed = faster(andSlower: "Speed", help: "play the recording faster / slower")

    /// Space pauses a replay where it is, and plays on from there.
    package static func replayPause(isPaused: Bool) -> SourceCommandDescription {
        SourceCommandDescription(
            keys: [Keys(command: .togglePlayback, characters: [" "])], keyText: "Space",
            barLabel: isPaused ? "Play" : "Pause",
            help: "pause the replay where it is, or play on from there (at the end, from the start)"
        )
    }

    /// `,` steps a replay back one event and `.` on one event, pausing it.
    package static let replayStep = SourceCommandDescription(
        keys: [
            Keys(command: .stepBack, characters: [","]),
            Keys(command: .stepForward, characters: ["."]),
        ], keyText: ",/.", barLabel: "Step",
        help: "step one event back / on (pauses); every pane shows the bus as it was")

    /// `<` jumps a replay ten seconds back and `>` ten seconds on; `t` asks for a time to go to.
    package static let replayJump = SourceCommandDescription(
        keys: [
            Keys(command: .jumpBack, characters: ["<"]),
            Keys(command: .jumpForward, characters: [">"]),
            Keys(command: .goTo, characters: ["t"], asks: "Go to (mm:ss, h:mm:ss or seconds)"),
        ], keyText: "</>, t", barLabel: "Jump",
        help:
            "jump ten seconds back / on in the recording; t goes to a time typed as mm:ss, h:mm:ss or seconds"
    )

    /// `n` finds the next log line the filter shows in a replay, and `N` the previous one.
    package static let replayFind = SourceCommandDescription(
        keys: [
            Keys(command: .findNext, characters: ["n"]),
            Keys(command: .findPrevious, characters: ["N"]),
        ], keyText: "n/N", barLabel: "Find",
        help: "go to the next / previous log line the filter shows (every line without one)")

    /// `+` (or `=`) for ``SourceCommand/increaseRate``, `-` (or `_`) for
    /// ``SourceCommand/decreaseRate``, shown as `+/-`, with `label` in the key bar and `help` in
    /// the help.
    package static func faster(andSlower label: String, help: String) -> SourceCommandDescription {
        SourceCommandDescription(
            keys: [
                Keys(command: .increaseRate, characters: ["+", "="]),
                Keys(command: .decreaseRate, characters: ["-", "_"]),
            ], keyText: "+/-", barLabel: label, help: help)
    }
}
