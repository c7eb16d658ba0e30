import DownloadFSCore
import XCTest

final class SpeedLimitTests: XCTestCase {
    func test_R30_taskLimitAloneApplies() {
        XCTAssertEqual(SpeedLimit.effective(task: 500, global: 0, running: 3), 500)
    }

    func test_R31_globalLimitIsSharedEquallyAmongRunningTasks() {
        XCTAssertEqual(SpeedLimit.effective(task: 0, global: 900, running: 3), 300)
    }

    func test_R30_R31_lowerOfTaskLimitAndShareWins() {
        XCTAssertEqual(SpeedLimit.effective(task: 100, global: 900, running: 3), 100)
        XCTAssertEqual(SpeedLimit.effective(task: 1000, global: 900, running: 3), 300)
    }

    func test_noLimitsMeansNone() {
        XCTAssertEqual(SpeedLimit.effective(task: 0, global: 0, running: 5), 0)
    }

    func test_shareNeverRoundsDownToNone() {
        XCTAssertEqual(SpeedLimit.effective(task: 0, global: 2, running: 5), 1)
        XCTAssertEqual(SpeedLimit.effective(task: 0, global: 900, running: 0), 900)
    }
}
