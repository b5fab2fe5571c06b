extension Int {
    /// `self + other`, held at `Int.max` (or `Int.min`) where the sum would overflow.
    ///
    /// Counts a monitor adds up may come from another process, a recording or the network, and
    /// are not trusted to be small: a snapshot whose counts are each near `Int.max` is well
    /// formed, and a sum of two of them must show as the largest count, not end the monitor.
    @inlinable
    package func clampedAdding(_ other: Int) -> Int {
        let (sum, overflowed) = addingReportingOverflow(other)
        guard overflowed else { return sum }
        return other < 0 ? .min : .max
    }

    /// `self - other`, held at `Int.max` (or `Int.min`) where the difference would overflow; see
    /// ``clampedAdding(_:)``.
    package func clampedSubtracting(_ other: Int) -> Int {
        let (difference, overflowed) = subtractingReportingOverflow(other)
        guard overflowed else { return difference }
        return other < 0 ? .max : .min
    }

    /// Adds `other` to `self`, held at `Int.max` (or `Int.min`) where the sum would overflow;
    /// see ``clampedAdding(_:)``.
    package mutating func clampedAdd(_ other: Int) {
        self = clampedAdding(other)
    }
}

extension Sequence {
    /// The sum of `count` over the elements, held at `Int.max` where it would overflow; see
    /// ``Swift/Int/clampedAdding(_:)``. A loop rather than `reduce`, which a debug build
    /// calls a closure for twice per element; inlinable, so that the monitor's modules get it
    /// specialized for their rows rather than a generic loop that copies each through its
    /// type's witnesses.
    @inlinable
    package func clampedSum(_ count: (Element) -> Int) -> Int {
        var total = 0
        for element in self { total = total.clampedAdding(count(element)) }
        return total
    }
}
