import DownloadFSCore
import FuseKit

/// `queue/<id>/`: a task's `status`, `url`, `ctl`, `log`, `wait` (found by
/// name, never listed, R22) and its data file under the task's name, or
/// the next free one where that is one of theirs (`TaskDirectoryNames`).
///
/// It also answers its files' own extended attributes — the status, the
/// mirrors and the byte ranges — by name, never listed, and all three in
/// one (`TaskReportAttribute`). A client that reads them (aria2's door,
/// every `tellStatus`) asks one node whose mode the kernel keeps: under
/// `default_permissions` a `getxattr` of `status` or of the data file,
/// whose sizes move, is preceded by a `getattr` (and `status` rendered
/// twice).
struct TaskDirectory: DirectoryNode, UnlinkingDirectory, ExtendedAttributesNode {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskDir(id).inode }
    var parentInode: UInt64 { NodeID.queue.inode }

    /// The names every task directory holds beside its data file, with their
    /// nodes' ids (`TaskChangeNotices` forgets them all when the task goes).
    static func fixedChildren(_ id: Int64) -> [(name: String, node: NodeID)] {
        [(TaskDirectoryNames.status, .taskStatus(id)), (TaskDirectoryNames.url, .taskURL(id)),
         (TaskDirectoryNames.control, .taskCtl(id)), (TaskDirectoryNames.log, .taskLog(id)),
         (TaskDirectoryNames.wait, .taskWait(id))]
    }

    func attributes() throws(Errno) -> FileAttributes {
        let entry = try context.task(id)
        return context.attributes(inode, .directory, 0o755, modified: context.time(entry.record.addedAt),
                                  attributeTimeout: KernelCacheTime.announced)
    }

    func child(named name: String) throws(Errno) -> any Node {
        let entry = try context.task(id)
        switch name {
        case TaskDirectoryNames.status: return TaskStatusFile(context: context, id: id)
        case TaskDirectoryNames.url: return TaskURLFile(context: context, id: id)
        case TaskDirectoryNames.control: return TaskControlFile(context: context, id: id)
        case TaskDirectoryNames.log: return TaskLogFile(context: context, id: id)
        case TaskDirectoryNames.wait: return TaskWaitFile(context: context, id: id)
        case TaskDirectoryNames.dataFile(ofTaskNamed: entry.record.name): return TaskDataFile(context: context, id: id)
        default: throw .noEntry
        }
    }

    func list(into listing: inout DirectoryListing) throws(Errno) {
        let entry = try context.task(id)
        for child in Self.fixedChildren(id) where child.name != TaskDirectoryNames.wait {
            listing.append(child.name, inode: child.node.inode, isDirectory: false)
        }
        listing.append(TaskDirectoryNames.dataFile(ofTaskNamed: entry.record.name), inode: NodeID.taskData(id).inode,
                       isDirectory: false)
    }

    func extendedAttribute(_ name: String) throws(Errno) -> [UInt8] {
        switch name {
        case TaskDirectoryNames.statusAttribute: return try TaskStatusFile(context: context, id: id).extendedAttribute(name)
        case TaskDirectoryNames.mirrorsAttribute: return try TaskURLFile(context: context, id: id).extendedAttribute(name)
        case TaskDirectoryNames.rangesAttribute: return try TaskDataFile(context: context, id: id).extendedAttribute(name)
        case TaskDirectoryNames.reportAttribute:
            // One entry for all three: one lookup, and texts of one moment.
            let entry = try context.task(id)
            return TaskReportAttribute.joined(status: TaskStatusFile(context: context, id: id).text(entry),
                                              mirrors: TaskURLFile.mirrors(entry) ?? [],
                                              ranges: TaskDataFile.rangesAttribute(entry))
        case TaskDirectoryNames.placeAttribute:
            guard let place = try context.place(of: id) else { throw .noAttribute }
            return Array("\(place)\n".utf8)
        default: throw .noAttribute
        }
    }

    func extendedAttributeNames() throws(Errno) -> [String] { [] }

    /// `rm -r queue/<id>` unlinks every entry before the rmdir that cancels
    /// the task (R32); those unlinks succeed and change nothing, so `rm -r`
    /// does not stop at the first refusal.
    func unlink(_ name: String) throws(Errno) {
        _ = try child(named: name)
    }
}
