import XCTest
@testable import DownloadFSCore

/// R22, R23: a task's data file never takes the name of a fixed file of its directory.
final class TaskDirectoryNamesTests: XCTestCase {
    func test_R23_aTaskNamedLikeAFixedFileHasItsDataUnderTheNextFreeName() {
        for name in ["status", "url", "ctl", "log", "wait"] {
            XCTAssertEqual(TaskDirectoryNames.dataFile(ofTaskNamed: name), "\(name) (1)")
        }
    }

    func test_R23_everyOtherNameIsTheTasksOwn() {
        for name in ["file.iso", "status (1)", "Status", "status.txt", "logs", "ctl.tar.gz", "download"] {
            XCTAssertEqual(TaskDirectoryNames.dataFile(ofTaskNamed: name), name)
        }
    }

    func test_R23_theDataNameIsNeverAFixedOne() {
        for name in TaskDirectoryNames.fixed {
            XCTAssertFalse(TaskDirectoryNames.fixed.contains(TaskDirectoryNames.dataFile(ofTaskNamed: name)))
        }
        XCTAssertEqual(TaskDirectoryNames.fixed, ["status", "url", "ctl", "log", "wait"])
    }
}
