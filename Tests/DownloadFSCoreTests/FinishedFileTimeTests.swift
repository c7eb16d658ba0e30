import DownloadFSCore
import Foundation
import XCTest

final class FinishedFileTimeTests: XCTestCase {
    func test_R40_theServersLastModifiedElseWhenTheFileLandedInWholeSeconds() {
        let landed = Date(timeIntervalSince1970: 1_800_000_000.869)
        XCTAssertEqual(FinishedFileTime.landed(landed), Date(timeIntervalSince1970: 1_800_000_000))
        XCTAssertEqual(FinishedFileTime.modified(lastModified: nil, landedAt: landed), Date(timeIntervalSince1970: 1_800_000_000))
        XCTAssertEqual(FinishedFileTime.modified(lastModified: "Sun, 06 Nov 1994 08:49:37 GMT", landedAt: landed),
                       Date(timeIntervalSince1970: 784_111_777))
        XCTAssertEqual(FinishedFileTime.modified(lastModified: "not a date", landedAt: landed), Date(timeIntervalSince1970: 1_800_000_000))
        XCTAssertNil(FinishedFileTime.modified(lastModified: nil, landedAt: nil))
    }

    func test_R40_aTimeNoFilesystemKeepsIsClampedToOneItDoes() {
        XCTAssertEqual(FinishedFileTime.modified(lastModified: "Mon, 01 Jan 0001 00:00:00 GMT", landedAt: nil),
                       Date(timeIntervalSince1970: Double(Int32.min)), "1901-12-13T20:45:52Z, as ext4 stores it")
        XCTAssertEqual(FinishedFileTime.modified(lastModified: "Fri, 31 Dec 9999 23:59:59 GMT", landedAt: nil),
                       Date(timeIntervalSince1970: 17_179_869_183))
    }
}
