import DownloadFSCore

/// Everything one turn of the daemon's loop changed, committed by
/// `Catalog.commit` in one transaction (group commit): new and changed
/// tasks, the log lines that describe them, and deleted tasks.
public struct CatalogBatch: Sendable {
    /// New tasks, with the ids the loop gave them.
    public var inserts: [DownloadTask] = []
    public var updates: [DownloadTask] = []
    public var deletes: [Int64] = []
    public var events: [EventRecord] = []

    public init() {}

    public var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty && events.isEmpty }
}
