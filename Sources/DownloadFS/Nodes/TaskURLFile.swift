import DownloadFSCore
import FuseKit
import Glibc

/// `queue/<id>/url`: the URL as given, its password shown as `***` (R6).
/// A task's URL never changes, so its size is cached like a name.
struct TaskURLFile: OpenableNode {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskURL(id).inode }
    var permissions: mode_t { 0o444 }

    func attributes() throws(Errno) -> FileAttributes {
        let entry = try context.task(id)
        return context.attributes(inode, .regular, permissions, size: Int64(text(entry).count),
                                  modified: context.time(entry.record.addedAt), attributeTimeout: KernelCacheTime.announced)
    }

    func open() throws(Errno) -> any OpenFile {
        SnapshotHandle(text(try context.task(id)))
    }

    private func text(_ entry: TaskEntry) -> [UInt8] {
        Array((URLNormalizer.maskingPassword(entry.record.url) + "\n").utf8)
    }
}
