extension NATSSubject {
    /// The last token of the subject a bridge publishes its bus's snapshots on, twice a second.
    public static let snapshotToken = "_snapshot"
    /// The last token of the subject a bridge publishes its bus's subscriber lifecycle changes on.
    public static let lifecycleToken = "_lifecycle"
    /// The last token of the subject a bridge publishes its own state and counts on.
    public static let bridgeToken = "_bridge"
    /// The last token of the subject a bridge publishes its bus's handler calls on, while a
    /// monitor that writes a trace asks for them.
    public static let callsToken = "_calls"
    /// The subject monitors ask bridges for handler calls on, every second while they write a
    /// trace (`{"kind":"trace","calls":true}`); a bridge sends calls for five seconds after the
    /// last request. Two tokens, so it cannot collide with an app's subjects.
    public static let traceRequestSubject = root + "._trace"

    /// The subject of one of a bridge's monitoring records: `eventbus.<app>.<token>`.
    ///
    /// Event type names never make a token that starts with `_` (``token(for:)`` escapes it), so
    /// these subjects cannot collide with an event type's.
    ///
    /// - Parameters:
    ///   - app: The app's name, as given to the bridge; escaped.
    ///   - token: ``snapshotToken``, ``lifecycleToken`` or ``bridgeToken``; not escaped.
    /// - Returns: The subject.
    public static func monitoringSubject(app: String, token: String) -> String {
        root + "." + self.token(for: app) + "." + token
    }
}
