import DownloadFSCore
import XCTest

final class TaskReportAttributeTests: XCTestCase {
    private func value(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    func test_theThreeTextsComeBackAsTheyWent() {
        let status = "id: 3\nstate: downloading\n"
        let mirrors = "http://a/x.iso\nhttp://b/x.iso\n"
        let ranges = "0-1048576,2097152-3000000"
        let joined = TaskReportAttribute.joined(status: Array(status.utf8), mirrors: Array(mirrors.utf8),
                                                ranges: Array(ranges.utf8))
        let parts = TaskReportAttribute.parts(of: value(joined))
        XCTAssertEqual(parts?.status, status)
        XCTAssertEqual(parts?.mirrors, mirrors)
        XCTAssertEqual(parts?.ranges, ranges)
    }

    func test_noMirrorsAndNoRangesAreEmptyParts() {
        let joined = TaskReportAttribute.joined(status: Array("id: 1\n".utf8), mirrors: [], ranges: [])
        XCTAssertEqual(joined.filter { $0 == 0 }.count, 2)
        let parts = TaskReportAttribute.parts(of: value(joined))
        XCTAssertEqual(parts?.status, "id: 1\n")
        XCTAssertEqual(parts?.mirrors, "")
        XCTAssertEqual(parts?.ranges, "")
    }

    func test_aValueWithoutThreePartsIsNotOne() {
        XCTAssertNil(TaskReportAttribute.parts(of: "id: 1\nstate: queued\n"), "a plain status, as an older mount's")
        XCTAssertNil(TaskReportAttribute.parts(of: "id: 1\n\0"))
        XCTAssertNil(TaskReportAttribute.parts(of: "a\0b\0c\0d"))
    }
}
