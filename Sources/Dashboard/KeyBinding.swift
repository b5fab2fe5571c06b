internal import BusMonitor
internal import ScreenGrid

/// What a key of the dashboard does, outside the filter prompt and the overlays.
enum DashboardAction: Equatable {
    /// Quit busmon.
    case quit
    /// Pause or resume the display.
    case togglePause
    /// Open the filter prompt.
    case openFilter
    /// Go back from a class's objects in the Observers pane, else clear the filter.
    case back
    /// Focus the Observers pane at the first leak suspect's class (again: the next one).
    case showObservers
    /// Show the help overlay.
    case showHelp
    /// Send a command to the source.
    case command(SourceCommand)
    /// Ask for a value with this prompt, then send the command with it.
    case ask(String, SourceCommand)
    /// Move the focused pane's selection one line up or down.
    case lineUp, lineDown
    /// Move the focused pane's selection a page up or down.
    case pageUp, pageDown
    /// Select the focused pane's first line.
    case first
    /// Select its last line; the log follows again.
    case last
    /// Move focus to the next or previous pane.
    case nextPane, previousPane
    /// Do what Enter does in the focused pane.
    case open
}

/// Keys as a help line or the key bar shows them, and what they do.
struct KeyHint: Equatable {
    /// The keys as shown, such as `g/Home, G/End`.
    let keys: String
    /// What they do: a word for the bar, a line for the help.
    let text: String
}

/// One entry of the key table: one or more keys with the action each sends, one help line for
/// them, and at most one key-bar entry.
///
/// Like bubbles' `key.Binding`: the help overlay, the key bar and key handling all read the
/// same ``KeyMap``, so the bar cannot advertise a key that does nothing.
struct KeyBinding {
    /// Keys and the action each sends, such as `+` for faster and `-` for slower.
    struct Keys: Equatable {
        let keys: [DashboardKey]
        let action: DashboardAction
    }

    let keys: [Keys]
    /// The help overlay's line.
    let help: KeyHint
    /// The key bar's entry, if the bar shows the binding.
    let bar: KeyHint?
    /// Whether the keys work now; a disabled binding shows in neither bar nor help, and its keys
    /// do nothing.
    let isEnabled: Bool

    init(_ keys: [Keys], help: KeyHint, bar: KeyHint? = nil, isEnabled: Bool = true) {
        self.keys = keys
        self.help = help
        self.bar = bar
        self.isEnabled = isEnabled
    }

    init(
        _ keys: [DashboardKey], _ action: DashboardAction, help: KeyHint, bar: KeyHint? = nil,
        isEnabled: Bool = true
    ) {
        self.init([Keys(keys: keys, action: action)], help: help, bar: bar, isEnabled: isEnabled)
    }
}

/// The dashboard's key table for one moment: what each key does, what the key bar shows (most
/// needed first: a narrow screen shows as many as fit) and what the help lists.
struct KeyMap {
    /// Every binding, enabled or not, in the order of the bar and the help.
    let bindings: [KeyBinding]
    /// The key bar's entries. Kept, not worked out when asked: the bar is drawn every frame.
    let bar: [KeyHint]
    /// The help overlay's key lines.
    let help: [KeyHint]

    /// The table of `bindings`, with the bar and the help they make.
    init(bindings: [KeyBinding]) {
        self.bindings = bindings
        let enabled = bindings.filter(\.isEnabled)
        bar = enabled.compactMap(\.bar)
        help = enabled.map(\.help)
    }

    /// The action `key` sends, if an enabled binding has it.
    func action(for key: DashboardKey) -> DashboardAction? {
        for binding in bindings where binding.isEnabled {
            for keys in binding.keys where keys.keys.contains(key) { return keys.action }
        }
        return nil
    }
}

/// What the key table depends on besides the source's commands, which reset the cache
/// themselves when they change.
struct KeyMapInputs: Equatable {
    let isPaused: Bool
    let isFleet: Bool
    let hasSuspects: Bool
    /// The panes shown, whose Enter the help describes.
    let shownPanes: [Int]
}

extension DashboardController {
    /// The key table now: for this source, this focus, paused or not; made again only when
    /// something it shows changed.
    var keyMap: KeyMap {
        let state = shown
        let inputs = KeyMapInputs(
            isPaused: isPaused, isFleet: state.fleet != nil, hasSuspects: state.observers.suspectCount > 0,
            shownPanes: Self.panes.indices.filter { Self.panes[$0].isShown(in: state) })
        if let keyMapCache, keyMapCache.inputs == inputs { return keyMapCache.map }
        let map = makeKeyMap()
        keyMapCache = (inputs, map)
        return map
    }

