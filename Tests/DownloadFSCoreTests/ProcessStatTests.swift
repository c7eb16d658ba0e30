import XCTest

@testable import DownloadFSCore

final class ProcessStatTests: XCTestCase {
    func testStateAndParentAreReadAfterTheLastParenthesisOfTheName() {
        XCTAssertEqual(ProcessStat(line: "7 (a) b) (c) S 321 7 7 0"), ProcessStat(line: "7 (x) S 321 1"))
        XCTAssertEqual(ProcessStat(line: "7 (a) b) (c) S 321 7 7 0")?.parent, 321)
        XCTAssertEqual(ProcessStat(line: "9 (sh) Z 1 9")?.state, "Z")
        XCTAssertNil(ProcessStat(line: "7 (sh)"))
        XCTAssertNil(ProcessStat(line: "7 (sh) S x"))
        XCTAssertNil(ProcessStat(line: "garbage"))
    }

    /// `downloadfs unmount` waits until a door has let go of `MOUNT/events`:
    /// a zombie leader with a thread still exiting has not.
    func testEndedWhenGoneOrAZombieWithNoThreadLeft() {
        XCTAssertTrue(ProcessStat.hasEnded(nil, threads: 0))
        XCTAssertTrue(ProcessStat.hasEnded(ProcessStat(line: "9 (downloadfs) Z 1 9"), threads: 1))
        XCTAssertFalse(ProcessStat.hasEnded(ProcessStat(line: "9 (downloadfs) Z 1 9"), threads: 2))
        XCTAssertFalse(ProcessStat.hasEnded(ProcessStat(line: "9 (downloadfs) S 1 9"), threads: 1))
    }
}
