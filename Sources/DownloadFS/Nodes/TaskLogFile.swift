import FuseKit

/// `queue/<id>/log`: the task's event log, newest last, read from the
/// catalog at every open and as a follower reads on (logs are not a hot
/// path, docs/design.md).
struct TaskLogFile: TaskTextFile {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskLog(id).inode }
    var attributeTimeout: Double { KernelCacheTime.live }
    var grows: Bool { true }

    func text(_ entry: TaskEntry) -> [UInt8] {
        Array(context.log.taskText(entry.record).utf8)
    }
}
