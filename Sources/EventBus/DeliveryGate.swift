import Synchronization

/// Lets a delivery observer with a bounded buffer turn deliveries away before the bus builds
/// them, and counts each one it turned away.
///
/// A monitor's buffer that is full between two drains drops what comes. Told so through its
/// handler, the bus would first build each event's ``DeliveryRecord`` (the event as an
/// existential, its type's name, its trace), announce the wildcard list and call the handler,
/// only for the record to be thrown away: most of what watching costs a publisher flat out.
/// With a gate, the owner closes it when the buffer fills and opens it when it drains; while
/// every delivery observer's gate is closed, a publish counts one refusal in each and builds
/// nothing for them.
///
/// Exactly once: a publish that finds any delivery observer open (a closed gate beside an open
/// one, or an observer without a gate) delivers as usual, and counts no refusal; the handlers
/// behind closed gates then see the event and drop it themselves, as they would without a gate.
@usableFromInline
package final class DeliveryGate: Sendable {
    /// Set while the owner turns deliveries away.
    @usableFromInline package let isClosed = Atomic<Bool>(false)
    /// Deliveries turned away so far: by the bus while the gate was closed, and by the owner,
    /// which counts its own drops here too, so that one number holds them all.
    @usableFromInline package let refused = Atomic<Int>(0)

    /// Creates an open gate.
    package init() {}

    /// Whether the gate turns deliveries away now; a relaxed load, so a publish may see a
    /// change a little late, which the owner's own check covers.
    @inlinable @inline(__always)
    package var turnsAway: Bool { isClosed.load(ordering: .relaxed) }

    /// Counts a delivery turned away.
    @inlinable @inline(__always)
    package func countRefusal() {
        refused.wrappingAdd(1, ordering: .relaxed)
    }
}
