import DownloadFSCore
import Engine
import Foundation
import FuseKit

/// `queue/<id>/status`: the task's live `key: value` lines (R20), also
/// given whole by its extended attribute `user.downloadfs.status`
/// (`TaskDirectoryNames.statusAttribute`), answered by name and never
/// listed, so copies of the file do not take it.
struct TaskStatusFile: TaskTextFile, ExtendedAttributesNode {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskStatus(id).inode }
    var attributeTimeout: Double { KernelCacheTime.live }

    func text(_ entry: TaskEntry) -> [UInt8] {
        Array(StatusRenderer.render(TaskStatusView(entry, now: MonotonicClock.now()), now: Date()).utf8)
    }

    func extendedAttribute(_ name: String) throws(Errno) -> [UInt8] {
        guard name == TaskDirectoryNames.statusAttribute else { throw .noAttribute }
        return text(try context.task(id))
    }

    func extendedAttributeNames() throws(Errno) -> [String] { [] }
}
