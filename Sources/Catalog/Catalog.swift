import DownloadFSCore
import Foundation
import Glibc
import GRDB
import Synchronization
import Threads

/// The SQLite catalog of tasks and events (GRDB, WAL).
///
/// The catalog owns the database: every read and write goes through its
/// methods, each one transaction. WAL with `synchronous=NORMAL` makes a commit
/// durable against a crash of the daemon (`kill -9`) without an fsync per
/// commit; the data files get their own fdatasync before their byte counts
/// are committed (R51).
public final class Catalog: Sendable {
    private let pool: DatabasePool
    /// Lines written to each log (a task's, or the daemon's under nil) since
    /// it was last trimmed: every `trimEvery` lines the log is cut back to
    /// what `log` shows, so a task that logs in a loop cannot grow the
    /// catalog without bound between mounts.
    private let linesSinceTrim = Mutex<[Int64?: Int]>([:])
    static let trimEvery = 500

    public init(path: String) throws(CatalogError) {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        config.busyMode = .timeout(10)
        let migrator = CatalogMigrations.migrator
        // A catalog from a newer downloadfs has columns or meanings this
        // version does not know; writing to it could lose data. Checked
        // read-only first: opening a pool writes to the file.
        var size = stat()
        if stat(path, &size) == 0, size.st_size > 0 {
            var readOnly = Configuration()
            readOnly.readonly = true
            let superseded: Bool
            do {
                superseded = try DatabaseQueue(path: path, configuration: readOnly).read { try migrator.hasBeenSuperseded($0) }
            } catch {
                throw CatalogError("open the catalog at \(path)", error, hint: Self.openingHint(path, error))
            }
            if superseded {
                throw CatalogError("""
                    the catalog at \(path) was written by a newer version of downloadfs; \
                    mount it with that version, or use another --state-dir
                    """)
            }
        }
        do {
            pool = try DatabasePool(path: path, configuration: config)
        } catch {
            throw CatalogError("open the catalog at \(path)", error, hint: Self.openingHint(path, error))
        }
        do {
            try migrator.migrate(pool)
        } catch let error as CatalogError {
            throw error
        } catch {
            throw CatalogError("open the catalog at \(path)", error, hint: Self.openingHint(path, error))
        }
    }

    /// What to do when the catalog does not open: on a full disk (SQLite
    /// then says "disk I/O error": its WAL files cannot grow), free space —
    /// never "move it aside", which would drop the task list for nothing.
    private static func openingHint(_ path: String, _ error: any Error) -> String {
        var disk = statvfs()
        let directory = (path as NSString).deletingLastPathComponent
        let full = CatalogError.isDiskFull(error)
            || statvfs(directory, &disk) == 0 && UInt64(disk.f_bavail) * UInt64(disk.f_frsize) < 1 << 20
        return full ? CatalogError.diskFullHint : damagedHint
    }

    private static let damagedHint = """
        if the file is damaged, move it aside and mount again: the task list starts empty, \
        and finished files stay in the state dir's files/
        """

    public func loadTasks() throws(CatalogError) -> [DownloadTask] {
        do { return try pool.read { try DownloadTask.order(Column("id")).fetchAll($0) } }
        catch { throw CatalogError("load tasks", error) }
    }

    /// How many tasks the catalog holds.
    public func taskCount() throws(CatalogError) -> Int {
        do { return try pool.read { try DownloadTask.fetchCount($0) } } catch { throw CatalogError("count tasks", error) }
    }

