import Foundation
import XCTest
@testable import DownloadFSCore

/// What a new task starts with, taken from the options it was added with.
final class DownloadTaskTests: XCTestCase {
    private func newTask(_ options: TaskOptions) -> DownloadTask {
        DownloadTask(url: "https://h/a", normalizedURL: "https://h/a", options: options, name: "a",
                     addedAt: Date(timeIntervalSince1970: 1_800_000_000), position: 1)
    }

    /// R18: `split=N` is the task's own count; without it the task follows the daemon's default.
    func test_R18_aNewTasksSplitIsItsSplitOption() {
        XCTAssertEqual(newTask(TaskOptions(split: 6)).split, 6)
        XCTAssertNil(newTask(TaskOptions()).split, "nil: the daemon's --split or MOUNT/ctl split N")
    }

    func test_R10_aNewTasksSpeedLimitIsItsMaxDownloadLimit() {
        XCTAssertEqual(newTask(TaskOptions(maxDownloadLimit: 2048)).speedLimit, 2048)
        XCTAssertEqual(newTask(TaskOptions()).speedLimit, 0)
    }
}
