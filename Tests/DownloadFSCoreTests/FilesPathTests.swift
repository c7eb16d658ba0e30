import XCTest
@testable import DownloadFSCore

/// `FilesPath`: places under files/ (R35), and `dir=` as the input takes it.
final class FilesPathTests: XCTestCase {
    func test_R35_partsOfAPlace() {
        XCTAssertEqual(FilesPath.join("", "a.iso"), "a.iso")
        XCTAssertEqual(FilesPath.join("music/live", "a.iso"), "music/live/a.iso")
        XCTAssertEqual(FilesPath.folder(of: "a.iso"), "")
        XCTAssertEqual(FilesPath.folder(of: "music/live/a.iso"), "music/live")
        XCTAssertEqual(FilesPath.name(of: "music/live/a.iso"), "a.iso")
        XCTAssertEqual(FilesPath.name(of: "a.iso"), "a.iso")
    }

    func test_R35_insideAFolderIsBelowItNotBeside() {
        XCTAssertTrue(FilesPath.isInside("music/a.iso", folder: "music"))
        XCTAssertTrue(FilesPath.isInside("music/live/a.iso", folder: "music"))
        XCTAssertFalse(FilesPath.isInside("music", folder: "music"))
        XCTAssertFalse(FilesPath.isInside("musicals/a.iso", folder: "music"))
        XCTAssertFalse(FilesPath.isInside("a.iso", folder: "music"))
        XCTAssertEqual(FilesPath.moved("music/live/a.iso", from: "music", to: "audio/old"), "audio/old/live/a.iso")
        XCTAssertEqual(FilesPath.moved("müsik/a", from: "müsik", to: "m"), "m/a")
    }

    func test_R35_aValidPlaceHasOnlyNamesR17Keeps() {
        for valid in ["a", "a/b", "a b/c (1).iso", "ü/ß"] { XCTAssertTrue(FilesPath.isValid(valid), valid) }
        for invalid in ["", "/a", "a/", "a//b", ".a", "a/.b", "a/..", "a/\u{1}b"] {
            XCTAssertFalse(FilesPath.isValid(invalid), invalid)
        }
    }

    func test_R35_dirOptionIsRelativeAndEachPartSanitised() {
        XCTAssertEqual(try FilesPath.folder(fromOption: "music").get(), "music")
        XCTAssertEqual(try FilesPath.folder(fromOption: "music/live 2024").get(), "music/live 2024")
        XCTAssertEqual(try FilesPath.folder(fromOption: ".hidden/a\u{7}b").get(), "hidden/ab", "as R17 does a name")
        for refused in ["", "/abs", "a//b", "a/", ".", "..", "a/../b", "a/./b", "..."] {
            XCTAssertThrowsError(try FilesPath.folder(fromOption: refused).get(), refused)
        }
        XCTAssertEqual(FilesPath.folder(fromOption: "/etc").failure?.reason, "an absolute path (a folder is relative to files/)")
    }

    /// A folder the finished file could never be moved into is refused when written (R35, R11).
    func test_R35_aFolderTooLongForAPathIsRefused() {
        let fits = Array(repeating: "abcdefgh", count: 227).joined(separator: "/")  // 2042 bytes
        XCTAssertEqual(try FilesPath.folder(fromOption: fits).get(), fits)
        let deep = Array(repeating: "abcdefgh", count: 900).joined(separator: "/")
        XCTAssertTrue(FilesPath.folder(fromOption: deep).failure?.reason.contains("at most 2048") == true)
    }

    func test_R17_collisionSuffixGoesOnTheNameNotTheFolder() {
        XCTAssertEqual(FileName.withCollisionSuffix("m.d/a.iso", 1), "m.d/a (1).iso")
        XCTAssertEqual(FileName.withCollisionSuffix("m.d/a", 2), "m.d/a (2)")
        XCTAssertEqual(FileName.collisionBase(of: "m.d/a (1).iso")?.0, "m.d/a.iso")
        XCTAssertEqual(FileName.collisionBase(of: "m.d/a (1).iso")?.1, 1)
        XCTAssertNil(FileName.collisionBase(of: "m (1)/a.iso"))
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
