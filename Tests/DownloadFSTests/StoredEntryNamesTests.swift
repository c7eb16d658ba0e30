import XCTest
@testable import DownloadFS

/// R34: a plain file's name is held while the kernel holds its inode — one
/// reference per entry reply, given back by `forget` — and no longer.
final class StoredEntryNamesTests: XCTestCase {
    func test_R34_aNameIsHeldUntilEveryLookupIsForgotten() {
        let names = StoredEntryNames()
        names.remember(42, name: "a.bin")
        names.remember(42, name: "a.bin")
        XCTAssertEqual(names.name(of: 42), "a.bin")
        names.forget(42, lookups: 1)
        XCTAssertEqual(names.name(of: 42), "a.bin", "one reference is still held")
        names.forget(42, lookups: 1)
        XCTAssertNil(names.name(of: 42))
        XCTAssertEqual(names.count, 0)
    }

    func test_R34_forgetMultiGivesBackSeveralAtOnce() {
        let names = StoredEntryNames()
        for _ in 0..<5 { names.remember(7, name: "x") }
        names.forget(7, lookups: 3)
        XCTAssertEqual(names.name(of: 7), "x")
        names.forget(7, lookups: 2)
        XCTAssertNil(names.name(of: 7))
    }

    func test_R34_theLatestNameIsTheOneKept() {
        let names = StoredEntryNames()
        names.remember(9, name: "old.bin")
        names.renamed(9, to: "new.bin")
        XCTAssertEqual(names.name(of: 9), "new.bin")
        names.remember(9, name: "other.bin")  // a second name (a hard link made behind the mount)
        XCTAssertEqual(names.name(of: 9), "other.bin")
        names.forget(9, lookups: 2)
        XCTAssertNil(names.name(of: 9))
    }

    func test_R34_aRenameOfAnInodeTheKernelDoesNotHoldKeepsNothing() {
        let names = StoredEntryNames()
        names.renamed(5, to: "b.bin")
        XCTAssertNil(names.name(of: 5))
        XCTAssertEqual(names.count, 0)
    }

    func test_R34_namesOfManyFilesGoWhenForgotten() {
        let names = StoredEntryNames()
        for inode in UInt64(1)...100_000 { names.remember(inode, name: "file number \(inode).bin") }
        XCTAssertEqual(names.count, 100_000)
        for inode in UInt64(1)...100_000 { names.forget(inode, lookups: 1) }
        XCTAssertEqual(names.count, 0)
        XCTAssertLessThanOrEqual(names.capacity, 1024 * 2, "the table keeps the room it once needed")
    }
}
