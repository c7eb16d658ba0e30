import Foundation
import GRDB
import XCTest
@testable import Catalog
import DownloadFSCore

/// Group commit: one `CatalogBatch` is one transaction (R15, R54: the stored
/// state is always one the daemon showed, never half of a turn).
final class CatalogBatchTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.path("catalog.sqlite") }
    private let at = Date(timeIntervalSince1970: 1_800_000_500)

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDownWithError() throws { try directory.remove() }

    private func line(_ taskID: Int64?, _ message: String) -> EventRecord {
        EventRecord(taskID: taskID, at: at, message: message)
    }

    /// A catalog holding tasks 1, 2 and 3, each with one log line, and one daemon line.
    private func seeded() throws -> Catalog {
        let catalog = try Catalog(path: path)
        var batch = CatalogBatch()
        batch.inserts = [TestTask.make(1), TestTask.make(2), TestTask.make(3)]
        batch.events = [line(1, "added 1"), line(2, "added 2"), line(3, "added 3"), line(nil, "mounted")]
        try catalog.commit(batch)
        return catalog
    }

    /// Every row of every table the catalog writes, read on a connection of our own.
    private func snapshot() throws -> [[Row]] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            [try Row.fetchAll(db, sql: "SELECT * FROM task ORDER BY id"),
             try Row.fetchAll(db, sql: "SELECT * FROM event ORDER BY id"),
             try Row.fetchAll(db, sql: "SELECT * FROM sqlite_sequence ORDER BY name")]
        }
    }

    private func eventCount(taskID: Int64) throws -> Int {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM event WHERE taskID = ?", arguments: [taskID]) ?? -1 }
    }

    /// Commits `batch`, which must fail, and checks that nothing of it was stored.
    private func assertRefusedWholly(_ batch: CatalogBatch, _ catalog: Catalog, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try snapshot()
        XCTAssertThrowsError(try catalog.commit(batch), file: file, line: line) { error in
            let message = (error as? CatalogError)?.message ?? "\(error)"
            XCTAssertTrue(message.hasPrefix("catalog: could not save tasks"), message, file: file, line: line)
        }
        XCTAssertEqual(try snapshot(), before, "nothing of the failed batch is stored", file: file, line: line)
    }

    func test_insertsUpdatesDeletesAndEventsOfOneBatchLandTogether() throws {
        let catalog = try seeded()
        var changed = TestTask.make(1, state: .downloading)
        changed.downloaded = 4096
        changed.attempts = 1
        var batch = CatalogBatch()
        batch.inserts = [TestTask.make(10), TestTask.make(11, state: .paused)]
        batch.updates = [changed]
        batch.deletes = [2]
        batch.events = [line(10, "added 10"), line(11, "added 11"), line(1, "started"), line(nil, "three changes")]
        try catalog.commit(batch)

        let tasks = try catalog.loadTasks()
        XCTAssertEqual(tasks.map(\.id), [1, 3, 10, 11])
        XCTAssertEqual(tasks.first, changed)
        XCTAssertEqual(tasks.last, TestTask.make(11, state: .paused))
        XCTAssertEqual(try catalog.events(taskID: 1).map(\.message), ["added 1", "started"])
        XCTAssertEqual(try catalog.events(taskID: 10).map(\.message), ["added 10"])
        XCTAssertEqual(try catalog.events(taskID: nil).map(\.message), ["mounted", "three changes"])
        XCTAssertEqual(try eventCount(taskID: 2), 0)
        XCTAssertEqual(try catalog.highestTaskID(), 11)
    }

    func test_anEmptyBatchChangesNothing() throws {
        let catalog = try seeded()
        let before = try snapshot()
        try catalog.commit(CatalogBatch())
        XCTAssertEqual(try snapshot(), before)
    }

    func test_R54_aBatchWithALineForAnUnknownTaskStoresNothing() throws {
        let catalog = try seeded()
        var batch = CatalogBatch()
        batch.inserts = [TestTask.make(10)]
        batch.updates = [TestTask.make(1, state: .paused)]
        batch.deletes = [3]
        batch.events = [line(10, "added 10"), line(1, "paused"), line(99, "task 99 does not exist")]
        try assertRefusedWholly(batch, catalog)
    }

    func test_R54_aBatchWhoseInsertReusesAnIDStoresNothing() throws {
        let catalog = try seeded()
        var batch = CatalogBatch()
        batch.inserts = [TestTask.make(10), TestTask.make(2)]
        batch.updates = [TestTask.make(1, state: .paused)]
        batch.events = [line(1, "paused")]
        try assertRefusedWholly(batch, catalog)
    }

    func test_R54_aBatchUpdatingATaskThatIsNotStoredStoresNothing() throws {
        let catalog = try seeded()
        var batch = CatalogBatch()
        batch.inserts = [TestTask.make(10)]
        batch.updates = [TestTask.make(1, state: .paused), TestTask.make(77, state: .paused)]
        batch.deletes = [3]
        batch.events = [line(10, "added 10")]
        try assertRefusedWholly(batch, catalog)
    }

    func test_aFailedBatchLeavesTheCatalogUsable() throws {
        let catalog = try seeded()
        var bad = CatalogBatch()
        bad.events = [line(99, "no such task")]
        XCTAssertThrowsError(try catalog.commit(bad))
        var good = CatalogBatch()
        good.inserts = [TestTask.make(4)]
        try catalog.commit(good)
        XCTAssertEqual(try catalog.loadTasks().map(\.id), [1, 2, 3, 4])
    }

    func test_R32_deletingATaskDeletesItsLogLines() throws {
        let catalog = try seeded()
        var batch = CatalogBatch()
        batch.events = [line(2, "more for 2"), line(3, "more for 3")]
        try catalog.commit(batch)
        XCTAssertEqual(try eventCount(taskID: 2), 2)

        batch = CatalogBatch()
        batch.deletes = [2]
        try catalog.commit(batch)
        XCTAssertEqual(try eventCount(taskID: 2), 0)
        XCTAssertEqual(try eventCount(taskID: 3), 2, "other tasks keep their lines")
        XCTAssertEqual(try catalog.events(taskID: nil).map(\.message), ["mounted"], "the daemon log stays")
    }

    func test_R5_theHighestTaskIDNeverGoesDown() throws {
        XCTAssertEqual(try Catalog(path: path).highestTaskID(), 0, "a new catalog")
        let catalog = try seeded()
        XCTAssertEqual(try catalog.highestTaskID(), 3)

        var batch = CatalogBatch()
        batch.deletes = [3]
        try catalog.commit(batch)
        XCTAssertEqual(try catalog.highestTaskID(), 3, "after deleting the highest task")

        batch = CatalogBatch()
        batch.deletes = [1, 2]
        try catalog.commit(batch)
        XCTAssertEqual(try catalog.highestTaskID(), 3, "after deleting every task")
        XCTAssertEqual(try Catalog(path: path).highestTaskID(), 3, "after a remount")

        // The loop gives new tasks highestTaskID() + 1: never an id used before.
        var fresh = TestTask.make(try catalog.highestTaskID() + 1)
        batch = CatalogBatch()
        batch.inserts = [fresh]
        try catalog.commit(batch)
        XCTAssertEqual(try catalog.loadTasks().map(\.id), [4])
        fresh.id = 9
        batch.inserts = [fresh]
        try catalog.commit(batch)
        XCTAssertEqual(try catalog.highestTaskID(), 9)
    }
}
