import FuseKit
import Glibc

/// `queue/<id>/ctl`: one command per write (R30); write-only.
struct TaskControlFile: StableTaskFile, CommandFile {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskCtl(id).inode }
    var permissions: mode_t { 0o200 }

    func open() throws(Errno) -> any OpenFile {
        _ = try context.task(id)
        return TaskControlHandle(context: context, id: id)
    }
}
