import DownloadFSCore
import Foundation

/// A reproducible random number generator for randomised tests (the
/// daemon's own `SplitMix64`), shared by every test target that needs one.
///
/// Each run draws a fresh seed, so runs explore different cases; every
/// failure message carries `description`, and setting
/// `DOWNLOADFS_TEST_SEED` to the seed it names replays that run exactly.
public struct SeededGenerator: RandomNumberGenerator, CustomStringConvertible {
    public let seed: UInt64
    private var generator: SplitMix64

    public init(seed: UInt64) {
        self.seed = seed
        generator = SplitMix64(seed: seed)
    }

    /// The seed from `DOWNLOADFS_TEST_SEED` if set, else a random one.
    public static func fromEnvironment() -> SeededGenerator {
        if let text = ProcessInfo.processInfo.environment["DOWNLOADFS_TEST_SEED"], let seed = UInt64(text) {
            return SeededGenerator(seed: seed)
        }
        return SeededGenerator(seed: UInt64.random(in: .min ... .max))
    }

    public mutating func next() -> UInt64 { generator.next() }

    public var description: String { "seed \(seed) (replay with DOWNLOADFS_TEST_SEED=\(seed))" }
}
