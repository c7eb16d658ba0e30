import DownloadFSCore
import XCTest

final class WaitingLineAttributeTests: XCTestCase {
    func test_aLineThatFitsIsItsIdsOnePerLine() {
        let value = WaitingLineAttribute.value([7, 3, 12])
        XCTAssertEqual(String(decoding: value, as: UTF8.self), "7\n3\n12\n")
        XCTAssertEqual(WaitingLineAttribute.parse("7\n3\n12\n")?.ids, [7, 3, 12])
        XCTAssertEqual(WaitingLineAttribute.parse("7\n3\n12\n")?.more, 0)
        XCTAssertEqual(WaitingLineAttribute.value([]), [])
        XCTAssertEqual(WaitingLineAttribute.parse("")?.ids, [])
    }

    func test_aLongLineIsCutAtAWholeIdAndCountsTheRest() {
        let ids = Array(Int64(100_000)..<Int64(120_000))  // 7 bytes a line: 140,000 bytes in all
        let value = WaitingLineAttribute.value(ids)
        XCTAssertLessThanOrEqual(value.count, WaitingLineAttribute.capacity)
        let parsed = WaitingLineAttribute.parse(String(decoding: value, as: UTF8.self))
        XCTAssertEqual(parsed?.ids, Array(ids.prefix(parsed?.ids.count ?? 0)), "a prefix, in order")
        XCTAssertEqual((parsed?.ids.count ?? 0) + (parsed?.more ?? 0), ids.count, "every task counted")
        XCTAssertGreaterThan(parsed?.ids.count ?? 0, 9_000)
    }

    func test_theCutLeavesRoomForItsOwnCount() {
        // Three ids of 2 bytes: a capacity of 6 holds all three, 5 holds one and "+2\n".
        XCTAssertEqual(String(decoding: WaitingLineAttribute.value([1, 2, 3], capacity: 6), as: UTF8.self), "1\n2\n3\n")
        XCTAssertEqual(String(decoding: WaitingLineAttribute.value([1, 2, 3], capacity: 5), as: UTF8.self), "1\n+2\n")
    }

    func test_whatIsNotALineIsNil() {
        XCTAssertNil(WaitingLineAttribute.parse("3\nx\n"))
        XCTAssertNil(WaitingLineAttribute.parse("3\n+0\n"))
        XCTAssertNil(WaitingLineAttribute.parse("+2\n3\n"), "the count is the last line")
        XCTAssertNil(WaitingLineAttribute.parse("-3\n"))
    }
}
