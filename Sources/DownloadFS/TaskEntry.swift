import DownloadFSCore
import Engine

/// One task as a FUSE thread sees it: its committed state and its live progress.
struct TaskEntry: Sendable {
    var record: DownloadTask
    /// Bytes written and speed, updated by the engine without locks; nil for
    /// a task that has not transferred in this mount (its count is `record`'s).
    let live: LiveProgress?

    /// Bytes held now (status `downloaded`): what the engine wrote while
    /// downloading, else the committed count.
    var bytes: Int64 {
        if record.state == .downloading, let live { return max(0, live.bytes) }
        return record.downloaded
    }

    /// Bytes a reader may see now: the part from byte 0 without a hole
    /// (R23), the engine's while downloading, else the committed one.
    var readable: Int64 {
        if record.state == .downloading, let live { return max(0, live.readable) }
        return record.ranges.prefixEnd
    }

    var id: Int64 { record.taskID }
}
