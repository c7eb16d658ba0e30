import DownloadFSCore
import Foundation
import FuseKit
import Glibc

/// `queue/<id>/<name>`: the task's data, readable at any time (R23): what
/// has arrived while it downloads, the finished file once it is completed.
///
/// Self-contained (with `TaskDataHandle`): the next step (reads that wait
/// for bytes and fetch their range first) changes only these two types.
struct TaskDataFile: OpenableNode, ExtendedAttributesNode {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskData(id).inode }
    var permissions: mode_t { 0o444 }

    /// Bytes a reader may see of a task's data (R23: never more than arrived).
    static func visibleSize(_ entry: TaskEntry) -> Int64 { entry.readable }

    /// The file holding the task's bytes now: the finished file once
    /// completed, else the partial file (which may not exist yet).
    static func path(_ entry: TaskEntry, in state: StateDirectory) -> String {
        entry.record.state == .completed ? state.file(entry.record.name) : state.partial(entry.id)
    }

    func attributes() throws(Errno) -> FileAttributes {
        let entry = try context.task(id)
        if entry.record.state == .completed {
            // Immutable now; a rename or removal is announced (R7).
            return context.attributes(inode, .regular, permissions, size: entry.record.downloaded,
                                      modified: context.time(OriginAttributes.modified(entry.record)),
                                      attributeTimeout: KernelCacheTime.announced)
        }
        // Grows as bytes land (R23): asked afresh every time.
        return context.attributes(inode, .regular, permissions, size: Self.visibleSize(entry),
                                  modified: context.time(entry.record.addedAt), attributeTimeout: KernelCacheTime.live)
    }

    func open() throws(Errno) -> any OpenFile {
        let entry = try context.task(id)
        let completed = entry.record.state == .completed
        let fd = Glibc.open(Self.path(entry, in: context.state), O_RDONLY | O_CLOEXEC)
        // An unfinished task may have no partial file yet: opened at the first read.
        if completed && fd < 0 { throw .io }
        return TaskDataHandle(context: context, id: id, descriptor: fd, caching: completed ? .keep : .none)
    }

    func extendedAttribute(_ name: String) throws(Errno) -> [UInt8] {
        let entry = try context.task(id)
        guard entry.record.state == .completed else { throw .noAttribute }
        return try OriginAttributes(entry.record).value(name)
    }

    func extendedAttributeNames() throws(Errno) -> [String] {
        let entry = try context.task(id)
        guard entry.record.state == .completed else { return [] }
        return OriginAttributes(entry.record).names
    }
}
