import DownloadFSCore
import FuseKit

/// `queue/<id>/url`: the URL as given, its password shown as `***` (R6).
/// A task's URL never changes, so its size is cached like a name.
struct TaskURLFile: TaskTextFile {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskURL(id).inode }
    var attributeTimeout: Double { KernelCacheTime.announced }

    func text(_ entry: TaskEntry) -> [UInt8] {
        Array((URLNormalizer.maskingPassword(entry.record.url) + "\n").utf8)
    }
}
