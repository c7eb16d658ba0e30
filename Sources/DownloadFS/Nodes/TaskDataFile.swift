import DownloadFSCore
import Foundation
import FuseKit
import Glibc

/// `queue/<id>/<name>`: the task's data, readable at any time (R23): a
/// whole file of the task's total size as soon as that is known (reads of
/// bytes not yet here wait for them, `TaskDataHandle`), a growing one
/// while it is not, the finished file once the task is completed.
struct TaskDataFile: OpenableNode, ExtendedAttributesNode {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.taskData(id).inode }
    var permissions: mode_t { 0o444 }

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
        // The total, or growing as bytes land (R23): asked afresh every time.
        return context.attributes(inode, .regular, permissions, size: entry.dataSize,
                                  modified: context.time(entry.record.addedAt), attributeTimeout: KernelCacheTime.live)
    }

    func open() throws(Errno) -> any OpenFile {
        let entry = try context.task(id)
        let handle = TaskDataHandle(context: context, id: id, caching: entry.record.state == .completed ? .keep : .none)
        // An unfinished task's file is opened at the first read that finds
        // bytes in it (there may be none yet); a finished one must be there.
        if entry.record.state == .completed && handle.descriptor(for: entry, generation: entry.generation) < 0 { throw .opening(errno) }
        return handle
    }

    func extendedAttribute(_ name: String) throws(Errno) -> [UInt8] {
        let entry = try context.task(id)
        if name == TaskDirectoryNames.rangesAttribute { return Self.rangesAttribute(entry) }
        guard entry.record.state == .completed else { throw .noAttribute }
        return try OriginAttributes(entry.record).value(name)
    }

    /// `rangesAttribute` is answered by name and never listed, as `wait`
    /// is: `cp -a` and `rsync -X` of the data file do not copy it.
    func extendedAttributeNames() throws(Errno) -> [String] {
        let entry = try context.task(id)
        guard entry.record.state == .completed else { return [] }
        return OriginAttributes(entry.record).names
    }

    /// `user.downloadfs.ranges`: the bytes held, as `ByteRanges` writes them.
    static func rangesAttribute(_ entry: TaskEntry) -> [UInt8] { Array(held(entry).encoded.utf8) }

    /// The bytes the task holds: the engine's view while it downloads, the
    /// committed ranges otherwise, the whole file once completed.
    private static func held(_ entry: TaskEntry) -> ByteRanges {
        entry.record.state == .completed ? .prefix(entry.record.downloaded) : entry.shownRanges
    }
}
