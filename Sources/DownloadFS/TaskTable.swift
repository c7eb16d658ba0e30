import Catalog
import DownloadFSCore
import Synchronization

/// The in-memory view of every task, read by FUSE threads without touching
/// SQLite (STYLE habit 6) and written only by the controller, after the
/// catalog committed the change (R15).
///
/// Lock order: the controller's lock, then this table's. Nothing is called
/// out of the table while its lock is held.
final class TaskTable: Sendable {
    private struct State {
        var tasks: [Int64: TaskEntry] = [:]
        /// Reserved names → task id (R17: unique among tasks).
        var names: [String: Int64] = [:]
        /// Normalised URLs of tasks that are not failed → task id (R13).
        var urls: [String: Int64] = [:]
        /// Tasks the scheduler, the limits and the retry timer look at:
        /// queued, running or retrying. With thousands of finished tasks a
        /// scheduling pass then costs what is in flight, not the catalog.
        var inFlight: Set<Int64> = []

        /// Replaces `old` by `new` in the task map and both indexes.
        mutating func replace(_ old: TaskEntry?, with new: TaskEntry?) {
            if let old {
                if names[old.record.name] == old.id { names[old.record.name] = nil }
                if urls[old.record.normalizedURL] == old.id { urls[old.record.normalizedURL] = nil }
                tasks[old.id] = nil
                inFlight.remove(old.id)
            }
            if let new {
                tasks[new.id] = new
                names[new.record.name] = new.id
                if new.record.state != .failed { urls[new.record.normalizedURL] = new.id }
                if new.record.state.isInFlight { inFlight.insert(new.id) }
            }
        }
    }

    private let state = Mutex(State())

    func entry(_ id: Int64) -> TaskEntry? {
        state.withLock { $0.tasks[id] }
    }

    /// Every task, oldest id first.
    func all() -> [TaskEntry] {
        state.withLock { $0.tasks.values.sorted { $0.id < $1.id } }
    }

    /// Queued, running and retrying tasks, in no particular order.
    func inFlight() -> [TaskEntry] {
        state.withLock { s in s.inFlight.compactMap { s.tasks[$0] } }
    }

    func ids() -> [Int64] {
        state.withLock { $0.tasks.keys.sorted() }
    }

    func task(named name: String) -> TaskEntry? {
        state.withLock { s in s.names[name].flatMap { s.tasks[$0] } }
    }

    /// The task, in any state but failed, that has this normalised URL (R13).
    func task(forURL normalizedURL: String) -> Int64? {
        state.withLock { $0.urls[normalizedURL] }
    }

    func isNameTaken(_ name: String) -> Bool {
        state.withLock { $0.names[name] != nil }
    }

    func put(_ entry: TaskEntry) {
        state.withLock { $0.replace($0.tasks[entry.id], with: entry) }
    }

    func update(_ id: Int64, _ change: (inout TaskEntry) -> Void) {
        state.withLock { s in
            guard let old = s.tasks[id] else { return }
            var new = old
            change(&new)
            s.replace(old, with: new)
        }
    }

    func remove(_ id: Int64) {
        state.withLock { $0.replace($0.tasks[id], with: nil) }
    }
}
