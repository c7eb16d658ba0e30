import XCTest
@testable import DownloadFSCore

/// `ReportPacing` and the starts a report turn may carry out before its
/// commit (`TaskSetTurn.takeStartsBeforeCommit`).
final class ReportPacingTests: XCTestCase {
    func test_reportsWaitUntilTheOldestChangeIsAWindowOld() {
        var pacing = ReportPacing()
        XCTAssertFalse(pacing.commitNow(at: 10, onlyReports: true, changes: false, replies: false, downloading: true))
        XCTAssertNil(pacing.deadline, "nothing kept, nothing to wake up for")
        XCTAssertFalse(pacing.commitNow(at: 10, onlyReports: true, changes: true, replies: false, downloading: true))
        // A later change does not push the deadline back.
        XCTAssertFalse(pacing.commitNow(at: 10.0015, onlyReports: true, changes: true, replies: false, downloading: true))
        XCTAssertEqual(pacing.deadline, 10 + ReportPacing.window)
        XCTAssertTrue(pacing.commitNow(at: 10 + ReportPacing.window, onlyReports: true, changes: false, replies: false, downloading: true))
        pacing.committed()
        XCTAssertNil(pacing.deadline)
        XCTAssertFalse(pacing.commitNow(at: 20, onlyReports: true, changes: false, replies: false, downloading: true))
    }

    func test_aRequestOrAReplyCommitsAtOnce() {
        var pacing = ReportPacing()
        XCTAssertTrue(pacing.commitNow(at: 10, onlyReports: false, changes: true, replies: false, downloading: true))
        pacing.committed()
        XCTAssertTrue(pacing.commitNow(at: 10, onlyReports: true, changes: true, replies: true, downloading: true))
    }

    func test_withNoTaskDownloadingReportsCommitAtOnce() {
        var pacing = ReportPacing()
        XCTAssertFalse(pacing.commitNow(at: 10, onlyReports: true, changes: false, replies: false, downloading: false),
                       "nothing to commit")
        XCTAssertTrue(pacing.commitNow(at: 10, onlyReports: true, changes: true, replies: false, downloading: false))
        pacing.committed()
        XCTAssertFalse(pacing.commitNow(at: 11, onlyReports: true, changes: true, replies: false, downloading: true))
        XCTAssertTrue(pacing.commitNow(at: 11.0001, onlyReports: true, changes: false, replies: false, downloading: false),
                      "the last download ended: what was kept goes now")
    }

    func test_theTurnInWhichTheLastDownloadEndsIsToldOnce() {
        var pacing = ReportPacing()
        XCTAssertFalse(pacing.downloadsEnded(downloading: false), "none ran: nothing ended")
        XCTAssertFalse(pacing.downloadsEnded(downloading: true))
        XCTAssertFalse(pacing.downloadsEnded(downloading: true))
        XCTAssertTrue(pacing.downloadsEnded(downloading: false))
        XCTAssertFalse(pacing.downloadsEnded(downloading: false), "said once, not every idle turn")
        XCTAssertFalse(pacing.downloadsEnded(downloading: true))
        XCTAssertTrue(pacing.downloadsEnded(downloading: false), "a later batch's end is told again")
    }

    private func task(_ id: Int64) -> DownloadTask {
        var task = DownloadTask(url: "http://h/\(id)", normalizedURL: "http://h/\(id)", options: TaskOptions(),
                                name: "\(id)", addedAt: Date(timeIntervalSince1970: 0), position: id)
        task.id = id
        return task
    }

    private let start = TaskEffect.startTransfer(serial: 1, stored: StoredProgress(offset: 0))

    func test_aStartAloneInItsTaskGoesBeforeTheCommit() {
        var turn = TaskSetTurn()
        for (id, effect) in [(1, TaskEffect.deletePartial), (1, start), (2, start), (3, .wake("x"))] {
            turn.add(effect, of: task(Int64(id)))
        }
        let early = turn.takeStartsBeforeCommit()
        XCTAssertEqual(early.map(\.id), [2])
        XCTAssertEqual(early.map(\.effect), [start])
        // Task 1's start stays behind its delete, in order, for after the commit.
        XCTAssertEqual(turn.effects.map(\.id), [1, 1, 3])
        XCTAssertEqual(turn.effects.map(\.effect), [.deletePartial, start, .wake("x")])
    }

    func test_noStartGoesBeforeTheCommitWhenLimitsOrSplitsChange() {
        var turn = TaskSetTurn()
        turn.add(start, of: task(2))
        turn.speedLimits = [(2, 100)]
        XCTAssertTrue(turn.takeStartsBeforeCommit().isEmpty)
        turn.speedLimits = []
        turn.splits = [(2, SplitPolicy(split: 2, minimumSegment: 1 << 20))]
        XCTAssertTrue(turn.takeStartsBeforeCommit().isEmpty)
        XCTAssertEqual(turn.effects.count, 1)
        turn.splits = []
        XCTAssertEqual(turn.takeStartsBeforeCommit().map(\.id), [2])
        XCTAssertTrue(turn.takeStartsBeforeCommit().isEmpty, "taken once")
    }
}
