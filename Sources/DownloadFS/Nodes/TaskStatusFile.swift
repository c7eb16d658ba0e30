import DownloadFSCore
import Engine
import Foundation
import FuseKit

/// `queue/<id>/status`: the task's live `key: value` lines (R20).
struct TaskStatusFile: TaskTextFile {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskStatus(id).inode }
    var attributeTimeout: Double { KernelCacheTime.live }

    func text(_ entry: TaskEntry) -> [UInt8] {
        Array(StatusRenderer.render(TaskStatusView(entry, now: MonotonicClock.now()), now: Date()).utf8)
    }
}
