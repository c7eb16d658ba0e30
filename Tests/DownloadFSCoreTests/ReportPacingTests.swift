import XCTest
@testable import DownloadFSCore

/// `ReportPacing` and the starts a report turn may carry out before its
/// commit (`TaskSetTurn.takeStartsBeforeCommit`).
final class ReportPacingTests: XCTestCase {
    func test_changesKeptAreDueOnceTheOldestIsAWindowOld() {
        var pacing = ReportPacing()
        XCTAssertNil(pacing.deadline)
        XCTAssertFalse(pacing.isDue(at: 10))
        pacing.kept(at: 10)
        pacing.kept(at: 10.0015)  // a later change does not push the deadline back
        XCTAssertEqual(pacing.deadline, 10 + ReportPacing.window)
        XCTAssertFalse(pacing.isDue(at: 10 + ReportPacing.window / 2))
        XCTAssertTrue(pacing.isDue(at: 10 + ReportPacing.window))
        pacing.committed()
        XCTAssertNil(pacing.deadline)
        XCTAssertFalse(pacing.isDue(at: 20))
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
