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

    /// The data file's size (R23): the total once it is known, the whole
    /// file once completed; else the bytes from 0 without a hole, the
    /// engine's while downloading (the file grows as they land).
    var dataSize: Int64 {
        if record.state == .completed { return record.downloaded }
        if let total = record.total { return total }
        if record.state == .downloading, let live { return max(0, live.readable) }
        return record.ranges.prefixEnd
    }

    /// The bytes the data file holds now and its generation (R23): the
    /// engine's view where the task has one, else the committed ranges.
    var held: (generation: UInt64, ranges: ByteRanges) {
        live?.snapshot() ?? (0, record.ranges)
    }

    /// The bytes the data file holds now, for a view rather than a read
    /// (`LiveProgress.ranges`).
    var shownRanges: ByteRanges { live?.ranges ?? record.ranges }

    /// The data file's generation alone (changed by a start-over).
    var generation: UInt64 { live?.generation ?? 0 }

    var id: Int64 { record.taskID }
}
