import Foundation

/// One download task: what the catalog stores of it (everything needed to
/// show it and to carry it on after a remount), plus the few facts about its
/// running transfer that live only in memory.
///
/// Only `TaskMachine` changes a task; the daemon's loop commits the stored
/// part to the catalog before anything shows the change (R15).
public struct DownloadTask: Codable, Sendable, Equatable {
    /// Never reused: the table uses AUTOINCREMENT, so even the highest id of a
    /// deleted task is not handed out again. Nil until inserted.
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
    /// Validators of the data we hold, for If-Range (R52); for FTP the MDTM.
    public var etag: String?
    public var lastModified: String?
    public var contentType: String?
    /// The URL after redirects, once known.
    public var finalURL: String?
    /// Per-task speed limit in bytes/s (0: none).
    public var speedLimit: Int64
    /// When a `retrying` task's back-off ends.
    public var retryAt: Date?

    // MARK: in memory only (not in the catalog)

    /// The current transfer attempt; reports from older ones are ignored.
    public var serial: UInt64 = 0
    /// Whether attempt `serial` has a transfer the engine has not reported
    /// finished yet (a stop can only be waited for while this holds).
    public var transferring = false
    /// A stop asked of the running transfer, carried out when it reports.
    public var stopping: StopReason?
    /// Monotonic time the task last started downloading (preemption order, R30/R31).
    public var startedAt: Double?

    enum CodingKeys: String, CodingKey {
        case id, url, normalizedURL, options, name, state, downloaded, total, attempts, failuresWithoutData,
             error, addedAt, completedAt, position, etag, lastModified, contentType, finalURL, speedLimit, retryAt
    }

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

    /// The id of a stored task (tasks are only handed out after insert).
    public var taskID: Int64 { id ?? 0 }

    /// What a resumed request builds on (R52).
    public var stored: StoredProgress {
        StoredProgress(offset: downloaded, total: total, etag: etag, lastModified: lastModified)
    }

    /// True when the catalog's copy differs: the in-memory fields aside.
    public func differsInCatalog(from other: DownloadTask) -> Bool {
        var a = self, b = other
        a.clearRuntime()
        b.clearRuntime()
        return a != b
    }

    private mutating func clearRuntime() {
        serial = 0
        transferring = false
        stopping = nil
        startedAt = nil
    }
}
