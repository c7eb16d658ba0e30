import TestSupport
import XCTest
@testable import DownloadFSCore

/// `PartialDataCorrection`: what of a task's committed ranges its partial
/// file still backs (R51), the one rule of the mount and of each attempt's open.
final class PartialDataCorrectionTests: XCTestCase {
    private let held = ByteRanges([0..<100, 200..<300])

    func test_R51_aFileAsLongAsTheLastRangeBacksThemAll() {
        XCTAssertNil(PartialDataCorrection.of(held, partialSize: 300))
        XCTAssertNil(PartialDataCorrection.of(held, partialSize: 1000))
    }

    func test_R51_nothingHeldNeedsNoFile() {
        XCTAssertNil(PartialDataCorrection.of(ByteRanges(), partialSize: nil))
        XCTAssertNil(PartialDataCorrection.of(ByteRanges(), partialSize: 0))
    }

    func test_R51_aMissingFileStartsOver() {
        let correction = PartialDataCorrection.of(held, partialSize: nil)
        XCTAssertEqual(correction?.ranges, ByteRanges())
        XCTAssertEqual(correction?.line, "partial data is missing; starting over")
    }

    func test_R51_aShorterFileKeepsWhatItHolds() {
        let correction = PartialDataCorrection.of(held, partialSize: 250)
        XCTAssertEqual(correction?.ranges, ByteRanges([0..<100, 200..<250]))
        XCTAssertEqual(correction?.line, "partial data is shorter than its checkpoint; continuing from 150 bytes")
        XCTAssertEqual(PartialDataCorrection.of(held, partialSize: 0)?.ranges, ByteRanges())
    }
}
