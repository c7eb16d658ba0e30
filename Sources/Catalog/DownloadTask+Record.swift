import DownloadFSCore
import GRDB

/// A task is a row of the catalog's `task` table; the in-memory fields
/// (`serial`, `transferring`, …) are left out by its coding keys.
extension DownloadTask: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "task"

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
