import DownloadFSCore
import FuseKit
import Glibc

/// `queue/<id>/ctl`: one command per write (R30); reading it shows the
/// task's settings in the same words (`ControlSettings`), made at every
/// open, with its size asked afresh at every `stat` like `status`'s (R7).
struct TaskControlFile: StableTaskFile, CommandFile {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskCtl(id).inode }
    var permissions: mode_t { 0o644 }

    func attributes() throws(Errno) -> FileAttributes {
        let entry = try context.task(id)
        return context.attributes(inode, .regular, permissions, size: Int64(text(entry).count),
                                  modified: context.time(entry.record.addedAt), attributeTimeout: KernelCacheTime.live)
    }

    func open() throws(Errno) -> any OpenFile {
        ControlHandle(context: context, target: .task(id), settings: text(try context.task(id)))
    }

    private func text(_ entry: TaskEntry) -> [UInt8] {
        Array(ControlSettings.task(entry.record, mount: context.table.settings).utf8)
    }
}