    /// The key table, made from the state and the source's commands.
    private func makeKeyMap() -> KeyMap {
        let arrows = options.ascii ? "Left/Right" : "←→"
        var bindings: [KeyBinding] = [
            KeyBinding(
                [.character("q"), .character("Q"), .interrupt], .quit,
                help: KeyHint(keys: "q, Ctrl-C", text: "quit"),
                bar: KeyHint(keys: "q", text: "Quit")),
            KeyBinding(
                [.character("?")], .showHelp, help: KeyHint(keys: "?", text: "help"),
                bar: KeyHint(keys: "?", text: "Help")),
            // A replay takes Space itself: it pauses the recording, not the display.
            KeyBinding(
                [.character(" ")], .togglePause,
                help: KeyHint(keys: "Space", text: "pause or resume the display (counting goes on)"),
                bar: KeyHint(keys: "Space", text: isPaused ? "Resume" : "Pause"),
                isEnabled: !sourceCommands.contains { $0.keys.contains { $0.characters.contains(" ") } }),
            KeyBinding(
                [.character("/")], .openFilter,
                help: KeyHint(
                    keys: "/",
                    text: shown.fleet == nil
                        ? "filter the log by type or payload; !text hides matches; "
                            + "Ctrl-W and Ctrl-U erase a word and the line"
                        : "filter the log by type, app or payload; !text hides matches; app:NAME one app; "
                            + "Ctrl-W and Ctrl-U erase a word and the line"),
                bar: KeyHint(keys: "/", text: "Filter")),
            // In the bar only when there is a suspect to jump to, where it is seen first.
            KeyBinding(
                [.character("o")], .showObservers,
                help: KeyHint(
                    keys: "o", text: "the Observers pane at the first leak suspect; again, the next"),
                bar: shown.observers.suspectCount > 0 ? KeyHint(keys: "o", text: "Suspects") : nil),
        ]
        for description in sourceCommands {
            bindings.append(
                KeyBinding(
                    description.keys.map { keys in
                        KeyBinding.Keys(
                            keys: keys.characters.map(DashboardKey.character),
                            action: keys.asks.map { DashboardAction.ask($0, keys.command) }
                                ?? .command(keys.command))
                    },
                    help: KeyHint(keys: description.keyText, text: description.help),
                    bar: KeyHint(keys: description.keyText, text: description.barLabel)))
        }
        bindings += [
            KeyBinding(
                [
                    KeyBinding.Keys(keys: [.tab, .right], action: .nextPane),
                    KeyBinding.Keys(keys: [.backTab, .left], action: .previousPane),
                ],
                help: KeyHint(
                    keys: "Tab/S-Tab, " + arrows,
                    text: "move between panes; Shift-Tab and \(options.ascii ? "Left" : "←") go back"),
                bar: KeyHint(keys: "Tab", text: "Pane")),
            KeyBinding(
                [
                    KeyBinding.Keys(keys: [.character("g"), .home], action: .first),
                    KeyBinding.Keys(keys: [.character("G"), .end], action: .last),
                ], help: KeyHint(keys: "g/Home, G/End", text: "oldest line; newest line and follow"),
                bar: KeyHint(keys: "G", text: "Follow")),
            KeyBinding(
                [.enter], .open,
                help: KeyHint(keys: "Enter", text: Self.enterHelp(in: shown)),
                bar: KeyHint(keys: "Enter", text: "Details")),
            KeyBinding(
                [
                    KeyBinding.Keys(keys: [.up, .character("k")], action: .lineUp),
                    KeyBinding.Keys(keys: [.down, .character("j")], action: .lineDown),
                    KeyBinding.Keys(keys: [.pageUp], action: .pageUp),
                    KeyBinding.Keys(keys: [.pageDown], action: .pageDown),
                ],
                help: KeyHint(
                    keys: glyphs.upDown + ", PgUp/PgDn",
                    text: "move the selection or scroll a box; scrolling up stops following"),
                bar: KeyHint(keys: glyphs.upDown, text: "Scroll")),
            KeyBinding(
                [.escape], .back,
                help: KeyHint(keys: "Esc", text: "close a box; back from a class's objects; clear the filter")
            ),
        ]
        return KeyMap(bindings: bindings)
    }
}
