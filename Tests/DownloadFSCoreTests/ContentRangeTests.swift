import XCTest
@testable import DownloadFSCore

/// R52: Content-Range values.
final class ContentRangeTests: XCTestCase {
    func test_R52_fullForm() {
        XCTAssertEqual(ContentRange.parse("bytes 100-199/1000"), ContentRange(start: 100, end: 199, total: 1000))
        XCTAssertEqual(ContentRange.parse("Bytes 0-0/1"), ContentRange(start: 0, end: 0, total: 1))
    }

    func test_R52_unsatisfiedForm() {
        XCTAssertEqual(ContentRange.parse("bytes */1000"), ContentRange(start: nil, end: nil, total: 1000))
    }

    func test_R52_unknownTotal() {
        XCTAssertEqual(ContentRange.parse("bytes 100-199/*"), ContentRange(start: 100, end: 199, total: nil))
    }

    func test_R52_largeValues() {
        XCTAssertEqual(ContentRange.parse("bytes 4294967296-8589934591/8589934592"),
                       ContentRange(start: 4_294_967_296, end: 8_589_934_591, total: 8_589_934_592))
    }

    func test_R52_malformedIsNil() {
        for text in ["", "bytes", "bytes ", "items 0-1/2", "bytes 0-1", "bytes 5-4/10", "bytes 0-10/10", "bytes */*",
                     "bytes a-b/c", "bytes -1-5/10", "bytes 0-1/2/3", "bytes 1-/10", "0-1/2"] {
            XCTAssertNil(ContentRange.parse(text), text)
        }
    }
}
