import FuseKit
import Glibc

/// `queue/<id>/log`: the task's event log, newest last, read from the
/// catalog at every open (logs are not a hot path, docs/design.md).
struct TaskLogFile: OpenableNode {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskLog(id).inode }
    var permissions: mode_t { 0o444 }

    func attributes() throws(Errno) -> FileAttributes {
        let entry = try context.task(id)
        return context.attributes(inode, .regular, permissions, size: Int64(context.log.taskText(id).utf8.count),
                                  modified: context.time(entry.record.addedAt), attributeTimeout: KernelCacheTime.live)
    }

    func open() throws(Errno) -> any OpenFile {
        _ = try context.task(id)
        return SnapshotHandle(Array(context.log.taskText(id).utf8))
    }
}
