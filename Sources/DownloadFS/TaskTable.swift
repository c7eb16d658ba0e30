import DownloadFSCore
import Engine
import Synchronization

/// The tasks as FUSE threads see them: the loop's last published
/// `TaskSnapshot` (R15), which shares every task with the loop's own index,
/// and each task's `LiveProgress`. The lock is held only to take or replace
/// the snapshot (two references); readers go through their copy without
/// it, so a `status` of a million rows holds up neither the loop nor other
/// readers. Nothing is called out of the table while its lock is held.
final class TaskTable: Sendable {
    private struct State {
        var snapshot = TaskSnapshot()
        /// Bytes written and speed of each task, moved by the engine without locks.
        var lives: [Int64: LiveProgress] = [:]
        /// What `MOUNT/ctl` has set; nil until the loop first publishes.
        var settings: MountSettings?
    }

    private let state = Mutex(State())

    /// The tasks as last published, and the live progress of those that have one.
    var snapshot: (tasks: TaskSnapshot, lives: [Int64: LiveProgress]) {
        state.withLock { ($0.snapshot, $0.lives) }
    }

    /// The mount's settings as last published (R31), for reading a `ctl`.
    var settings: MountSettings {
        state.withLock { $0.settings } ?? MountSettings(maxActive: 0, globalLimit: 0, globalSplit: nil)
    }

    func entry(_ id: Int64) -> TaskEntry? {
        let (task, live) = state.withLock { s in (s.snapshot[id], s.lives[id]) }
        return task.map { TaskEntry(record: $0, live: live) }
    }

    /// Every task id, lowest first, from one snapshot.
    func forEachID(_ body: (Int64) -> Void) {
        state.withLock { $0.snapshot }.tasks.forEach { id, _ in body(id) }
    }

    /// Every task's record, lowest id first, from one snapshot.
    func forEachTask(_ body: (DownloadTask) -> Void) {
        state.withLock { $0.snapshot }.tasks.forEach { _, task in body(task) }
    }

    /// The completed task whose file is called `name` (R40).
    func task(named name: String) -> TaskEntry? {
        let (tasks, lives) = snapshot
        return tasks.completed(named: name).map { TaskEntry(record: $0, live: lives[$0.taskID]) }
    }

    /// Whether a task claims `name` in files/: its completed file, or its
    /// whole file being moved in (R43: not shown yet). Any other file there
    /// is a plain one (R34). A task still downloading has no file there
    /// (R17 never gives it the name of one).
    func isNameTaken(_ name: String) -> Bool {
        state.withLock { $0.snapshot.completedNames[name] != nil || $0.snapshot.movingIn[name] != nil }
    }

    /// Shows the committed task set (the loop only).
    func publish(_ tasks: TaskSnapshot) {
        // The old snapshot may hold the last references to chunks the loop
        // has since copied: it is let go after the lock, not under it.
        let old = state.withLock { s -> TaskSnapshot in
            defer { s.snapshot = tasks }
            return s.snapshot
        }
        withExtendedLifetime(old) {}
    }

    /// Shows the mount's settings (the loop only), before the write that
    /// changed them is answered.
    func publish(_ settings: MountSettings) {
        state.withLock { $0.settings = settings }
    }

    /// Sets or drops the live progress of a task (the loop only).
    func setLive(_ id: Int64, _ live: LiveProgress?) {
        state.withLock { $0.lives[id] = live }
    }
}