    /// Calls `body` with each task, lowest id first, one row at a time.
    ///
    /// The rows are read and decoded on a second thread while `body` takes
    /// the ones before, a few thousand at a time: at a mount of a million
    /// tasks decoding and what the caller does with each task (reconciling
    /// and indexing) cost about as much as each other, and there are two
    /// cores. `body` runs on the caller's thread, in id order.
    public func forEachTask(_ body: (DownloadTask) throws -> Void) throws(CatalogError) {
        let handOff = HandOff<DownloadTask>(capacity: 4)
        let read = { [pool] in
            do {
                try pool.read { db in
                    let cursor = try DownloadTask.order(Column("id")).fetchCursor(db)
                    var batch: [DownloadTask] = []
                    batch.reserveCapacity(Self.loadBatch)
                    while let task = try cursor.next() {
                        batch.append(task)
                        guard batch.count == Self.loadBatch else { continue }
                        guard handOff.put(batch) else { return }
                        batch.removeAll(keepingCapacity: true)
                    }
                    if !batch.isEmpty { _ = handOff.put(batch) }
                }
                handOff.finish(nil)
            } catch {
                handOff.finish(error)
            }
        }
        do { try OSThread.start("downloadfs-load", read) } catch {
            throw CatalogError("catalog: could not load tasks: \(error.message)")
        }
        do {
            while let batch = handOff.take() {
                for task in batch { try body(task) }
            }
        } catch {
            handOff.cancel()
            throw CatalogError("load tasks", error)
        }
        if let error = handOff.error { throw CatalogError("load tasks", error) }
    }

    /// Tasks decoded per hand-over at mount.
    static let loadBatch = 4096

    /// Commits one turn of the loop in one transaction: rows first, then the
    /// log lines (a deleted task's own lines go with it, ON DELETE CASCADE).
    ///
    /// Prepared statements with the values bound directly: encoding each
    /// record through Codable cost 100 ms per 1,000 added tasks. The columns
    /// and values are the record's own (`DownloadTask+Record`), so what is
    /// written here is what `loadTasks` reads.
    public func commit(_ batch: CatalogBatch) throws(CatalogError) {
        guard !batch.isEmpty else { return }
        do {
            try pool.writeWithoutTransaction { db in try Self.inTransaction(db) {
                if !batch.inserts.isEmpty {
                    let insert = try db.cachedStatement(sql: Self.insertTask)
                    for task in batch.inserts {
                        try insert.run { (binder: inout StatementBinder) throws(CatalogError) in try task.bindStored(&binder) }
                    }
                }
                if !batch.updates.isEmpty {
                    let update = try db.cachedStatement(sql: Self.updateTask)
                    for task in batch.updates {
                        try update.run { (binder: inout StatementBinder) throws(CatalogError) in
                            try task.bindChanging(&binder)
                            try binder.bind(task.id)
                        }
                        // A task that is not stored is a bug upstream: the whole batch fails.
                        if db.changesCount != 1 { throw CatalogError("task \(task.taskID) is not in the catalog") }
                    }
                }
                if !batch.events.isEmpty {
                    let insert = try db.cachedStatement(sql: "INSERT INTO event (taskID, at, message) VALUES (?, ?, ?)")
                    for event in batch.events {
                        try insert.run { (binder: inout StatementBinder) throws(CatalogError) in
                            try binder.bind(event.taskID)
                            try binder.bind(event.at)
                            try binder.bind(event.message)
                        }
                    }
                }
                if !batch.deletes.isEmpty {
                    let delete = try db.cachedStatement(sql: "DELETE FROM task WHERE id = ?")
                    for id in batch.deletes { try delete.run([id]) }
                }
                try trimIfDue(batch.events, db)
            } }
        } catch { throw CatalogError("save tasks", error) }
    }

    /// Runs `body` in one transaction whose BEGIN and COMMIT are cached
    /// statements: GRDB's `write` prepares both anew for every transaction,
    /// about a tenth of a commit's time with a commit per turn (1,000 ×
    /// 64 KiB: some 600 turns). A failure rolls back and rethrows.
    private static func inTransaction(_ db: Database, _ body: () throws -> Void) throws {
        try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").run([])
        do {
            try body()
            try db.cachedStatement(sql: "COMMIT TRANSACTION").run([])
        } catch {
            try? db.execute(sql: "ROLLBACK TRANSACTION")
            throw error
        }
    }

