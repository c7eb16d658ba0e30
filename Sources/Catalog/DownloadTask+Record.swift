import DownloadFSCore
import Foundation
import GRDB

/// A task is a row of the catalog's `task` table; the in-memory fields
/// (`serial`, `transferring`, …) are not stored.
///
/// Read and written column by column, not through Codable: loading 100,000
/// tasks at mount decoded each row through a keyed container, and the
/// batch statements bind these same values in this same order.
extension DownloadTask: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "task"

    /// The columns that change after a task is added, in the order
    /// `changingValues` gives them.
    static let changingColumns = [
        "name", "state", "downloaded", "total", "attempts", "failuresWithoutData", "error", "completedAt",
        "position", "etag", "lastModified", "contentType", "finalURL", "speedLimit", "retryAt", "ranges", "split",
        "droppedMirrors",
    ]

    /// Every stored column: the ones fixed at `add` (url, options, addedAt
    /// never change), then the changing ones.
    static let storedColumns = ["id", "url", "normalizedURL", "options", "addedAt"] + changingColumns

    /// `options` as JSON. One coder for every row: making one per row cost
    /// an allocation per task added or loaded (100,000 at a time).
    private static let optionsEncoder = JSONEncoder()
    private static let optionsDecoder = JSONDecoder()

    var storedValues: [(any DatabaseValueConvertible)?] {
        get throws {
            let options = String(decoding: try Self.optionsEncoder.encode(self.options), as: UTF8.self)
            return [id, url, normalizedURL, options, Self.stored(addedAt)] + changingValues
        }
    }

    var changingValues: [(any DatabaseValueConvertible)?] {
        [name, state.rawValue, downloaded, total, attempts, failuresWithoutData, error, Self.stored(completedAt),
         position, etag, lastModified, contentType, finalURL, speedLimit, Self.stored(retryAt), ranges.encoded, split,
         droppedMirrors.joined(separator: "\n")]
    }

    /// A date in GRDB's own text for it (`StoredDate`), without its formatter.
    static func stored(_ date: Date?) -> (any DatabaseValueConvertible)? {
        guard let date else { return nil }
        return StoredDate.text(date) ?? date
    }

    public init(row: Row) throws {
        let optionsText: String = row["options"]
        let options = try Self.optionsDecoder.decode(TaskOptions.self, from: Data(optionsText.utf8))
        let stateText: String = row["state"]
        guard let state = TaskState(rawValue: stateText) else {
            throw CatalogError("task \(row["id"] as Int64? ?? 0) has an unknown state \"\(stateText)\"")
        }
        self.init(origin: TaskOrigin(url: row["url"], normalizedURL: row["normalizedURL"], options: options,
                                     addedAt: row["addedAt"]),
                  name: row["name"], position: row["position"])
        id = row["id"]
        self.state = state
        // A ranges column that does not parse (edited by hand, damaged) is
        // not trusted beyond the count: reconciling with the partial file
        // at mount then cuts it back to what is there (R51).
        let rangesText: String = row["ranges"]
        ranges = ByteRanges(encoded: rangesText) ?? ByteRanges([0..<max(0, row["downloaded"] as Int64)])
        total = row["total"]
        attempts = row["attempts"]
        failuresWithoutData = row["failuresWithoutData"]
        error = row["error"]
        completedAt = row["completedAt"]
        remote = RemoteFacts(etag: row["etag"], lastModified: row["lastModified"], contentType: row["contentType"],
                             finalURL: row["finalURL"])
        speedLimit = row["speedLimit"]
        // Read from the column, not from `options`: `ctl split N` changes it after the add.
        split = row["split"]
        retryAt = row["retryAt"]
        let dropped: String = row["droppedMirrors"]
        droppedMirrors = dropped.isEmpty ? [] : dropped.split(separator: "\n").map(String.init)
    }

    public func encode(to container: inout PersistenceContainer) throws {
        for (column, value) in zip(Self.storedColumns, try storedValues) { container[column] = value }
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
