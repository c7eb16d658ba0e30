import DownloadFSCore
import FuseKit

/// `queue/`: `new`, one directory per task, and the drop-in files being
/// copied in (R14, found by name but not listed: they do not stay). Its
/// attribute `user.downloadfs.line` is the waiting line in start order
/// (`WaitingLineAttribute`).
struct QueueDirectory: DirectoryNode, UnlinkingDirectory, RemovingDirectory, CreatingDirectory, ExtendedAttributesNode {
    let context: NodeContext
    var inode: UInt64 { NodeID.queue.inode }
    var parentInode: UInt64 { NodeID.root.inode }

    func attributes() throws(Errno) -> FileAttributes {
        context.attributes(inode, .directory, 0o755, modified: context.listings.queue,
                           attributeTimeout: KernelCacheTime.announced)
    }

    /// A task id as its directory is named: digits only, no sign, no leading zero.
    private func taskID(_ name: String) -> Int64? {
        guard let id = Int64(name), String(id) == name else { return nil }
        return id
    }

    func child(named name: String) throws(Errno) -> any Node {
        if name == "new" { return QueueNewFile(context: context) }
        if let id = taskID(name), context.table.entry(id) != nil { return TaskDirectory(context: context, id: id) }
        if let number = context.dropIns.number(name) { return DropInFile(context: context, number: number) }
        throw .noEntry
    }

    func list(into listing: inout DirectoryListing) throws(Errno) {
        listing.append("new", inode: NodeID.queueNew.inode, isDirectory: false)
        context.table.forEachID { listing.append(String($0), inode: NodeID.taskDir($0).inode, isDirectory: true) }
    }

    func extendedAttribute(_ name: String) throws(Errno) -> [UInt8] {
        guard name == WaitingLineAttribute.name else { throw .noAttribute }
        return WaitingLineAttribute.value(context.table.snapshot.tasks.waitingLine())
    }

    func extendedAttributeNames() throws(Errno) -> [String] { [] }

    /// Only a drop-in file can go; `new` stays, a task is removed with rmdir.
    func unlink(_ name: String) throws(Errno) {
        if name == "new" { throw .notPermitted }
        if let id = taskID(name), context.table.entry(id) != nil { throw .isDirectory }
        guard context.dropIns.remove(name) != nil else { throw .noEntry }
    }

    /// `rmdir queue/<id>` cancels the task (R32).
    func removeDirectory(_ name: String) throws(Errno) {
        guard let id = taskID(name), context.table.entry(id) != nil else {
            throw name == "new" ? .notDirectory : .noEntry
        }
        do { try context.loop.client.remove(id) } catch { throw .io }
    }

    /// R14: any other new file in `queue/` is a one-shot `queue/new`.
    func create(_ name: String, by caller: RequestCaller) throws(Errno) -> (node: any Node, file: any OpenFile) {
        if name == "new" { throw .exists }
        // A number names a task's directory (one may get it any time): not a file's.
        if Int64(name) != nil {
            context.log.daemon("queue/\(name): refused: a name that is a number is a task's (queue/<id>); "
                               + "give the file another name, e.g. \(name).txt", level: .warning)
            throw .invalid
        }
        guard let number = context.dropIns.register(name) else { throw .exists }
        return (DropInFile(context: context, number: number),
                InputHandle(context: context, dropIn: (name: name, number: number), opener: caller))
    }
}
