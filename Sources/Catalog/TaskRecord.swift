import DownloadFSCore
import Foundation
import GRDB

/// One task as the catalog stores it: everything needed to show it and to
/// carry it on after a remount. The daemon keeps these in memory too; the
/// database row is the truth, written before a change is shown (R15).
public struct TaskRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "task"

    /// Never reused: the table uses AUTOINCREMENT, so even the highest id of a
    /// deleted task is not handed out again.
    public var id: Int64?
    public var url: String
    /// R13 key: the same normalised URL is downloaded once.
    public var normalizedURL: String
    public var options: TaskOptions
    /// Reserved file name (sanitised, unique among tasks and STATE/files).
    public var name: String
    public var state: TaskState
    /// Bytes safely on disk: fdatasync'ed before this was written (R51).
    public var downloaded: Int64
    public var total: Int64?
    /// Transfer attempts started so far.
    public var attempts: Int
    /// Attempts in a row that failed without receiving any data (R53).
    public var failuresWithoutData: Int
    public var error: String?
    public var addedAt: Date
    public var completedAt: Date?
    /// Position in the waiting line (lower starts first; `top` makes it lowest).
    public var position: Int64
    /// Validators of the data we hold, for If-Range (R52).
    public var etag: String?
    public var lastModified: String?
    public var contentType: String?
    /// The URL after redirects, once known.
    public var finalURL: String?
    /// Per-task speed limit in bytes/s (0: none).
    public var speedLimit: Int64
    /// When a `retrying` task's back-off ends.
    public var retryAt: Date?

    public init(url: String, normalizedURL: String, options: TaskOptions, name: String,
                addedAt: Date, position: Int64) {
        self.id = nil
        self.url = url
        self.normalizedURL = normalizedURL
        self.options = options
        self.name = name
        self.state = .queued
        self.downloaded = 0
        self.total = nil
        self.attempts = 0
        self.failuresWithoutData = 0
        self.error = nil
        self.addedAt = addedAt
        self.completedAt = nil
        self.position = position
        self.etag = nil
        self.lastModified = nil
        self.contentType = nil
        self.finalURL = nil
        self.speedLimit = options.maxDownloadLimit ?? 0
        self.retryAt = nil
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The id of a stored record (records are only handed out after insert).
    public var taskID: Int64 { id ?? 0 }
}
