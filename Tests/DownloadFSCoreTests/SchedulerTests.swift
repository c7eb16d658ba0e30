import XCTest
@testable import DownloadFSCore

/// R16, R30 (`start`, `top`), R31 (`max-active`).
final class SchedulerTests: XCTestCase {
    private func task(_ id: Int64, _ state: TaskState, position: Int64? = nil, startedAt: Double? = nil) -> SchedulableTask {
        SchedulableTask(id: id, state: state, position: position ?? id, startedAt: startedAt)
    }

    func test_R16_fillsFreeSlotsFirstAddedFirst() {
        let tasks = (1...6).map { task($0, .queued) }
        XCTAssertEqual(Scheduler.plan(tasks, maxActive: 3), SchedulePlan(start: [1, 2, 3], demote: []))
    }

    func test_R16_onlyFreeSlotsAreFilled() {
        let tasks = [task(1, .downloading, startedAt: 1), task(2, .downloading, startedAt: 2),
                     task(3, .queued), task(4, .queued)]
        XCTAssertEqual(Scheduler.plan(tasks, maxActive: 3), SchedulePlan(start: [3]))
    }

    /// A task whose bytes are all in waits for its group's flush (R51),
    /// its checksum or its move out of its slot: the next one downloads.
    func test_R16_verifyingHoldsNoSlot() {
        let tasks = [task(1, .downloading, startedAt: 1), task(2, .verifying, startedAt: 2),
                     task(3, .queued), task(4, .queued)]
        XCTAssertEqual(Scheduler.plan(tasks, maxActive: 3), SchedulePlan(start: [3, 4]))
    }

    func test_R16_noFreeSlotStartsNothing() {
        let tasks = [task(1, .downloading, startedAt: 1), task(2, .downloading, startedAt: 2), task(3, .queued)]
        XCTAssertEqual(Scheduler.plan(tasks, maxActive: 2), .nothing)
    }

    func test_R16_positionDecidesOrderThenId() {
        let tasks = [task(1, .queued, position: 10), task(2, .queued, position: -5), task(3, .queued, position: 10),
                     task(4, .queued, position: 3)]
        XCTAssertEqual(Scheduler.plan(tasks, maxActive: 3).start, [2, 4, 1])
    }

    func test_R16_pausedIsNeverStartedAutomatically() {
        let tasks = [task(1, .paused, position: 0), task(2, .queued)]
        XCTAssertEqual(Scheduler.plan(tasks, maxActive: 3).start, [2])
    }

    func test_R16_onlyQueuedTasksAreStarted() {
        let tasks = [task(1, .paused), task(2, .retrying), task(3, .failed), task(4, .completed)]
        XCTAssertEqual(Scheduler.plan(tasks, maxActive: 5), .nothing)
    }

    func test_R31_loweringMaxActiveDemotesMostRecentlyStarted() {
        let tasks = [task(1, .downloading, startedAt: 10), task(2, .downloading, startedAt: 30),
                     task(3, .downloading, startedAt: 20), task(4, .downloading, startedAt: 5), task(5, .queued)]
        XCTAssertEqual(Scheduler.plan(tasks, maxActive: 2), SchedulePlan(start: [], demote: [2, 3]))
    }

    func test_R31_verifyingIsNeverDemoted() {
        let tasks = [task(1, .verifying, startedAt: 100), task(2, .downloading, startedAt: 1),
                     task(3, .verifying, startedAt: 50)]
        XCTAssertEqual(Scheduler.plan(tasks, maxActive: 0), SchedulePlan(demote: [2]))
    }

    func test_R31_maxActiveZeroDemotesEveryDownload() {
        let tasks = [task(1, .downloading, startedAt: 1), task(2, .downloading, startedAt: 2), task(3, .queued)]
        XCTAssertEqual(Scheduler.plan(tasks, maxActive: 0), SchedulePlan(demote: [2, 1]))
    }

    func test_R30_startWithAFreeSlotJustStarts() {
        let tasks = [task(1, .downloading, startedAt: 1), task(2, .paused)]
        XCTAssertEqual(Scheduler.startNow(2, in: tasks, maxActive: 3), SchedulePlan(start: [2]))
    }

    func test_R30_startWhenBusyDemotesTheEarliestStarted() {
        let tasks = [task(1, .downloading, startedAt: 20), task(2, .downloading, startedAt: 10),
                     task(3, .verifying, startedAt: 1), task(4, .queued, position: 99)]
        XCTAssertEqual(Scheduler.startNow(4, in: tasks, maxActive: 2), SchedulePlan(start: [4], demote: [2]))
    }

    func test_R30_startWorksFromQueuedPausedFailedAndRetrying() {
        for state in [TaskState.queued, .paused, .failed, .retrying] {
            let tasks = [task(1, state)]
            XCTAssertEqual(Scheduler.startNow(1, in: tasks, maxActive: 1), SchedulePlan(start: [1]), "\(state)")
        }
    }

    func test_R30_startOfRunningFinishedOrUnknownTaskDoesNothing() {
        for state in [TaskState.downloading, .verifying, .completed] {
            XCTAssertEqual(Scheduler.startNow(1, in: [task(1, state)], maxActive: 1), .nothing, "\(state)")
        }
        XCTAssertEqual(Scheduler.startNow(42, in: [task(1, .queued)], maxActive: 1), .nothing)
    }

    func test_R30_startWhenAllSlotsVerifyingStartsWithoutDemotion() {
        let tasks = [task(1, .verifying, startedAt: 1), task(2, .queued)]
        XCTAssertEqual(Scheduler.startNow(2, in: tasks, maxActive: 1), SchedulePlan(start: [2]))
    }

    func test_R30_topIsBeforeEveryWaitingTask() {
        let tasks = [task(1, .queued, position: 5), task(2, .paused, position: 3), task(3, .queued, position: 7)]
        let top = Scheduler.topPosition(in: tasks)
        XCTAssertLessThan(top, 3)
        var moved = tasks
        moved[2].position = top
        XCTAssertEqual(Scheduler.plan(moved, maxActive: 1).start, [3])
    }

    func test_R30_topOfEmptyLine() {
        XCTAssertEqual(Scheduler.topPosition(in: []), 0)
    }
}
