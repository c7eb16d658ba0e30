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

    // MARK: R19 mirrors

    func test_R19_aTaskWithoutMirrorsHasOnlyItsURL() {
        let task = newTask(TaskOptions())
        XCTAssertEqual(task.mirrors, [])
        XCTAssertEqual(task.droppedMirrors, [])
        XCTAssertEqual(task.liveURLs, ["https://h/a"])
        XCTAssertEqual(task.normalizedURLs, ["https://h/a"])
    }

    func test_R19_liveURLsAreTheFirstURLThenTheMirrorsNotDropped() {
        var task = newTask(TaskOptions(mirrors: ["https://m1/a", "https://m2/a", "https://m3/a"]))
        XCTAssertEqual(task.mirrors, ["https://m1/a", "https://m2/a", "https://m3/a"])
        XCTAssertEqual(task.liveURLs, ["https://h/a", "https://m1/a", "https://m2/a", "https://m3/a"])
        task.droppedMirrors = ["https://m2/a"]
        XCTAssertEqual(task.mirrors.count, 3, "mirrors keeps the dropped ones")
        XCTAssertEqual(task.liveURLs, ["https://h/a", "https://m1/a", "https://m3/a"])
        task.droppedMirrors = ["https://m2/a", "https://h/a"]
        XCTAssertEqual(task.liveURLs, ["https://m1/a", "https://m3/a"], "the first URL dropped too")
        task.droppedMirrors += ["https://m1/a", "https://m3/a"]
        XCTAssertEqual(task.liveURLs, [])
    }

    func test_R19_R13_normalizedURLsHoldEveryURLOnce() {
        let task = newTask(TaskOptions(mirrors: ["HTTPS://M1:443/a#x", "https://h/a", "https://m1/a", "ftp://m2/a"]))
        XCTAssertEqual(task.normalizedURLs, ["https://h/a", "https://m1/a", "ftp://m2/a"])
    }
}
