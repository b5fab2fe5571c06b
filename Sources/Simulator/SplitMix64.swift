/// A small, fast, seedable random number generator (SplitMix64).
///
/// The simulation draws every choice from one of these, so the same seed and the same calls
/// give the same run on every machine; `SystemRandomNumberGenerator` cannot be seeded.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    ///
    /// - Parameter seed: Any value; equal seeds give equal sequences.
    package init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SplitMix64 {
    /// A number in `0..<bound`, drawn with arithmetic fixed here rather than the standard
    /// library's, so that runs stay reproducible across toolchains.
    mutating func nextInt(below bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A number in `0..<1`.
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// One element of `elements`, which must not be empty.
    mutating func pick<C: RandomAccessCollection>(_ elements: C) -> C.Element {
        elements[elements.index(elements.startIndex, offsetBy: nextInt(below: elements.count))]
    }
}
