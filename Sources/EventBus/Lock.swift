/// A value that many threads share, reachable only under its lock: a ``LockedValueBox`` with
/// the spelling the rest of the package uses (`withLock`, `current`).
package final class LockedValue<Value> {
    private let box: LockedValueBox<Value>

    /// Creates the box holding `initialValue`.
    package init(_ initialValue: Value) {
        box = LockedValueBox(initialValue)
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try box.withLockedValue(body)
    }

    /// A copy of the value as it is now.
    package var current: Value {
        withLock { $0 }
    }
}

extension LockedValue: Sendable where Value: Sendable {}
