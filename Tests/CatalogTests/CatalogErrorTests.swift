@testable import Catalog
import GRDB
import XCTest

final class CatalogErrorTests: XCTestCase {
    func test_R54_aFullDiskSaysWhatToDo() {
        let full = CatalogError("save tasks", DatabaseError(resultCode: .SQLITE_FULL))
        XCTAssertTrue(full.message.hasSuffix("; " + CatalogError.diskFullHint), full.message)
        let ours = CatalogError("save tasks", CatalogError("SQLite error 13 (database or disk is full) in COMMIT TRANSACTION"))
        XCTAssertTrue(ours.message.hasSuffix("; " + CatalogError.diskFullHint), ours.message)
        let other = CatalogError("save tasks", DatabaseError(resultCode: .SQLITE_CORRUPT))
        XCTAssertFalse(other.message.contains("disk is full"), other.message)
        XCTAssertTrue(CatalogError("save tasks", DatabaseError(resultCode: .SQLITE_FULL), hint: "given").message.hasSuffix("; given"))
    }
}
