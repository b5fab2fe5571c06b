/// Records lost between an app and busmon so far, as a source's batches count them: what an
/// app's tap or a fleet's bridge could not send, what busmon's own buffers could not hold, or
/// what a recording says was lost when it was made.
///
/// busmon says them once more when it ends, on stderr: the screen that showed them is gone
/// then, and the `dropped` lines of a headless run may have gone to a file nobody reads.
package struct RecordLosses: Sendable, Hashable {
    /// Events dropped on the way.
    package var events: Int
    /// Lifecycle changes (subscribes, reclaims, leak reports) dropped on the way.
    package var lifecycleChanges: Int
    /// Records of apps past the most a fleet lists at once, dropped apart from the others.
    package var fromAppsPastTheLimit: Int
    /// Handler calls lost on the way while a trace asked for them: the trace lacks their slices.
    package var handlerCalls: Int

    /// Losses of these sizes.
    package init(
        events: Int = 0, lifecycleChanges: Int = 0, fromAppsPastTheLimit: Int = 0, handlerCalls: Int = 0
    ) {
        self.events = events
        self.lifecycleChanges = lifecycleChanges
        self.fromAppsPastTheLimit = fromAppsPastTheLimit
        self.handlerCalls = handlerCalls
    }

    /// Whether nothing was lost.
    package var isEmpty: Bool {
        events == 0 && lifecycleChanges == 0 && fromAppsPastTheLimit == 0 && handlerCalls == 0
    }

    /// What was lost, in words, such as "1200 events and 3 lifecycle changes dropped on the
    /// way"; `nil` when nothing was.
    package var phrase: String? {
        var parts: [String] = []
        if events > 0 { parts.append(Self.count(events, "event", "events")) }
        if lifecycleChanges > 0 {
            parts.append(Self.count(lifecycleChanges, "lifecycle change", "lifecycle changes"))
        }
        if handlerCalls > 0 { parts.append(Self.count(handlerCalls, "handler call", "handler calls")) }
        let listed =
            parts.count > 1
            ? parts.dropLast().joined(separator: ", ") + " and " + parts.last! : parts.first ?? ""
        var phrase = parts.isEmpty ? "" : listed + " dropped on the way"
        if fromAppsPastTheLimit > 0 {
            if !phrase.isEmpty { phrase += "; " }
            phrase += Self.count(fromAppsPastTheLimit, "record", "records")
            phrase += " of apps past the \(FleetState.maximumMembers) listed dropped"
        }
        return phrase.isEmpty ? nil : phrase
    }

    private static func count(_ value: Int, _ one: String, _ many: String) -> String {
        "\(value) \(value == 1 ? one : many)"
    }
}
