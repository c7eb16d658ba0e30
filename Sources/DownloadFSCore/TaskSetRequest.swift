/// What the task set is asked to do: a user's request (through a FUSE
/// write, `rm` or `mv`), a report about one task (engine, workers), or the
/// turn's own scheduling pass. Requests that answer a writer carry the
/// token its reply is filed under (`TaskSetTurn.replies`).
public enum TaskSetRequest: Sendable {
    /// Lines of `queue/new` (R10, R13): the reply is the ids, one per entry.
    case add([InputEntry], token: UInt64)
    /// A write to `queue/<id>/ctl` (R30).
    case control(Int64, ControlCommand, token: UInt64)
    /// A write to the root `ctl` (R31).
    case controlGlobal(ControlCommand, token: UInt64)
    /// `rm -r queue/<id>`, `rm files/<name>` (R32).
    case remove(Int64, token: UInt64)
    /// `mv` inside files/ (R40): allowed or refused here; the turn's
    /// `renames` says what to rename on disk before committing.
    case rename(Int64, to: String, token: UInt64)
    /// `mv` inside files/ of a file no task has (R34), or of a folder (R35,
    /// `isFolder`: the tasks whose files are in it follow): allowed or
    /// refused here against every task's name, like a task's own.
    case renameFile(String, to: String, isFolder: Bool, token: UInt64)
    /// `mkdir` inside files/ (R35): allowed or refused here against every
    /// task's name; the turn's `folders` says what to make on disk.
    case makeFolder(String, token: UInt64)
    /// What the engine, a worker or the mount reports about a task.
    case report(Int64, TaskEvent)
    /// A reader just parked waiting for bytes of this task (R23): the task
    /// fetches them (its running attempt, or one that only reads).
    case readerParked(Int64)
    /// An attempt of this task ended while readers still wait: they get a
    /// reading attempt (a paused or waiting task), EIO (failed) or the file.
    case attemptEndedWithReaders(Int64)
    /// The end of a turn: back-offs that are over, then free slots filled
    /// and excess ones trimmed (R16, R31, R53), and the engine's limits
    /// and splits brought up to date.
    case schedule
    /// Unmounting: nothing starts any more (R3).
    case shutdown
}
