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
        return migrator
    }
}
