import DownloadFSCore
import Engine

/// One task as a FUSE thread sees it: its committed state and its live progress.
struct TaskEntry: Sendable {
    var record: DownloadTask
    /// Bytes written and speed, updated by the engine without locks.
    let live: LiveProgress

    var id: Int64 { record.taskID }
}
