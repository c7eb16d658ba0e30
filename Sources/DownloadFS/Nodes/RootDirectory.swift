import FuseKit

/// `MOUNT/`: `queue/`, `files/`, the table, the global `ctl` and the daemon
/// log; `events` is found by name but not listed (R24), so `ls -R`, `grep -r`
/// and backups never block reading it.
struct RootDirectory: DirectoryNode {
    let context: NodeContext
    var inode: UInt64 { NodeID.root.inode }
    var parentInode: UInt64 { inode }

    func attributes() throws(Errno) -> FileAttributes {
        context.attributes(inode, .directory, 0o755, attributeTimeout: KernelCacheTime.announced)
    }

    func child(named name: String) throws(Errno) -> any Node {
        switch name {
        case "queue": return QueueDirectory(context: context)
        case "files": return FilesDirectory(context: context)
        case "status": return RootStatusFile(context: context)
        case "ctl": return RootControlFile(context: context)
        case "log": return RootLogFile(context: context)
        case "events": return EventsFile(context: context)
        default: throw .noEntry
        }
    }

    func list(into listing: inout DirectoryListing) throws(Errno) {
        listing.append("queue", inode: NodeID.queue.inode, isDirectory: true)
        listing.append("files", inode: NodeID.files.inode, isDirectory: true)
        listing.append("status", inode: NodeID.rootStatus.inode, isDirectory: false)
        listing.append("ctl", inode: NodeID.rootCtl.inode, isDirectory: false)
        listing.append("log", inode: NodeID.rootLog.inode, isDirectory: false)
    }
}
