import XCTest
@testable import DownloadFSCore

/// The loop's jitter source (R53's spread back-offs).
final class SplitMix64Tests: XCTestCase {
    func test_matchesTheReferenceSequence() {
        // The first outputs of the published algorithm for seed 0.
        var generator = SplitMix64(seed: 0)
        XCTAssertEqual((0..<3).map { _ in generator.next() },
                       [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
    }

    func test_jitterSpreadsOverTheWholeRange() {
        var generator = SplitMix64(seed: 42)
        let draws = (0..<1000).map { _ in Double.random(in: 0..<1, using: &generator) }
        XCTAssertTrue(draws.allSatisfy { (0..<1).contains($0) })
        // Each tenth of the range gets some: back-offs do not bunch up.
        let tenths = Set(draws.map { Int($0 * 10) })
        XCTAssertEqual(tenths, Set(0..<10))
    }

    func test_seedsGiveDifferentSequences() {
        var a = SplitMix64(seed: 1)
        var b = SplitMix64(seed: 2)
        XCTAssertNotEqual((0..<4).map { _ in a.next() }, (0..<4).map { _ in b.next() })
    }
}
