import XCTest
@testable import DownloadFSCore

/// `TaskSetTurn.absorb`: a turn of user requests gathers each request's own
/// turn (handled alone so it can be undone alone).
final class TaskSetTurnTests: XCTestCase {
    private func task(_ id: Int64) -> DownloadTask {
        var task = DownloadTask(url: "http://h/\(id)", normalizedURL: "http://h/\(id)", options: TaskOptions(),
                                name: "\(id)", addedAt: Date(timeIntervalSince1970: 0), position: id)
        task.id = id
        return task
    }

    private func adding(_ ids: [Int64], token: UInt64) -> TaskSetTurn {
        var turn = TaskSetTurn()
        for id in ids {
            turn.insert(task(id))
            turn.log.append(TaskLogLine(taskID: id, at: Date(timeIntervalSince1970: 0), message: "added \(id)"))
        }
        turn.reply(token, .ids(ids))
        return turn
    }

    func test_theFirstRequestIsTakenWholeAndLaterOnesAreAdded() {
        var gathered = TaskSetTurn()
        gathered.absorb(adding([1, 2], token: 7))
        XCTAssertEqual(gathered.inserted, [1, 2])
        XCTAssertEqual(Set(gathered.touched), [1, 2])
        XCTAssertEqual(gathered.log.map(\.message), ["added 1", "added 2"])

        gathered.absorb(adding([3], token: 8))
        XCTAssertEqual(gathered.inserted, [1, 2, 3])
        XCTAssertEqual(Set(gathered.touched), [1, 2, 3])
        XCTAssertEqual(gathered.log.map(\.message), ["added 1", "added 2", "added 3"])
        XCTAssertEqual(gathered.replies.count, 2)
        XCTAssertEqual(gathered.before[3], .some(nil), "new tasks stay new")
    }

    func test_aTurnWithOnlyAnUpdateIsNotBlank() {
        var gathered = TaskSetTurn()
        gathered.update(5)
        gathered.absorb(adding([6], token: 1))
        XCTAssertEqual(gathered.updated, [5], "what was recorded before is kept")
        XCTAssertEqual(gathered.inserted, [6])
    }
}
