import XCTest
@testable import DownloadFSCore

/// R4, R24, R34: a task `wait` finds gone by its turn is reported by what
/// `MOUNT/events` said of it — forgotten means it had completed.
final class GoneTaskEndingsTests: XCTestCase {
    private func endings(_ lines: [String], watching ids: [Int64]? = nil) -> GoneTaskEndings {
        var endings = GoneTaskEndings()
        if let ids { endings.watch(only: ids) }
        for line in lines { endings.take(Substring(line)) }
        return endings
    }

    func test_R34_aForgottenTaskHadCompletedUnderTheNameItsLineGives() {
        let seen = endings([
            "1795691116.052 8 downloading g10.bin",
            "1795691117.100 8 completed g10.bin\n",
            "1795691118.200 8 forgotten my file.bin\n",
        ], watching: [7, 8])
        XCTAssertEqual(seen.ending(ofGone: 8), .ended(.completed, name: "my file.bin"), "a name with a space ends the line")
    }

    func test_R32_aRemovedTaskFailedAsItsWaitSays() {
        let seen = endings(["1795691116.052 8 completed g10.bin", "1795691117.052 8 removed g10.bin"])
        XCTAssertEqual(seen.ending(ofGone: 8), .ended(.failed("task removed"), name: nil))
        XCTAssertEqual(TaskEnding.failed(GoneTaskEndings.removed).line(id: 8, name: nil), "8 failed: task removed")
    }

    func test_R24_aTaskWhoseLeavingLineIsNotReadYetIsUntold() {
        let seen = endings(["1795691116.052 8 completed g10.bin", "1795691116.060 9 forgotten other.bin",
                            "1795691117.000 - lost 12"])
        XCTAssertEqual(seen.ending(ofGone: 8), .untold, "completed alone: it is still there, or its line is coming")
        XCTAssertEqual(seen.ending(ofGone: 7), .untold)
    }

    func test_R4_onlyTheWatchedTasksAreKept() {
        var seen = endings(["1 3 forgotten a.bin", "2 4 forgotten b.bin"])
        XCTAssertEqual(seen.ending(ofGone: 3), .ended(.completed, name: "a.bin"), "every task until the ids are known")
        seen.watch(only: [4, 5])
        XCTAssertEqual(seen.ending(ofGone: 3), .untold, "dropped once the ids are known")
        XCTAssertEqual(seen.ending(ofGone: 4), .ended(.completed, name: "b.bin"), "kept: it is waited on")
        seen.take("3 3 removed a.bin")
        seen.take("4 5 removed c.bin")
        XCTAssertEqual(seen.ending(ofGone: 3), .untold)
        XCTAssertEqual(seen.ending(ofGone: 5), .ended(.failed("task removed"), name: nil))
    }

    func test_R24_linesThatAreNoTasksChangeArePassedOver() {
        let seen = endings(["", "garbage", "1 x forgotten a", "1 -3 forgotten", "1 3", "1 3 forgotten"])
        XCTAssertEqual(seen.ending(ofGone: 3), .ended(.completed, name: nil), "no name: - is printed")
        XCTAssertEqual(seen.ending(ofGone: -3), .untold, "not a task id (ids are 1, 2, …): passed over")
    }
}
