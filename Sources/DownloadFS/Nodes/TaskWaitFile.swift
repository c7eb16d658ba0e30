import FuseKit
import Glibc

/// `queue/<id>/wait`: a read blocks until the task ends (R22).
struct TaskWaitFile: StableTaskFile {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskWait(id).inode }
    var permissions: mode_t { 0o444 }

    func open() throws(Errno) -> any OpenFile {
        _ = try context.task(id)
        return WaitHandle(context: context, id: id)
    }
}
