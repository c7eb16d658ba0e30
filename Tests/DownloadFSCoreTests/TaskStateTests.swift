import XCTest
@testable import DownloadFSCore

/// R15, R30, R31, R50, R53, R54, R56: the legal-transition table, checked pair by pair.
final class TaskStateTests: XCTestCase {
    private let legal: [TaskState: Set<TaskState>] = [
        .queued: [.downloading, .paused, .failed],
        .downloading: [.queued, .paused, .retrying, .verifying, .completed, .failed],
        .retrying: [.queued, .downloading, .paused, .failed],
        .paused: [.queued, .downloading],
        .verifying: [.completed, .failed, .queued],
        .failed: [.queued, .downloading],
        .completed: [.failed],
    ]

    func test_R15_everyPairOfStatesFollowsTheTable() {
        for from in TaskState.allCases {
            for to in TaskState.allCases {
                let expected = legal[from]!.contains(to)
                XCTAssertEqual(from.canTransition(to: to), expected, "\(from) → \(to)")
            }
        }
    }

    func test_R15_sameStateIsNotATransition() {
        for state in TaskState.allCases {
            XCTAssertFalse(state.canTransition(to: state), "\(state)")
        }
    }

    func test_R15_completedTaskOnlyFailsWhenItsFileIsGone() {
        for to in TaskState.allCases where to != .failed {
            XCTAssertFalse(TaskState.completed.canTransition(to: to))
        }
        XCTAssertTrue(TaskState.completed.canTransition(to: .failed))
    }

    func test_R15_stateNamesAreTheStatusWords() {
        XCTAssertEqual(TaskState.allCases.map(\.rawValue),
                       ["queued", "downloading", "paused", "retrying", "verifying", "completed", "failed"])
    }

    func test_R15_finishedMeansCompletedOrFailed() {
        XCTAssertEqual(TaskState.allCases.filter(\.isFinished), [.completed, .failed])
    }

    func test_R16_runningMeansDownloadingOrVerifying() {
        XCTAssertEqual(TaskState.allCases.filter(\.isRunning), [.downloading, .verifying])
        XCTAssertEqual(TaskState.allCases.filter(\.holdsSlot), [.downloading])
    }

    func test_R16_inFlightIsEverythingTheSchedulerWatches() {
        XCTAssertEqual(TaskState.allCases.filter(\.isInFlight), [.queued, .downloading, .retrying, .verifying])
    }

    func test_R30_resumeOfFailedIsLegal() throws {
        XCTAssertEqual(try TaskState.failed.transition(to: .queued), .queued)
        XCTAssertEqual(try TaskState.failed.transition(to: .downloading), .downloading)
    }

    func test_R30_illegalTransitionThrowsAHumanSentence() {
        XCTAssertThrowsError(try TaskState.completed.transition(to: .downloading)) { error in
            XCTAssertEqual(error as? TransitionError, TransitionError(from: .completed, to: .downloading))
            XCTAssertEqual((error as? TransitionError)?.message, "cannot start a completed task")
        }
    }

    func test_R30_transitionErrorMessages() {
        XCTAssertEqual(TransitionError(from: .completed, to: .paused).message, "cannot pause a completed task")
        XCTAssertEqual(TransitionError(from: .completed, to: .queued).message, "cannot queue a completed task")
        XCTAssertEqual(TransitionError(from: .paused, to: .paused).message, "task is already paused")
        XCTAssertEqual(TransitionError(from: .verifying, to: .paused).message, "cannot pause a verifying task")
        XCTAssertEqual(TransitionError(from: .paused, to: .failed).message, "cannot fail a paused task")
    }

    func test_R15_codableAsRawString() throws {
        let data = try JSONEncoder().encode([TaskState.retrying])
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "[\"retrying\"]")
        XCTAssertEqual(try JSONDecoder().decode([TaskState].self, from: data), [.retrying])
    }

    func test_R30_onlyQueuedAndPausedTasksStandInTheWaitingLine() {
        XCTAssertEqual(TaskState.allCases.filter(\.standsInLine), [.queued, .paused])
    }

    func test_R30_R31_aCtlParsesItsOwnCommands() {
        XCTAssertNotNil(try? ControlTarget.task(3).parse("pause").get())
        XCTAssertNil(try? ControlTarget.all.parse("pause").get(), "pause is a task's command")
        XCTAssertNotNil(try? ControlTarget.all.parse("max-active 4").get())
        XCTAssertNil(try? ControlTarget.task(3).parse("max-active 4").get(), "max-active is the mount's")
    }
}
