import DownloadFSCore
import Engine
import Synchronization

/// The tasks as FUSE threads see them: a copy of the loop's `TaskIndex`,
/// published by the loop after each batch is committed (R15), read without
/// touching SQLite (STYLE habit 6). Nothing is called out of the table while
/// its lock is held.
final class TaskTable: Sendable {
    private struct State {
        var index = TaskIndex().forLookups
        /// Bytes written and speed of each task, moved by the engine without locks.
        var lives: [Int64: LiveProgress] = [:]

        func entry(_ task: DownloadTask?) -> TaskEntry? {
            task.map { TaskEntry(record: $0, live: lives[$0.taskID]) }
        }
    }

    private let state = Mutex(State())

    func entry(_ id: Int64) -> TaskEntry? {
        state.withLock { $0.entry($0.index[id]) }
    }

    /// `transform` of every task, oldest id first, nil results left out.
    ///
    /// A few thousand tasks per hold of the lock, transformed as they are
    /// read: neither the loop's publishing nor other readers wait for the
    /// whole table, and no array of every entry is built on the way (at
    /// 100,000 tasks the status table's peak memory).
    func map<T>(_ transform: (TaskEntry) -> T?) -> [T] {
        let ids = self.ids()
        var out: [T] = []
        out.reserveCapacity(ids.count)
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(start + 4096, ids.count)]
            state.withLock { s in
                for id in chunk {
                    if let entry = s.entry(s.index[id]), let value = transform(entry) { out.append(value) }
                }
            }
            start = chunk.endIndex
        }
        return out
    }

    func ids() -> [Int64] {
        state.withLock { $0.index.sortedIDs }
    }

    func task(named name: String) -> TaskEntry? {
        state.withLock { $0.entry($0.index.task(named: name)) }
    }

    func isNameTaken(_ name: String) -> Bool {
        state.withLock { $0.index.isNameTaken(name) }
    }

    /// Shows a committed task (the loop only); `live` for one that has
    /// transferred in this mount.
    func publish(_ task: DownloadTask, live: LiveProgress?) {
        state.withLock {
            $0.index.put(task)
            $0.lives[task.taskID] = live
        }
    }

    /// Shows every task at once (the mount's load).
    func publishAll(_ index: TaskIndex) {
        let published = index.forLookups
        state.withLock { $0.index = published }
    }

    /// Forgets a deleted task (the loop only).
    func remove(_ id: Int64) {
        state.withLock {
            $0.index.remove(id)
            $0.lives[id] = nil
        }
    }
}
