import FuseKit
import XCTest

/// The packed listing gives back every name, inode and kind as appended,
/// names of any length and UTF-8 included, each ending in a NUL.
final class DirectoryListingTests: XCTestCase {
    func test_R34_namesComeBackAsAppended() {
        var listing = DirectoryListing()
        let names = [".", "..", "", "a b (1).iso", String(repeating: "é", count: 127) + ".bin", "new"]
        for (index, name) in names.enumerated() {
            listing.append(name, inode: UInt64(index) << 62 | 7, isDirectory: index % 2 == 0)
        }
        XCTAssertEqual(listing.count, names.count)
        for (index, name) in names.enumerated() {
            XCTAssertEqual(listing.name(index), name)
            XCTAssertEqual(listing.inode(index), UInt64(index) << 62 | 7)
            XCTAssertEqual(listing.isDirectory(index), index % 2 == 0)
            listing.withEntry(index) { cName, _, _ in
                XCTAssertEqual(strlen(cName), name.utf8.count, "NUL-ended at the name's end")
            }
        }
    }

    /// A million names cost their bytes and a few more each, not an
    /// allocation per name (measured from outside in scripts/bench).
    func test_R34_aMillionNamesStayPacked() {
        var listing = DirectoryListing()
        for i in 0..<1_000_000 { listing.append("image\(i % 1000) (\(i / 1000)).jpg", inode: UInt64(i), isDirectory: false) }
        XCTAssertEqual(listing.count, 1_000_000)
        XCTAssertEqual(listing.name(999_999), "image999 (999).jpg")
    }
}
