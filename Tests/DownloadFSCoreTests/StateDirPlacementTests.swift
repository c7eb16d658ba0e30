import XCTest
@testable import DownloadFSCore

/// R2: a state dir the mount would cover, or a mountpoint inside the state dir, is refused.
final class StateDirPlacementTests: XCTestCase {
    func test_R2_apartIsFine() {
        XCTAssertNil(StateDirPlacement.problem(stateDir: "/home/u/.local/share/downloadfs", mountpoint: "/home/u/dl"))
        XCTAssertNil(StateDirPlacement.problem(stateDir: "/a/b", mountpoint: "/a/bc"))
        XCTAssertNil(StateDirPlacement.problem(stateDir: "/a/bc", mountpoint: "/a/b"))
        XCTAssertNil(StateDirPlacement.problem(stateDir: "/a/state", mountpoint: "/a/mnt"))
    }

    func test_R2_theSameDirectoryIsRefused() throws {
        let line = try XCTUnwrap(StateDirPlacement.problem(stateDir: "/x/dl", mountpoint: "/x/dl/"))
        XCTAssertTrue(line.contains("is the mountpoint itself"), line)
        XCTAssertTrue(line.contains("--state-dir"), line)
        XCTAssertFalse(line.contains("\n"))
    }

    func test_R2_aStateDirInsideTheMountpointIsRefused() throws {
        let line = try XCTUnwrap(StateDirPlacement.problem(stateDir: "/x/dl/sub/state", mountpoint: "/x/dl"))
        XCTAssertTrue(line.contains("is inside the mountpoint /x/dl"), line)
        // Mounted on /, every state dir would be covered.
        XCTAssertNotNil(StateDirPlacement.problem(stateDir: "/var/state", mountpoint: "/"))
    }

    func test_R2_aMountpointInsideTheStateDirIsRefused() throws {
        let line = try XCTUnwrap(StateDirPlacement.problem(stateDir: "/x/state", mountpoint: "/x/state/files"))
        XCTAssertTrue(line.contains("mountpoint /x/state/files is inside the state dir /x/state"), line)
    }
}
