import Foundation
import GRDB
import XCTest
import DownloadFSCore

/// The catalog writes dates itself; they must be exactly GRDB's text, which
/// `loadTasks` decodes (and older catalogs hold).
final class StoredDateTests: XCTestCase {
    func test_storedDatesAreGRDBsTextForEveryKindOfInstant() throws {
        var generator = SystemRandomNumberGenerator()
        var instants: [Double] = [0, 0.999, 1, 951_782_400.5, 1_795_000_000.123, 4_102_444_799.999, -1.5, -86_400.25]
        for _ in 0..<2000 { instants.append(Double.random(in: -2_000_000_000...30_000_000_000, using: &generator)) }
        for seconds in instants {
            let date = Date(timeIntervalSince1970: seconds)
            guard case .string(let expected) = date.databaseValue.storage else { return XCTFail("not text") }
            XCTAssertEqual(StoredDate.text(date), expected, "\(seconds)")
        }
    }

    func test_yearsBeyondFourDigitsAreLeftToGRDB() {
        XCTAssertNil(StoredDate.text(Date(timeIntervalSince1970: 300_000_000_000)))
        XCTAssertNil(StoredDate.text(Date(timeIntervalSince1970: -70_000_000_000)))
    }
}
