/// Where jitter comes from: the system's generator in the daemon, a seeded one in tests, so a
/// test on the manual clock knows when each poll falls.
public struct RandomSource: Sendable {
    private let make: @Sendable () -> any RandomNumberGenerator

    public init(_ make: @escaping @Sendable () -> any RandomNumberGenerator) {
        self.make = make
    }

    /// A generator for one loop of waits.
    public func generator() -> any RandomNumberGenerator {
        make()
    }

    public static let system = RandomSource { SystemRandomNumberGenerator() }

    /// The same numbers every time for `seed`, each generator made from it starting afresh.
    public static func seeded(_ seed: UInt64) -> RandomSource {
        RandomSource { SplitMix64(seed: seed) }
    }
}

/// SplitMix64: small, fast, and good enough for jitter; deterministic for a seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
