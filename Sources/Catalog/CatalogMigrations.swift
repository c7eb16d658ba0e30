import GRDB

/// The catalog's schema history. Migrations are named and append-only: a
/// catalog written by any earlier version is brought up to date in order,
/// each migration in its own transaction; never edit one that has shipped.
enum CatalogMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-tasks-and-events") { db in
            try db.create(table: "task") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("url", .text).notNull()
                t.column("normalizedURL", .text).notNull().indexed()
                t.column("options", .text).notNull()
                t.column("name", .text).notNull()
                t.column("state", .text).notNull()
                t.column("downloaded", .integer).notNull().defaults(to: 0)
                t.column("total", .integer)
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("failuresWithoutData", .integer).notNull().defaults(to: 0)
                t.column("error", .text)
                t.column("addedAt", .datetime).notNull()
                t.column("completedAt", .datetime)
                t.column("position", .integer).notNull()
                t.column("etag", .text)
                t.column("lastModified", .text)
                t.column("contentType", .text)
                t.column("finalURL", .text)
                t.column("speedLimit", .integer).notNull().defaults(to: 0)
                t.column("retryAt", .datetime)
            }
            try db.create(table: "event") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("taskID", .integer).indexed()
                t.column("at", .datetime).notNull()
                t.column("message", .text).notNull()
            }
        }
        // A task's log lines belong to it: deleting the task deletes them in
        // the same statement, and a line written for a task that is already
        // gone (a late log line racing a cancel) is refused instead of left
        // behind where nothing can read it. SQLite cannot add a foreign key to
        // a table in place, so the table is rebuilt; lines already orphaned
        // by v1 are dropped.
        migrator.registerMigration("v2-events-belong-to-tasks") { db in
            try db.execute(sql: "DELETE FROM event WHERE taskID IS NOT NULL AND taskID NOT IN (SELECT id FROM task)")
            try db.create(table: "event_v2") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("taskID", .integer).references("task", onDelete: .cascade)
                t.column("at", .datetime).notNull()
                t.column("message", .text).notNull()
            }
            try db.execute(sql: "INSERT INTO event_v2 (id, taskID, at, message) SELECT id, taskID, at, message FROM event")
            try db.drop(table: "event")
            try db.rename(table: "event_v2", to: "event")
            try db.create(index: "event_on_taskID", on: "event", columns: ["taskID"])
        }
        // What is on disk becomes a set of byte ranges (R18): segments are
        // fetched in parallel and each checkpoints its own. One encoded
        // list per task row ("0-1048576,2097152-3145728"), not a table of
        // segments: a checkpoint stays one UPDATE of one row in the loop's
        // batch, a task has a handful of ranges, and loading 100,000 tasks
        // stays one scan. `downloaded` stays, as their sum.
        migrator.registerMigration("v3-byte-ranges") { db in
            try db.alter(table: "task") { t in t.add(column: "ranges", .text).notNull().defaults(to: "") }
            try db.execute(sql: "UPDATE task SET ranges = '0-' || downloaded WHERE downloaded > 0")
        }
        // A task's own connection count (R18: `split=N`, `ctl split N`).
        // Nullable, and NULL for every task stored before: NULL means "the
        // daemon's default", so older tasks follow `--split` and `MOUNT/ctl
        // split N` rather than a number frozen when they were upgraded.
        // And the URLs of a task the engine gave up on (R19), newline-separated
        // ("" for none; a URL holds no newline): the mirrors themselves never
        // change after the add and live in `options`.
        migrator.registerMigration("v4-split") { db in
            try db.alter(table: "task") { t in
                t.add(column: "split", .integer)
                t.add(column: "droppedMirrors", .text).notNull().defaults(to: "")
            }
        }
        return migrator
    }
}
