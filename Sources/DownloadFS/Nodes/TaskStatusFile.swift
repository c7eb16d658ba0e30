import DownloadFSCore
import Engine
import Foundation
import FuseKit
import Glibc

/// `queue/<id>/status`: the task's live `key: value` lines (R20), rendered
/// at every open so each `cat` is fresh (R7).
struct TaskStatusFile: OpenableNode {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskStatus(id).inode }
    var permissions: mode_t { 0o444 }

    func attributes() throws(Errno) -> FileAttributes {
        let entry = try context.task(id)
        return context.attributes(inode, .regular, permissions, size: Int64(render(entry).count),
                                  modified: context.time(entry.record.addedAt), attributeTimeout: KernelCacheTime.live)
    }

    func open() throws(Errno) -> any OpenFile {
        SnapshotHandle(render(try context.task(id)))
    }

    private func render(_ entry: TaskEntry) -> [UInt8] {
        Array(StatusRenderer.render(TaskStatusView(entry, now: MonotonicClock.now()), now: Date()).utf8)
    }
}
