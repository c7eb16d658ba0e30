import FuseKit

/// `queue/<id>/`: a task's `status`, `url`, `ctl`, `log`, `wait` (found by
/// name, never listed, R22) and its data file under the task's name.
struct TaskDirectory: DirectoryNode, UnlinkingDirectory {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskDir(id).inode }
    var parentInode: UInt64 { NodeID.queue.inode }

    /// The names every task directory holds beside its data file, with their
    /// nodes' ids (`TaskChangeNotices` forgets them all when the task goes).
    static func fixedChildren(_ id: Int64) -> [(name: String, node: NodeID)] {
        [("status", .taskStatus(id)), ("url", .taskURL(id)), ("ctl", .taskCtl(id)),
         ("log", .taskLog(id)), ("wait", .taskWait(id))]
    }

    func attributes() throws(Errno) -> FileAttributes {
        let entry = try context.task(id)
        return context.attributes(inode, .directory, 0o755, modified: context.time(entry.record.addedAt),
                                  attributeTimeout: KernelCacheTime.announced)
    }

    func child(named name: String) throws(Errno) -> any Node {
        let entry = try context.task(id)
        switch name {
        case "status": return TaskStatusFile(context: context, id: id)
        case "url": return TaskURLFile(context: context, id: id)
        case "ctl": return TaskControlFile(context: context, id: id)
        case "log": return TaskLogFile(context: context, id: id)
        case "wait": return TaskWaitFile(context: context, id: id)
        case entry.record.name: return TaskDataFile(context: context, id: id)
        default: throw .noEntry
        }
    }

    func entries() throws(Errno) -> [DirectoryEntry] {
        let entry = try context.task(id)
        let listed = Self.fixedChildren(id).filter { $0.name != "wait" } + [(entry.record.name, .taskData(id))]
        return listed.map { DirectoryEntry(name: $0.name, inode: $0.node.inode, isDirectory: false) }
    }

    /// `rm -r queue/<id>` unlinks every entry before the rmdir that cancels
    /// the task (R32); those unlinks succeed and change nothing, so `rm -r`
    /// does not stop at the first refusal.
    func unlink(_ name: String) throws(Errno) {
        _ = try child(named: name)
    }
}
