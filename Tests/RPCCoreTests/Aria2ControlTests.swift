import DownloadFSCore
import RPCCore
import XCTest

/// pause, unpause, changePosition, remove and the results (R72), through the `ctl`s and `rm -r`.
final class Aria2ControlTests: RPCTestCase {
    func test_pauseAndForcePauseWritePause() {
        let id = mount.put("http://h/a", state: .downloading)
        let waiting = mount.put("http://h/b", state: .queued)
        XCTAssertEqual(result("aria2.pause", [gid(id)]), gid(id))
        XCTAssertEqual(result("aria2.forcePause", [gid(waiting)]), gid(waiting))
        XCTAssertEqual(mount.writes, ["ctl \(id) pause", "ctl \(waiting) pause"])
    }

    /// aria2c: "cannot be paused now" for a task already paused or stopped,
    /// where the mount's `pause` would change nothing.
    func test_aPausedOrStoppedTaskCannotBePausedNow() {
        for state in [TaskState.paused, .completed, .failed] {
            let id = mount.put("http://h/\(state)", state: state)
            let error = failure("aria2.pause", [gid(id)])
            XCTAssertEqual(error.code, 1)
            XCTAssertEqual(error.message, "GID#\(Aria2GID.text(id)) cannot be paused now")
        }
        XCTAssertEqual(mount.writes, [])
    }

    func test_unpauseResumesOnlyAPausedTask() {
        let paused = mount.put("http://h/a", state: .paused)
        XCTAssertEqual(result("aria2.unpause", [gid(paused)]), gid(paused))
        XCTAssertEqual(mount.task(paused)?.view.state, .queued)
        let failed = mount.put("http://h/b", state: .failed)
        XCTAssertEqual(failure("aria2.unpause", [gid(failed)]).message, "GID#\(Aria2GID.text(failed)) cannot be unpaused now")
        XCTAssertEqual(mount.task(failed)?.view.state, .failed)
    }

    func test_allCommandsGoToTheMountsCtl() {
        XCTAssertEqual(result("aria2.pauseAll"), .string("OK"))
        XCTAssertEqual(result("aria2.forcePauseAll"), .string("OK"))
        XCTAssertEqual(result("aria2.unpauseAll"), .string("OK"))
        XCTAssertEqual(mount.writes, ["global pause-all", "global pause-all", "global resume-all"])
    }

    func test_changePositionMovesAsAria2cCounts() {
        let ids = (0..<4).map { mount.put("http://h/\($0)") }
        XCTAssertEqual(result("aria2.changePosition", [gid(ids[3]), .integer(0), .string("POS_SET")]), .integer(0))
        XCTAssertEqual(result("aria2.changePosition", [gid(ids[1]), .integer(1), .string("POS_CUR")]), .integer(2))
        XCTAssertEqual(result("aria2.changePosition", [gid(ids[0]), .integer(-1), .string("POS_END")]), .integer(2))
        XCTAssertEqual(result("aria2.changePosition", [gid(ids[0]), .integer(99), .string("POS_SET")]), .integer(3))
        XCTAssertEqual(result("aria2.changePosition", [gid(ids[2]), .integer(-9), .string("POS_CUR")]), .integer(0))
        XCTAssertEqual(mount.writes, ["ctl \(ids[3]) move 0", "ctl \(ids[1]) move 2", "ctl \(ids[0]) move 2",
                                      "ctl \(ids[0]) move 3", "ctl \(ids[2]) move 0"])
        XCTAssertEqual(failure("aria2.changePosition", [gid(ids[0]), .integer(0), .string("POS_X")]).message, "Illegal argument.")
        let active = mount.put("http://h/x", state: .downloading)
        XCTAssertEqual(failure("aria2.changePosition", [gid(active), .integer(0), .string("POS_SET")]).code, 1)
    }

    func test_POS_CURCountsFromTheTasksPlaceInTheLineItsDirectoryTells() {
        let ids = (0..<4).map { mount.put("http://h/\($0)") }
        // Moved before: the last by id stands first in the real line.
        mount.change(ids[3]) { $0.place = 0 }
        XCTAssertEqual(result("aria2.changePosition", [gid(ids[3]), .integer(2), .string("POS_CUR")]), .integer(2))
        mount.change(ids[0]) { $0.place = 3 }
        XCTAssertEqual(result("aria2.changePosition", [gid(ids[0]), .integer(-1), .string("POS_CUR")]), .integer(2))
        XCTAssertEqual(mount.writes, ["ctl \(ids[3]) move 2", "ctl \(ids[0]) move 2"])
    }

    func test_removeCancelsAndKeepsTheResultAsRemoved() {
        let id = mount.put("http://h/a.iso", state: .downloading) { $0.view.total = 10 }
        XCTAssertEqual(result("aria2.forceRemove", [gid(id)]), gid(id))
        XCTAssertEqual(mount.writes, ["rm \(id)"])
        let status = result("aria2.tellStatus", [gid(id)]).objectValue ?? [:]
        XCTAssertEqual(status["status"], .string("removed"))
        XCTAssertEqual(status["errorCode"], .string("31"))
        XCTAssertEqual(status["totalLength"], .string("10"))
    }

    func test_removeNeverTouchesAnEndedTask() {
        let done = mount.put("http://h/a", state: .completed)
        let failed = mount.put("http://h/b", state: .failed)
        XCTAssertEqual(failure("aria2.remove", [gid(done)]).message, "Active Download not found for GID#\(Aria2GID.text(done))")
        _ = failure("aria2.remove", [gid(failed)])
        XCTAssertEqual(mount.writes, [])
    }

    func test_removeDownloadResultForgetsACompletedTaskAndDropsTheRest() {
        let done = mount.put("http://h/a", state: .completed)
        let failed = mount.put("http://h/b", state: .failed)
        let running = mount.put("http://h/c", state: .downloading)
        _ = result("aria2.remove", [gid(running)])
        XCTAssertEqual(result("aria2.removeDownloadResult", [gid(done)]), .string("OK"))
        XCTAssertEqual(result("aria2.removeDownloadResult", [gid(failed)]), .string("OK"))
        XCTAssertEqual(result("aria2.removeDownloadResult", [gid(running)]), .string("OK"))
        XCTAssertEqual(mount.writes, ["rm \(running)", "ctl \(done) forget", "rm \(failed)"])
        XCTAssertEqual(failure("aria2.tellStatus", [gid(running)]).message, "GID \(Aria2GID.text(running)) is not found")
    }

    func test_removeDownloadResultRefusesAnUnfinishedTask() {
        let id = mount.put("http://h/a", state: .queued)
        XCTAssertEqual(failure("aria2.removeDownloadResult", [gid(id)]).message,
                       "Could not remove download result of GID#\(Aria2GID.text(id))")
        XCTAssertEqual(mount.writes, [])
    }

    func test_purgeForgetsCompletedRemovesFailedAndDropsRemoved() {
        let done = mount.put("http://h/a", state: .completed)
        let failed = mount.put("http://h/b", state: .failed)
        let running = mount.put("http://h/c", state: .downloading)
        let waiting = mount.put("http://h/d")
        _ = result("aria2.remove", [gid(running)])
        XCTAssertEqual(result("aria2.purgeDownloadResult"), .string("OK"))
        XCTAssertEqual(mount.writes, ["rm \(running)", "global forget-completed", "rm \(failed)"])
        XCTAssertNil(mount.task(done))
        XCTAssertNotNil(mount.task(waiting))
        XCTAssertEqual(result("aria2.tellStopped", [.integer(0), .integer(10)]), .array([]))
    }
}