    private static let insertTask = """
        INSERT INTO task (\(DownloadTask.storedColumns.joined(separator: ", ")))
          VALUES (\(Array(repeating: "?", count: DownloadTask.storedColumns.count).joined(separator: ", ")))
        """

    private static let updateTask = """
        UPDATE task SET \(DownloadTask.changingColumns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?
        """

    /// The highest task id ever handed out (AUTOINCREMENT's sequence), so ids
    /// the loop gives new tasks are never reused, even after deletions.
    public func highestTaskID() throws(CatalogError) -> Int64 {
        do {
            return try pool.read { db in
                let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'task'") ?? 0
                let highest = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM task") ?? 0
                return max(sequence, highest)
            }
        } catch { throw CatalogError("read the task ids", error) }
    }

    /// Lines of one log that are kept and shown: older ones are dropped on mount.
    public static let taskLogLines = 2000
    public static let daemonLogLines = 5_000

    /// Counts the lines just written and trims each log that has had
    /// `trimEvery` more since its last trim, in the same transaction.
    private func trimIfDue(_ events: [EventRecord], _ db: Database) throws {
        guard !events.isEmpty else { return }
        let due = linesSinceTrim.withLock { counts -> [Int64?] in
            var due: [Int64?] = []
            for event in events {
                let n = counts[event.taskID, default: 0] + 1
                if n >= Self.trimEvery {
                    counts[event.taskID] = 0
                    due.append(event.taskID)
                } else {
                    counts[event.taskID] = n
                }
            }
            return due
        }
        for taskID in due {
            if let taskID {
                try db.execute(sql: """
                    DELETE FROM event WHERE taskID = ? AND id <=
                      (SELECT id FROM event WHERE taskID = ? ORDER BY id DESC LIMIT 1 OFFSET ?)
                    """, arguments: [taskID, taskID, Self.taskLogLines])
            } else {
                try db.execute(sql: """
                    DELETE FROM event WHERE taskID IS NULL AND id <=
                      (SELECT id FROM event WHERE taskID IS NULL ORDER BY id DESC LIMIT 1 OFFSET ?)
                    """, arguments: [Self.daemonLogLines])
            }
        }
    }

    /// Drops the oldest lines beyond `daemonLogLines` of the daemon log and
    /// `taskLogLines` of each task's, so years of use do not grow the catalog
    /// without bound.
    public func trimLogs() throws(CatalogError) {
        do {
            try pool.write { db in
                try db.execute(sql: """
                    DELETE FROM event WHERE taskID IS NULL AND id <=
                      (SELECT id FROM event WHERE taskID IS NULL ORDER BY id DESC LIMIT 1 OFFSET ?)
                    """, arguments: [Self.daemonLogLines])
                try db.execute(sql: """
                    DELETE FROM event WHERE id IN (SELECT id FROM
                      (SELECT id, ROW_NUMBER() OVER (PARTITION BY taskID ORDER BY id DESC) AS age
                       FROM event WHERE taskID IS NOT NULL) WHERE age > ?)
                    """, arguments: [Self.taskLogLines])
            }
        } catch { throw CatalogError("trim the logs", error) }
    }

    /// The log of one task (or of the daemon, for nil), oldest first, at most `limit` lines.
    public func events(taskID: Int64?, limit: Int = Catalog.taskLogLines) throws(CatalogError) -> [EventRecord] {
        do {
            return try pool.read { db in
                let filter = taskID.map { Column("taskID") == $0 } ?? (Column("taskID") == nil)
                let newest = try EventRecord.filter(filter).order(Column("id").desc).limit(limit).fetchAll(db)
                return newest.reversed()
            }
        } catch { throw CatalogError("read the log", error) }
    }

    /// `PRAGMA integrity_check`: "ok" when the file is sound.
    public func integrityCheck() throws(CatalogError) -> String {
        do { return try pool.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") ?? "no answer" } }
        catch { throw CatalogError("check integrity", error) }
    }
}
