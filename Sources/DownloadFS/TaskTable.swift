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
    }

    private let state = Mutex(State())

    func entry(_ id: Int64) -> TaskEntry? {
        state.withLock { $0.tasks[id] }
    }

    /// Every task, oldest id first.
    func all() -> [TaskEntry] {
        state.withLock { $0.tasks.values.sorted { $0.id < $1.id } }
    }

    func ids() -> [Int64] {
        state.withLock { $0.tasks.keys.sorted() }
    }

    func task(named name: String) -> TaskEntry? {
        state.withLock { s in s.names[name].flatMap { s.tasks[$0] } }
    }

    func isNameTaken(_ name: String) -> Bool {
        state.withLock { $0.names[name] != nil }
    }

    func put(_ entry: TaskEntry) {
        state.withLock { s in
            if let old = s.tasks[entry.id], s.names[old.record.name] == entry.id {
                s.names[old.record.name] = nil
            }
            s.tasks[entry.id] = entry
            s.names[entry.record.name] = entry.id
        }
    }

    func update(_ id: Int64, _ change: (inout TaskEntry) -> Void) {
        state.withLock { s in
            guard var entry = s.tasks[id] else { return }
            let oldName = entry.record.name
            change(&entry)
            if entry.record.name != oldName {
                if s.names[oldName] == id { s.names[oldName] = nil }
                s.names[entry.record.name] = id
            }
            s.tasks[id] = entry
        }
    }

    func remove(_ id: Int64) {
        state.withLock { s in
            if let old = s.tasks.removeValue(forKey: id), s.names[old.record.name] == id {
                s.names[old.record.name] = nil
            }
        }
    }
}
