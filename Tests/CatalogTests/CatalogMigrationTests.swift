import Foundation
import GRDB
import XCTest
@testable import Catalog
import DownloadFSCore

/// The catalog's schema history: named, append-only migrations, and a refusal
/// to touch what this version cannot read.
final class CatalogMigrationTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.path("catalog.sqlite") }

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDownWithError() throws { try directory.remove() }

    /// The shipped migrations; renaming one would make every existing catalog look newer.
    private let shipped = ["v1-tasks-and-events", "v2-events-belong-to-tasks", "v3-byte-ranges", "v4-split"]

    /// Runs `body` on a plain connection of our own, closed before returning.
    private func withDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.writeWithoutTransaction(body)
    }

    private func appliedMigrations() throws -> [String] {
        try withDatabase { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") }
    }

    func test_aNewCatalogHasEveryShippedMigrationApplied() throws {
        _ = try Catalog(path: path)
        XCTAssertEqual(try appliedMigrations(), shipped)
        XCTAssertEqual(CatalogMigrations.migrator.migrations, shipped, "migrations are append-only")
        let foreignKeys = try withDatabase { db in
            try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(event)").map { row -> String in
                "\(row["from"] as String)->\(row["table"] as String).\(row["to"] as String) \(row["on_delete"] as String)"
            }
        }
        XCTAssertEqual(foreignKeys, ["taskID->task.id CASCADE"], "v2: log lines belong to their task")
    }

    func test_reopeningAnUpToDateCatalogKeepsItsTasks() throws {
        var task = DownloadTask(url: "https://h/a", normalizedURL: "https://h/a", options: TaskOptions(), name: "a",
                                addedAt: Date(timeIntervalSince1970: 1_800_000_000), position: 1)
        task.id = 1
        var batch = CatalogBatch()
        batch.inserts = [task]
        try Catalog(path: path).commit(batch)
        let reopened = try Catalog(path: path)
        XCTAssertEqual(try reopened.loadTasks().map(\.id), [1])
        XCTAssertEqual(try appliedMigrations(), shipped)
    }

    func test_aV1CatalogIsUpgradedAndItsOrphanedLinesDropped() throws {
        try migrate(upTo: "v1-tasks-and-events")
        try withDatabase { db in
            try insertOldTask(db, id: 1, downloaded: 0)
            let at = Date(timeIntervalSince1970: 1_800_000_001)
            for (taskID, message) in [(Int64(1), "kept: the task's"), (99, "dropped: task 99 is gone"), (nil, "kept: the daemon's")] {
                var line = EventRecord(taskID: taskID, at: at, message: message)
                try line.insert(db)
            }
        }
        XCTAssertEqual(try appliedMigrations(), ["v1-tasks-and-events"])

        let catalog = try Catalog(path: path)
        XCTAssertEqual(try appliedMigrations(), shipped)
        XCTAssertEqual(try catalog.events(taskID: 1).map(\.message), ["kept: the task's"])
        XCTAssertEqual(try catalog.events(taskID: nil).map(\.message), ["kept: the daemon's"])
        XCTAssertEqual(try catalog.events(taskID: 99).map(\.message), [])
        var batch = CatalogBatch()
        batch.deletes = [1]
        try catalog.commit(batch)
        XCTAssertEqual(try withDatabase { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM event WHERE taskID = 1") }, 0,
                       "after the upgrade a task's lines go with it")
    }

    /// Leaves the catalog file as a daemon that shipped `version` last wrote it.
    private func migrate(upTo version: String) throws {
        let old = try DatabaseQueue(path: path)
        try CatalogMigrations.migrator.migrate(old, upTo: version)
        try old.close()
    }

    /// A task row as v1 and v2 stored it (no `ranges`), written by hand:
    /// the record type writes today's columns.
    private func insertOldTask(_ db: Database, id: Int64, downloaded: Int64) throws {
        try db.execute(sql: """
            INSERT INTO task (id, url, normalizedURL, options, name, state, downloaded, total, addedAt, position)
            VALUES (?, ?, ?, '{"headers":[]}', ?, 'paused', ?, 10000000, '2027-01-15 08:00:00.000', ?)
            """, arguments: [id, "https://h/\(id)", "https://h/\(id)", "f\(id)", downloaded, id])
    }

    /// R18: v2's one count becomes the range from zero it stood for; a task
    /// with nothing has no ranges; both load with their count unchanged.
    func test_R18_aV2CatalogsCountsBecomeRangesFromZero() throws {
        try migrate(upTo: "v2-events-belong-to-tasks")
        try withDatabase { db in
            try insertOldTask(db, id: 1, downloaded: 5_000_000)
            try insertOldTask(db, id: 2, downloaded: 0)
        }
        let catalog = try Catalog(path: path)
        XCTAssertEqual(try appliedMigrations(), shipped)
        let stored = try withDatabase { try String.fetchAll($0, sql: "SELECT ranges FROM task ORDER BY id") }
        XCTAssertEqual(stored, ["0-5000000", ""])
        let tasks = try catalog.loadTasks()
        XCTAssertEqual(tasks.map(\.ranges), [ByteRanges([0..<5_000_000]), ByteRanges()])
        XCTAssertEqual(tasks.map(\.downloaded), [5_000_000, 0])
    }

    /// R18: v4 adds each task's own connection count; every task stored
    /// before has none (NULL: the daemon's default), and keeps everything else.
    func test_R18_aV3CatalogGainsANullSplitPerTask() throws {
        try migrate(upTo: "v3-byte-ranges")
        try withDatabase { db in
            try insertOldTask(db, id: 1, downloaded: 5_000_000)
            try db.execute(sql: "UPDATE task SET ranges = '0-4096,8192-5000000' WHERE id = 1")
            // Options as a v3 daemon wrote them: no split key.
            try db.execute(sql: #"UPDATE task SET options = '{"out":"x.iso","headers":["A: b"]}' WHERE id = 1"#)
        }
        XCTAssertEqual(try appliedMigrations(), ["v1-tasks-and-events", "v2-events-belong-to-tasks", "v3-byte-ranges"])

        let catalog = try Catalog(path: path)
        XCTAssertEqual(try appliedMigrations(), shipped)
        let column = try withDatabase { db in
            try Row.fetchAll(db, sql: "PRAGMA table_info(task)").first { ($0["name"] as String) == "split" }
        }
        let split = try XCTUnwrap(column, "v4 adds the split column")
        XCTAssertEqual(split["type"] as String, "INTEGER")
        XCTAssertEqual(split["notnull"] as Int, 0, "nullable: NULL is the daemon's default")
        XCTAssertEqual(try withDatabase { try Row.fetchOne($0, sql: "SELECT split FROM task WHERE id = 1")?["split"] as Int? },
                       nil)

        // R19: v4 also adds the URLs the engine dropped; none for a task stored before.
        let droppedColumn = try withDatabase { db in
            try Row.fetchAll(db, sql: "PRAGMA table_info(task)").first { ($0["name"] as String) == "droppedMirrors" }
        }
        let dropped = try XCTUnwrap(droppedColumn, "v4 adds the droppedMirrors column")
        XCTAssertEqual(dropped["type"] as String, "TEXT")
        XCTAssertEqual(dropped["notnull"] as Int, 1)
        XCTAssertEqual(try withDatabase { try String.fetchOne($0, sql: "SELECT droppedMirrors FROM task WHERE id = 1") }, "")

        let task = try XCTUnwrap(try catalog.loadTasks().first)
        XCTAssertNil(task.split)
        XCTAssertNil(task.options.split)
        XCTAssertNil(task.options.mirrors, "options stored without a mirrors key decode")
        XCTAssertEqual(task.droppedMirrors, [])
        XCTAssertEqual(task.options, TaskOptions(out: "x.iso", headers: ["A: b"]))
        XCTAssertEqual(task.ranges, ByteRanges([0..<4096, 8192..<5_000_000]))
        XCTAssertEqual(task.state, .paused)

        // And the upgraded row takes a split like any other.
        var changed = task
        changed.split = 3
        var batch = CatalogBatch()
        batch.updates = [changed]
        try catalog.commit(batch)
        XCTAssertEqual(try catalog.loadTasks().first?.split, 3)
    }

    /// A catalog with a task, a log line and a migration this version does not know.
    private func makeCatalogFromTheFuture() throws {
        var batch = CatalogBatch()
        batch.inserts = [DownloadTask(url: "https://h/a", normalizedURL: "https://h/a", options: TaskOptions(),
                                      name: "a", addedAt: Date(timeIntervalSince1970: 1_800_000_000), position: 1)]
        batch.inserts[0].id = 1
        batch.events = [EventRecord(taskID: 1, at: Date(timeIntervalSince1970: 1_800_000_001), message: "added")]
        try Catalog(path: path).commit(batch)
        try withDatabase { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        }
    }

    private func assertRefusedAsNewer(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try Catalog(path: path), file: file, line: line) { error in
            let message = (error as? CatalogError)?.message ?? "\(error)"
            XCTAssertTrue(message.contains("written by a newer version of downloadfs"), message, file: file, line: line)
            XCTAssertTrue(message.contains(path), "names the file: \(message)", file: file, line: line)
        }
    }

    /// The schema and every row of every table.
    private func contents() throws -> [[Row]] {
        try withDatabase { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
            return try [Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name")]
                + tables.map { try Row.fetchAll(db, sql: "SELECT * FROM \($0.quotedDatabaseIdentifier) ORDER BY rowid") }
        }
    }

    func test_aCatalogFromANewerVersionIsRefusedWithItsContentUnchanged() throws {
        try makeCatalogFromTheFuture()
        let before = try contents()
        assertRefusedAsNewer()
        XCTAssertEqual(try contents(), before, "no migration ran, nothing was stored")
        XCTAssertEqual(try appliedMigrations(), shipped + ["v99-from-the-future"])
    }

    /// Not even GRDB's own write on opening a pool (it creates and drops a
    /// table to make the WAL file exist) may touch a catalog we refuse.
    func test_aCatalogFromANewerVersionIsNotWrittenAtAll() throws {
        try makeCatalogFromTheFuture()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        assertRefusedAsNewer()
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        let changed = zip(before, after).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        XCTAssertEqual(after, before, "the file's bytes changed at offsets \(changed.prefix(20))")
    }

    func test_aFileThatIsNotADatabaseIsRefusedWithTheHint() throws {
        let garbage = Data(String(repeating: "this is not a SQLite database\n", count: 40).utf8)
        try garbage.write(to: URL(fileURLWithPath: path))

        XCTAssertThrowsError(try Catalog(path: path)) { error in
            let message = (error as? CatalogError)?.message ?? "\(error)"
            XCTAssertTrue(message.hasPrefix("catalog: could not open the catalog at \(path)"), message)
            XCTAssertTrue(message.contains("move it aside and mount again"), "the hint: \(message)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), garbage, "the file is not touched")
    }
}
