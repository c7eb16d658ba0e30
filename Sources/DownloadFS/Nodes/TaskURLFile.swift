import DownloadFSCore
import FuseKit

/// `queue/<id>/url`: the URL as given, its password shown as `***` (R6).
/// A task's URL never changes, so its size is cached like a name. Its
/// extended attribute `user.downloadfs.mirrors` lists the task's other
/// URLs still in use (R19), from the task in memory
/// (`TaskDirectoryNames.mirrorsAttribute`).
struct TaskURLFile: TaskTextFile, ExtendedAttributesNode {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskURL(id).inode }
    var attributeTimeout: Double { KernelCacheTime.announced }

    func text(_ entry: TaskEntry) -> [UInt8] {
        Array((URLNormalizer.maskingPassword(entry.record.url) + "\n").utf8)
    }

    /// The mirrors not dropped, one per line; nil for a task with none.
    static func mirrors(_ entry: TaskEntry) -> [UInt8]? {
        let task = entry.record
        let live = task.mirrors.filter { !task.droppedMirrors.contains($0) }
        guard !live.isEmpty else { return nil }
        return Array(live.map { URLNormalizer.maskingPassword($0) + "\n" }.joined().utf8)
    }

    func extendedAttribute(_ name: String) throws(Errno) -> [UInt8] {
        guard name == TaskDirectoryNames.mirrorsAttribute, let value = Self.mirrors(try context.task(id)) else {
            throw .noAttribute
        }
        return value
    }

    func extendedAttributeNames() throws(Errno) -> [String] {
        Self.mirrors(try context.task(id)) == nil ? [] : [TaskDirectoryNames.mirrorsAttribute]
    }
}
