import Catalog
import DownloadFSCore

/// What one turn of the loop changed and still has to do: the rows and log
/// lines to commit together, the effects to carry out and the writers to
/// answer once they are committed, and each touched task as it was before
/// (to undo a batch of user requests whose commit failed).
struct LoopBatch {
    /// Tasks as they were before this batch touched them (nil: new).
    private(set) var originals: [Int64: DownloadTask?] = [:]
    private var inserted: Set<Int64> = []
    private(set) var updated: Set<Int64> = []
    private var deleted: Set<Int64> = []
    /// Log lines this batch decided (shown once committed).
    var events: [EventRecord] = []
    /// Daemon lines written elsewhere, already shown, stored with the batch.
    var shownEvents: [EventRecord] = []
    var effects: [(Int64, TaskEffect, DownloadTask)] = []
    /// Run on the loop thread once committed, or with the error.
    private(set) var committed: [() -> Void] = []
    private(set) var failed: [(CatalogError) -> Void] = []

    var touched: Dictionary<Int64, DownloadTask?>.Keys { originals.keys }

    mutating func remember(_ old: DownloadTask) {
        if originals[old.taskID] == nil { originals[old.taskID] = .some(old) }
    }

    mutating func insert(_ task: DownloadTask) {
        if originals[task.taskID] == nil { originals[task.taskID] = .some(nil) }
        inserted.insert(task.taskID)
    }

    mutating func update(_ task: DownloadTask) {
        if !inserted.contains(task.taskID) { updated.insert(task.taskID) }
    }

    /// Marks tasks whose earlier batch could not be committed.
    mutating func update(ids: Set<Int64>) {
        updated.formUnion(ids.subtracting(inserted))
    }

    mutating func delete(_ id: Int64) {
        updated.remove(id)
        if inserted.remove(id) == nil { deleted.insert(id) }
    }

    mutating func onCommit(_ done: @escaping () -> Void, failed: @escaping (CatalogError) -> Void = { _ in }) {
        committed.append(done)
        self.failed.append(failed)
    }

    /// The catalog's part, with each task as it is after the whole turn.
    func catalog(from tasks: TaskIndex) -> CatalogBatch {
        var batch = CatalogBatch()
        batch.inserts = inserted.sorted().compactMap { tasks[$0] }
        batch.updates = updated.compactMap { tasks[$0] }
        batch.deletes = Array(deleted)
        batch.events = events + shownEvents
        return batch
    }
}
